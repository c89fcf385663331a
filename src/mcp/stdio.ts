// `npm run mcp --silent`: the MCP server over stdio, for clients that launch
// a local process. Same settings and database as `npm start`: DATABASE_URL,
// else the embedded cluster — the one a running `npm start` holds, or started
// here (and stopped when the client closes stdin, once the requests already
// read are answered). Nothing but protocol goes to stdout: logs are on
// stderr, and so is anything else that would print. It reads as the static
// token does: whoever can start it holds the settings.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig, type Config } from '../config.js';
import { longestRequestMs } from '../db/pool.js';
import { describeError, log } from '../log.js';
import type { Reader } from '../routes/route.js';
import { allRoutes } from '../routes/all.js';
import { closeServices, createServices, type ResolvedConfig } from '../services.js';
import { attachRunningEmbedded, prepareEmbedded, type EmbeddedServing } from '../start/embedded.js';
import { checkStoredZone, servingZone } from '../start/stored-zone.js';
import { screenToolCalls } from './call-screen.js';
import { createMcpServer, McpCore } from './server.js';

console.log = console.error;
console.info = console.error;
console.debug = console.error;

const STATIC_READER: Reader = Object.freeze({ boundUser: null });

/**
 * Keeps the requests read and not yet answered, so closing stdin does not cut
 * off an answer on its way. A request the client cancelled gets no answer
 * (the SDK drops it): it is waited for no longer.
 */
class AnsweringStdioTransport extends StdioServerTransport {
  private readonly pending = new Set<string | number>();
  private idle: (() => void) | null = null;

  /** After connect: notes each request as the server receives it, and each cancellation. */
  countRequests(): void {
    const deliver = this.onmessage;
    this.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message) this.pending.add(message.id);
      else if ('method' in message && message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        // As the SDK reads it: a cancellation naming no request (0 and '' included) cancels nothing, and that call is answered.
        if ((typeof id === 'string' || typeof id === 'number') && id) this.settle(id);
      }
      deliver?.(message);
    };
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    await super.send(message);
    if (('result' in message || 'error' in message) && message.id !== undefined) this.settle(message.id);
  }

  private settle(id: string | number): void {
    if (this.pending.delete(id) && this.pending.size === 0) this.idle?.();
  }

  /** Resolves once every request read so far is answered, or after `limitMs`. */
  answered(limitMs: number): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.idle = resolve;
      setTimeout(resolve, limitMs).unref();
    });
  }
}

function refuse(message: string): never {
  process.stderr.write(`healthd mcp: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    refuse((error as Error).message);
  }

  let started: EmbeddedServing | null = null;
  const embedded = config.database.url ? null : ((await attachRunningEmbedded(config)) ?? (started = await prepareEmbedded(config)));
  const databaseUrl = embedded?.readUrl ?? config.database.url!;
  const resolved: ResolvedConfig = {
    ...config,
    timeZone: await servingZone(config, databaseUrl, config.dbConnectTimeoutMs),
    apiToken: embedded?.apiToken ?? config.apiToken!,
    defaultUserId: embedded?.defaultUserId ?? config.defaultUserId!,
  };
  const services = createServices(resolved, databaseUrl);
  const stopDatabase = async () => {
    await closeServices(services, 5_000);
    await started?.database.close();
  };
  try {
    await checkStoredZone(services);
  } catch (error) {
    await stopDatabase();
    refuse((error as Error).message);
  }

  const server = createMcpServer(new McpCore(services, allRoutes()), () => STATIC_READER);
  const transport = new AnsweringStdioTransport();
  let closing = false;
  const close = async (why: string) => {
    if (closing) return;
    closing = true;
    log.info('mcp (stdio) stopping', { why });
    await transport.answered(longestRequestMs(resolved.dbConnectTimeoutMs, resolved.limits.queryTimeoutMs));
    await server.close();
    await stopDatabase();
    process.exit(0);
  };
  process.stdin.on('end', () => void close('stdin closed'));
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGHUP', () => void close('SIGHUP'));
  await server.connect(transport);
  // Screened inside the count: a screened call's answer is counted as answered.
  screenToolCalls(transport);
  transport.countRequests();
  log.info('mcp serving on stdio', { timeZone: resolved.timeZone, multiUser: resolved.multiUser, embedded: embedded !== null });
}

main().catch((error) => {
  log.error('mcp (stdio) failed to start', describeError(error));
  process.exit(1);
});
