// The graceful stop on SIGTERM/SIGINT: the listening sockets close at once
// (new connections are refused), running JSON requests finish, exports get
// their grace (SHUTDOWN_GRACE_MS) and are then cut off, the pools close and
// the process exits 0 — bounded throughout, so an unattended process always
// exits even when a request hangs on a connection that died under it.
import { longestRequestMs } from '../db/pool.js';
import type { HttpServer } from '../http/server.js';
import type { McpHttpServer } from '../mcp/http.js';
import { log } from '../log.js';
import { closeServices, type Services } from '../services.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CLOSE_WAIT_MS = 5_000;

export interface Stoppable {
  server: HttpServer;
  services: Services;
  /** The sync receiver, when running: stops listening with the read API, its batches finish, then its pool closes. */
  receiver?: () => { server: { stopListening(): void; readonly inFlight: number }; close(): Promise<void> } | null;
  /** The MCP listener, when running: stops listening with the read API; its requests are waited for alike. */
  mcp?: McpHttpServer | null;
  /** Runs first (no more token re-reads, no receiver started from then on). */
  beforeStop?: () => void;
  /** Runs last (the embedded cluster's stop). */
  finally?: () => Promise<void>;
}

export function installShutdown(parts: Stoppable): void {
  const { server, services } = parts;
  const { limits, dbConnectTimeoutMs } = services.config;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    parts.beforeStop?.();
    log.info('shutting down', { signal });
    server.stopListening();
    const receiver = parts.receiver?.() ?? null;
    receiver?.server.stopListening();
    parts.mcp?.stopListening();
    await services.exports.drain(limits.shutdownGraceMs);
    // By then the rest have finished unless something hangs.
    const lastCall = Date.now() + longestRequestMs(dbConnectTimeoutMs, limits.queryTimeoutMs);
    const running = () => server.inFlight + (receiver?.server.inFlight ?? 0) + (parts.mcp?.inFlight ?? 0);
    while (running() > 0 && Date.now() < lastCall) await sleep(20);
    if (running() > 0) log.warn('exiting with requests still running', { requests: running() });
    await Promise.race([receiver?.close(), sleep(CLOSE_WAIT_MS)]);
    server.refuseRequests();
    await closeServices(services, CLOSE_WAIT_MS);
    await parts.finally?.();
    process.exit(0);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => void stop(signal));
}

/** What stops the server: SIGHUP too, as the terminal or ssh session it runs in went away (PostgreSQL would only reload its settings). */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
