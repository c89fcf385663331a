// What every page gets: the API client for the picked user, the server's
// time zone, and the catalog (fetched once per user, shared by the pages that
// need type names, units and bounds).
import type { Api, Catalog, Users } from './api.js';

export interface Context {
  api: Api;
  users: Users;
  /** SERVICE_TIME_ZONE, from /v1/users. */
  zone: string;
  catalog(): Promise<Catalog['types']>;
  /** Parameters after `?` in the page's hash (#/trends?d=90). */
  params: URLSearchParams;
  /** Path segments of the hash after the page name (#/workouts/<uuid> → [uuid]). */
  rest: string[];
}

export type Page = (context: Context, main: HTMLElement) => Promise<void>;

/** Runs the loaders of a page's sections side by side; each fills its own section, success or failure. */
export async function settle(...loads: Promise<void>[]): Promise<void> {
  await Promise.allSettled(loads);
}
