// The systems under test, started for one bench run: healthd (N processes on
// one port), the uWS hello-world (HTTP ceiling) and the Fastify baseline, all
// on the same database, token and user.
import { freePort } from '../../src/db/embedded.js';
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
