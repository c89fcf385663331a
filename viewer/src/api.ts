// The viewer's only way to the data: the public /v1 routes, with the bearer
// token in the Authorization header and, when another user is picked, user=.
// Response types are the server's own schemas (type-only imports: nothing of
// the server is bundled). A 401 signs out; other errors carry the API's
// message, which never holds health values.
import type { Static } from '@sinclair/typebox';
import type {
  ActivitySummaryResponse, CatalogResponse, DailyMetricsResponse, SamplesPage, SleepNightsResponse, UsersResponse,
  WorkoutRouteResponse, WorkoutSeriesResponse, WorkoutsResponse,
} from '../../src/schemas/resources.js';
import type { SummaryT, WorkoutDetailT } from '../../src/schemas/resources.js';

export type Users = Static<typeof UsersResponse>;
export type Catalog = Static<typeof CatalogResponse>;
export type DailyMetrics = Static<typeof DailyMetricsResponse>;
export type ActivityDays = Static<typeof ActivitySummaryResponse>;
export type Workouts = Static<typeof WorkoutsResponse>;
export type WorkoutSeries = Static<typeof WorkoutSeriesResponse>;
export type WorkoutRoute = Static<typeof WorkoutRouteResponse>;
export type SleepNights = Static<typeof SleepNightsResponse>;
export type Samples = Static<typeof SamplesPage>;
export type { SummaryT as Summary, WorkoutDetailT as WorkoutDetail };

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

type Params = Record<string, string | number | undefined>;

export interface Download {
  blob: Blob;
  filename: string;
}

export class Api {
  constructor(
    private readonly token: string,
    /** The user to read; null reads the server's default user. */
    readonly userId: string | null,
    private readonly onUnauthorized: () => void,
  ) {}

  private url(path: string, params: Params): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
    if (this.userId) query.set('user', this.userId);
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  }

  private async fetch(path: string, params: Params): Promise<Response> {
    const response = await fetch(this.url(path, params), { headers: { Authorization: `Bearer ${this.token}` } });
    if (response.ok) return response;
    let message = `HTTP ${response.status}`;
    try {
      const body = (await response.json()) as { error?: unknown };
      if (typeof body.error === 'string') message = `${body.error} (HTTP ${response.status})`;
    } catch {
      // Not JSON: the status says enough.
    }
    if (response.status === 401) this.onUnauthorized();
    throw new ApiError(response.status, message);
  }

  async get<T>(path: string, params: Params = {}): Promise<T> {
    return (await (await this.fetch(path, params)).json()) as T;
  }

  /** A file route (export, GPX) as a Blob, with the name the server gave it. */
  async download(path: string, params: Params): Promise<Download> {
    const response = await this.fetch(path, params);
    const disposition = response.headers.get('content-disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'download';
    return { blob: await response.blob(), filename };
  }

  users = () => this.get<Users>('/v1/users');
  catalog = () => this.get<Catalog>('/v1/catalog/types');
  activity = (start: number, end: number) => this.get<ActivityDays>('/v1/activity/summary', { start, end });
  summary = (range: '7d' | '14d' | '30d' | '90d') => this.get<SummaryT>('/v1/summary', { range, format: 'json' });
  sleep = (start: number, end: number) => this.get<SleepNights>('/v1/sleep/daily', { start, end });
  workouts = (params: { activityType?: string; limit?: number; offset?: number }) => this.get<Workouts>('/v1/workouts', params);
  workout = (uuid: string) => this.get<WorkoutDetailT>(`/v1/workouts/${encodeURIComponent(uuid)}`);
  series = (uuid: string, maxPoints: number) => this.get<WorkoutSeries>(`/v1/workouts/${encodeURIComponent(uuid)}/series`, { maxPoints });
  route = (uuid: string, maxPoints: number) => this.get<WorkoutRoute>(`/v1/workouts/${encodeURIComponent(uuid)}/route`, { maxPoints });

  /** Every day row of the types over [start, end), following nextOffset. */
  async daily(types: readonly string[], start: number, end: number): Promise<DailyMetrics['metrics']> {
    const byType = new Map<string, DailyMetrics['metrics'][number]>();
    const limit = 50_000;
    for (let offset = 0; ; ) {
      const page = await this.get<DailyMetrics>('/v1/metrics/daily', { types: types.join(','), start, end, limit, offset });
      let rows = 0;
      for (const metric of page.metrics) {
        rows += metric.days.length;
        const seen = byType.get(metric.identifier);
        if (seen) seen.days.push(...metric.days);
        else byType.set(metric.identifier, { ...metric, days: [...metric.days] });
      }
      if (rows < limit) break;
      offset = page.nextOffset;
    }
    return types.flatMap((identifier) => byType.get(identifier) ?? []);
  }

  /** Every raw sample of one type over [start, end) (at most 31 days), following nextOffset. */
  async samples(type: string, start: number, end: number): Promise<Samples['samples']> {
    const all: Samples['samples'] = [];
    const limit = 5000;
    for (let offset = 0; ; ) {
      const page = await this.get<Samples>('/v1/samples', { type, start, end, limit, offset });
      all.push(...page.samples);
      if (page.samples.length < limit) return all;
      offset = page.nextOffset;
    }
  }
}
