// Starts the real server (dist/src/main.js) as a child process on a free port
// against a test database, and talks HTTP to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

export const TEST_TOKEN = 'test-token-0123456789abcdef';
export const DEFAULT_USER = '00000000-0000-4000-8000-000000000001';

export interface TestServer {
  baseUrl: string;
  port: number;
  /** The sync receiver's base URL, when started with `receiver: true`. */
  ingestUrl: string;
  /** The MCP server's endpoint (`…/mcp`), when started with `mcp: true`. */
  mcpUrl: string;
  token: string;
  child: ChildProcess;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  get(path: string, init?: { headers?: Record<string, string>; token?: string | null }): Promise<Response>;
  getJson<T = any>(path: string, init?: { headers?: Record<string, string>; token?: string | null }): Promise<{ status: number; body: T; headers: Headers }>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServerOptions {
  databaseUrl: string;
  /** Wait for the sync receiver's listening line too (it needs an upload token in env). */
  receiver?: boolean;
  /** Wait for the MCP listener's banner line too. */
  mcp?: boolean;
  env?: Record<string, string | undefined>;
}

export const MAIN = join(process.cwd(), 'dist', 'src', 'main.js');

export async function startServer(options: ServerOptions): Promise<TestServer> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_')) env[key] = value;
  Object.assign(env, {
    DATABASE_URL: options.databaseUrl,
    SERVICE_API_TOKEN: TEST_TOKEN,
    SERVICE_USER_ID: DEFAULT_USER,
    SERVICE_PORT: '0',
    SERVICE_INGEST_PORT: '0',
    SERVICE_MCP_PORT: '0',
    WORKER_THREADS: '1',
    DB_POOL_SIZE: '4',
  });
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const [port, ingestPort, mcpUrl] = await new Promise<[number, number, string]>((resolve, reject) => {
    const onData = () => {
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      const ingest = /receiver listening on http:\/\/[^:]+:(\d+)/.exec(output);
      const mcp = /mcp: +(http:\/\/\S+)/.exec(output);
      if (match && (!options.receiver || ingest) && (!options.mcp || mcp)) resolve([Number(match[1]), ingest ? Number(ingest[1]) : 0, mcp ? mcp[1] : '']);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
    setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output}`)), 20_000).unref();
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const token = env.SERVICE_API_TOKEN;
  const get = (path: string, init: { headers?: Record<string, string>; token?: string | null } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    const useToken = init.token === undefined ? token : init.token;
    if (useToken !== null) headers.authorization = `Bearer ${useToken}`;
    return fetch(baseUrl + path, { headers });
  };
  return {
    baseUrl,
    port,
    ingestUrl: `http://127.0.0.1:${ingestPort}`,
    mcpUrl,
    token,
    child,
    output: () => output,
    get,
    async getJson(path, init) {
      const response = await get(path, init);
      const text = await response.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, body, headers: response.headers };
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/** Runs the server expecting it to refuse to start; returns exit code and output. */
export async function runServerExpectingExit(env: Record<string, string | undefined>, timeoutMs = 20_000): Promise<{ code: number | null; output: string }> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL') merged[key] = value;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  const child = spawn(process.execPath, [MAIN], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, output };
}
