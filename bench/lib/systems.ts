// The systems under test, started for one bench run: healthd (N processes on
// one port), the uWS hello-world (HTTP ceiling) and the Fastify baseline, all
// on the same database, token and user.
import { writeFile } from 'node:fs/promises';
import { freePort } from '../../src/db/embedded.js';
import { routeHeaders, type BenchContext, type BenchRoute } from './routes.js';
import { distPath, healthdMain, RssSampler, startProcess, type ServerProcess } from './processes.js';

export const BENCH_TOKEN = 'bench-token-0123456789abcdef';

export interface SystemSettings {
  databaseUrl: string;
  userId: string;
  timeZone: string;
  poolSize: number;
  workerThreads: number;
}

export interface Healthd {
  baseUrl: string;
  processes: ServerProcess[];
  rss: RssSampler;
  stop(): Promise<void>;
}

/** `count` healthd processes sharing one port (SO_REUSEPORT: the kernel spreads connections). */
export async function startHealthd(settings: SystemSettings, count: number, nodeArgs: string[] = []): Promise<Healthd> {
  const port = await freePort();
  const env = {
    DATABASE_URL: settings.databaseUrl,
    SERVICE_API_TOKEN: BENCH_TOKEN,
    SERVICE_USER_ID: settings.userId,
    SERVICE_PORT: String(port),
    SERVICE_MCP_PORT: 'off',
    // Several processes on one port for the scaling rows.
    SERVICE_SHARE_PORT: 'true',
    SERVICE_MULTI_USER: 'true',
    SERVICE_TIME_ZONE: settings.timeZone,
    TRUST_PROXY_HEADERS: 'true',
    WORKER_THREADS: String(settings.workerThreads),
    DB_POOL_SIZE: String(settings.poolSize),
  };
  const processes: ServerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) processes.push(await startProcess(healthdMain(), env, /healthd listening on/, nodeArgs));
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop()));
    throw error;
  }
  const rss = new RssSampler(processes.map((p) => p.pid));
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    processes,
    rss,
    async stop() {
      rss.stop();
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
}

export interface Baseline {
  baseUrl: string;
  process: ServerProcess;
}

export async function startHello(): Promise<Baseline> {
  const port = await freePort();
  const process = await startProcess(distPath('../baselines/uws-hello.js'), { PORT: String(port) }, /hello listening/);
  return { baseUrl: `http://127.0.0.1:${port}`, process };
}

/**
 * A path the floor serves: its route template (which names its bare-pool
 * statements), the context they need, and healthd's answer to it: the
 * headers healthd writes itself (name, value; uWS adds Date, its mark and
 * Content-Length to both) and the body.
 */
export interface FloorRoute {
  route: string;
  ctx: BenchContext;
  headers: Array<[string, string]>;
  body: string;
}

/** The header lines a server wrote itself, in fetch's order (those uWS adds to every answer left out: the floor's get them too). */
const UWS_ADDS = new Set(['date', 'uwebsockets', 'content-length']);

/** What the floor answers to `route`'s path: healthd's answer there (a healthd at `baseUrl`), its own header lines and body. */
export async function floorRoute(baseUrl: string, route: BenchRoute, ctx: BenchContext): Promise<FloorRoute> {
  const response = await fetch(baseUrl + route.path, { headers: routeHeaders(route) });
  if (response.status !== route.expectStatus) throw new Error(`${route.name}: healthd answered ${response.status}`);
  const headers = [...response.headers].filter(([name]) => !UWS_ADDS.has(name));
  return { route: route.route, ctx, headers, body: await response.text() };
}

/**
 * The floor of an HTTP server over the bare pool's SQL (bench/baselines/uws-floor.ts)
 * for `routes` (path with query → FloorRoute, handed over in the file `file`),
 * each turn's requests sharing one run of the statements (`fold`) or each running its own.
 */
export async function startFloor(settings: SystemSettings, routes: Record<string, FloorRoute>, file: string, fold: boolean, nodeArgs: string[] = []): Promise<Baseline> {
  await writeFile(file, JSON.stringify(routes));
  const port = await freePort();
  const process = await startProcess(
    distPath('../baselines/uws-floor.js'),
    { DATABASE_URL: settings.databaseUrl, DB_POOL_SIZE: String(settings.poolSize), PORT: String(port), FLOOR_FOLD: fold ? '1' : '0', FLOOR_ROUTES: file },
    /floor listening/,
    nodeArgs,
  );
  return { baseUrl: `http://127.0.0.1:${port}`, process };
}

export async function startFastify(settings: SystemSettings): Promise<Baseline> {
  const port = await freePort();
  const process = await startProcess(
    distPath('../baselines/fastify.js'),
    {
      DATABASE_URL: settings.databaseUrl,
      SERVICE_API_TOKEN: BENCH_TOKEN,
      SERVICE_USER_ID: settings.userId,
      SERVICE_TIME_ZONE: settings.timeZone,
      PORT: String(port),
      DB_POOL_SIZE: String(settings.poolSize),
    },
    /fastify listening/,
  );
  return { baseUrl: `http://127.0.0.1:${port}`, process };
}
