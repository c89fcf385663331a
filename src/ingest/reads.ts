// The receiver's optional read endpoints (FACTS.md §1): what it stores
// (capabilities), per-type counts (stats), and the uuids and monthly digests
// the app reconciles against. Errors are `{"error"}`; times are epoch ms.
import { kindOfIdentifier, SPECIAL_IDENTIFIERS } from '../core/registry.js';
import { monthDigests, sampleUuids, uploadStats } from '../db/queries/ingest.js';
import type { Db } from '../db/pool.js';
import { INGEST } from '../limits.js';
import type { RawQuery } from '../params/query-string.js';
import { ingestErrors } from './errors.js';
import { EPOCH_MS_RANGE } from './lines.js';

/** The line types this receiver stores (every v1 line type), and the reads it serves. */
export const FEATURES = ['batches', 'stats', 'digest', 'uuids', 'aggregates', 'activitySummaries', 'routes', 'series', 'profile'] as const;
export const SERVER = { name: 'healthd', version: '1.0.0' } as const;

const CAPABILITIES = JSON.stringify({ protocolVersions: [1], features: FEATURES, server: SERVER.name, version: SERVER.version });

export const capabilities = (): string => CAPABILITIES;

export const statsAnswer = (db: Db, userId: string) => uploadStats(db, userId);

function single(query: RawQuery, name: string): string {
  const values = query.get(name);
  if (values === undefined || values[0] === '') throw ingestErrors.badRequest(`${name} is required`);
  if (values.length > 1) throw ingestErrors.badRequest(`${name} must be given once`);
  return values[0];
}

function instant(query: RawQuery, name: string): number {
  const raw = single(query, name);
  const value = Number(raw);
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(raw) || value < EPOCH_MS_RANGE.min || value > EPOCH_MS_RANGE.max) {
    throw ingestErrors.badRequest(`${name} must be an epoch-ms timestamp`);
  }
  return value;
}

/**
 * `[from, to)`, fractions accepted (FACTS.md §7) and checked as sent, then
 * given as the whole milliseconds the stored instants compare against: they
 * are whole, so `t >= x` and `t < x` select the rows `t >= ceil(x)` and
 * `t < ceil(x)` do.
 */
function range(query: RawQuery, maxDays?: number): { type: string; from: number; to: number } {
  const type = single(query, 'type');
  const from = instant(query, 'from');
  const to = instant(query, 'to');
  if (to <= from) throw ingestErrors.badRequest('to must be after from');
  if (maxDays !== undefined && to - from > maxDays * 86_400_000) throw ingestErrors.badRequest(`range exceeds ${maxDays} days`);
  return { type, from: Math.ceil(from), to: Math.ceil(to) };
}

/** `GET /v1/uuids`: quantity, category and workout kinds only (others answer an empty list), at most 35 days. */
export async function uuidsAnswer(db: Db, userId: string, query: RawQuery): Promise<{ uuids: string[] }> {
  const { type, from, to } = range(query, INGEST.uuidsRangeDays);
  const kind = type === SPECIAL_IDENTIFIERS.workout ? 'workout' : kindOfIdentifier(type);
  if (kind !== 'quantity' && kind !== 'category' && kind !== 'workout') return { uuids: [] };
  return { uuids: await sampleUuids(db, userId, type, from, to) };
}

/** `GET /v1/digest`: one entry per UTC month with rows; an unknown type answers []. */
export async function digestAnswer(db: Db, userId: string, query: RawQuery) {
  const { type, from, to } = range(query);
  return monthDigests(db, userId, type, from, to);
}
