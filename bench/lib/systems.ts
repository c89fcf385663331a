// The systems under test, started for one bench run: healthd (N processes on
// one port), the uWS hello-world (HTTP ceiling) and the Fastify baseline, all
// on the same database, token and user.
import { writeFile } from 'node:fs/promises';
import { freePort } from '../../src/db/embedded.js';
import type { BenchContext } from './routes.js';
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

/** A path the floor serves: its route template (which names its bare-pool statements), the context they need, and the body it answers. */
export interface FloorRoute {
  route: string;
  ctx: BenchContext;
  body: string;
}

/**
 * The floor of an HTTP server over the bare pool's SQL (bench/baselines/uws-floor.ts)
 * for `routes` (path with query → FloorRoute, handed over in the file `file`),
 * each turn's requests sharing one run of the statements (`fold`) or each running its own.
 */
export async function startFloor(settings: SystemSettings, routes: Record<string, FloorRoute>, file: string, fold: boolean): Promise<Baseline> {
  await writeFile(file, JSON.stringify(routes));
  const port = await freePort();
  const process = await startProcess(
    distPath('../baselines/uws-floor.js'),
    { DATABASE_URL: settings.databaseUrl, DB_POOL_SIZE: String(settings.poolSize), PORT: String(port), FLOOR_FOLD: fold ? '1' : '0', FLOOR_ROUTES: file },
    /floor listening/,
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
