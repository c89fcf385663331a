// `npm start`: settings → database (DATABASE_URL, or the embedded one with
// demo data, src/start/embedded.ts) → zone check → services and issued tokens
// → the read API's listener → the MCP server's (src/start/mcp.ts) → the sync
// receiver's, when an upload token exists (src/start/receiver.ts) → the
// graceful stop (src/start/shutdown.ts) → the banner.
import { ConfigError, hostInUrl, loadConfig, type Config } from './config.js';
import { createHttpServer } from './http/server.js';
import { loadUws, type Uws } from './http/uws.js';
import { describeError, log } from './log.js';
import { allRoutes } from './routes/all.js';
import { closeServices, createServices, type ResolvedConfig } from './services.js';
import { prepareEmbedded, type EmbeddedServing } from './start/embedded.js';
import { stopOwnCluster } from './db/embedded.js';
import { startMcpListener, type RunningMcp } from './start/mcp.js';
import { installShutdown, STOP_SIGNALS } from './start/shutdown.js';
import { NOT_SHOWN, receiverBanner, receiverBeside, type ReceiverHandle } from './start/receiver.js';
import { checkStoredZone, servingZone, warnIfLoginWrites } from './start/stored-zone.js';
import { readAuthenticator, TokenStore } from './tokens/store.js';

function refuse(message: string): never {
  // A start a signal is stopping fails on its way out: the stop says so and exits.
  if (stoppingWhileStarting) throw new Error(message);
  process.stderr.write(`healthd: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config: Config;
  let uws: Uws;
  try {
    config = loadConfig();
    uws = loadUws(config.allowUwsFallback).uws;
  } catch (error) {
    refuse((error as Error).message);
  }

  // A stop asked before the shutdown below is in place: the embedded cluster this start began goes too.
  const stopWhileStarting = (signal: NodeJS.Signals) => {
    // A second signal while the stop runs changes nothing (unhandled, it would kill the process mid-stop).
    if (stoppingWhileStarting) return;
    stoppingWhileStarting = true;
    process.stderr.write(`healthd: stopped by ${signal} while starting\n`);
    // The sessions the stop ends (the demo's load, a migration) fail on their way out: expected, not a crash.
    process.on('uncaughtException', () => {});
    process.on('unhandledRejection', () => {});
    void (config.database.url ? Promise.resolve() : stopOwnCluster(config.database.dataDir)).finally(() => process.exit(1));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stopWhileStarting);

  let embedded: EmbeddedServing | null = null;
  try {
    if (!config.database.url) embedded = await prepareEmbedded(config);
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message);
    throw error;
  }
  const databaseUrl = embedded?.readUrl ?? config.database.url!;
  const resolved: ResolvedConfig = {
    ...config,
    timeZone: await servingZone(config, databaseUrl, config.dbConnectTimeoutMs),
    apiToken: embedded?.apiToken ?? config.apiToken!,
    defaultUserId: embedded?.defaultUserId ?? config.defaultUserId!,
    ingest: { ...config.ingest, uploadToken: embedded?.uploadToken ?? config.ingest.uploadToken },
  };
  const services = createServices(resolved, databaseUrl);
  const tokens = new TokenStore(services.pool);
  tokens.afterEveryRead(() => services.exports.cutRevoked());
  try {
    if (resolved.ingest.uploadToken === resolved.apiToken) throw new ConfigError('SERVICE_UPLOAD_TOKEN must differ from SERVICE_API_TOKEN');
    await checkStoredZone(services);
    await tokens.start().catch((error) => {
      throw new ConfigError(`DATABASE_URL: cannot read the issued tokens (${(error as { code?: string }).code ?? (error as Error).message}); run \`npm run migrate\``);
    });
  } catch (error) {
    tokens.stop();
    await closeServices(services, 1_000);
    await embedded?.database.close();
    refuse((error as Error).message);
  }

  const server = createHttpServer(uws, services, allRoutes(), { authenticate: readAuthenticator(tokens, resolved.apiToken) });
  let port: number;
  try {
    port = await server.listen(config.host, config.port);
  } catch (error) {
    tokens.stop();
    await closeServices(services, 1_000);
    await embedded?.database.close();
    refuse(`SERVICE_HOST/SERVICE_PORT: ${(error as Error).message}`);
  }

  let mcp: RunningMcp | null;
  let receiver: ReceiverHandle;
  try {
    mcp = await startMcpListener(services, allRoutes(), server);
    receiver = await receiverBeside(uws, resolved, { databaseUrl: embedded?.ingestUrl ?? config.ingest.databaseUrl!, tokens, throttle: server.throttle });
  } catch (error) {
    server.stopListening();
    tokens.stop();
    await closeServices(services, 1_000);
    await embedded?.database.close();
    refuse((error as Error).message);
  }
  for (const signal of STOP_SIGNALS) process.removeListener(signal, stopWhileStarting);
  installShutdown({
    server,
    services,
    receiver,
    mcp: mcp?.server,
    beforeStop: () => {
      tokens.stop();
      receiver.stopStarting();
    },
    finally: async () => {
      await embedded?.database.close();
    },
  });

  // Announced only once the signal handlers are in place: a supervisor that
  // stops the service right after it is ready gets the graceful path.
  const url = `http://${hostInUrl(config.host)}:${port}`;
  process.stdout.write(`healthd listening on ${url}\n`);
  process.stdout.write(`  viewer: ${url}/app\n`);
  if (mcp) process.stdout.write(`  mcp:    ${mcp.url}\n`);
  // A generated token is shown (the demo's newcomer has no other way to it); one the operator set is theirs already.
  if (embedded) {
    const generated = config.apiToken === null;
    process.stdout.write(`  token: ${generated ? resolved.apiToken : NOT_SHOWN('SERVICE_API_TOKEN')}\n  user:  ${resolved.defaultUserId}\n`);
    process.stdout.write(`  try:   curl -H "Authorization: Bearer ${generated ? resolved.apiToken : '$SERVICE_API_TOKEN'}" ${url}/v1/users\n`);
  }
  const running = receiver();
  if (running) process.stdout.write(receiverBanner(resolved, running.port, embedded !== null && config.ingest.uploadToken === null));
  await warnIfLoginWrites(services);
}

/** Set once a signal stops a start: what fails after it is the stop's doing, and the stop exits. */
let stoppingWhileStarting = false;

main().catch((error) => {
  if (stoppingWhileStarting) return;
  log.error('failed to start', describeError(error));
  process.exit(1);
});
