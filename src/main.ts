// Starts healthd: settings → database (DATABASE_URL, or the embedded one with
// demo data) → zone check → pools → HTTP front. On SIGTERM/SIGINT it stops
// accepting, lets requests finish and exports run for their grace, then exits 0.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { CatalogCache } from './catalog-cache.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DEFAULT_DATA_DIR, writableDatabase, type DatabaseHandle } from './db/local.js';
import { applyMigrations, READ_ROLE } from './db/index.js';
import { CLIENT_TIMEOUT_MARGIN_MS, createReadOnlyPool } from './db/pool.js';
import { storedTimeZone } from './db/queries/users.js';
import { HealthProbe } from './health.js';
import { createHttpServer } from './http/server.js';
import { loadUws } from './http/uws.js';
import { describeError, log } from './log.js';
import { allRoutes } from './routes/all.js';
import { computeCatalog } from './routes/catalog.js';
import type { ResolvedConfig, Services } from './services.js';
import { createWorkerPool } from './worker-pool.js';

const DEMO = { users: 3, days: 90, seed: 1 };
const API_DB_ROLE = 'healthd_api';

function refuse(message: string): never {
  process.stderr.write(`healthd: ${message}\n`);
  process.exit(1);
}

async function secretFile(name: string): Promise<string> {
  const file = join(DEFAULT_DATA_DIR, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(24).toString('base64url');
  await writeFile(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** The embedded cluster: migrated, demo data once, and a login role that can only read. */
async function prepareEmbedded(config: Config, database: DatabaseHandle): Promise<{ readUrl: string; token: string; userId: string }> {
  await applyMigrations(database.url, (line) => log.info(line));
  // Demo code is only needed here, so production starts never load it.
  const { demoUserId, generateDemo } = await import('./demo/generate.js');
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM users');
    if (Number(rows[0].n) === 0) {
      log.info('loading demo data (once, into the empty embedded database)', DEMO);
      const result = await generateDemo(database.url, { ...DEMO, timeZone: config.timeZone });
      log.info('demo data loaded', { samples: result.samples, seconds: result.seconds });
    }
    const password = await secretFile('api-db-password');
    const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [API_DB_ROLE]);
    const verb = exists.rowCount ? 'ALTER' : 'CREATE';
    await admin.query(`${verb} ROLE ${API_DB_ROLE} LOGIN PASSWORD '${password.replace(/'/g, "''")}'`);
    await admin.query(`GRANT ${READ_ROLE} TO ${API_DB_ROLE}`);
    const url = new URL(database.url);
    url.username = API_DB_ROLE;
    url.password = password;
    return {
      readUrl: url.toString(),
      token: config.apiToken ?? (await secretFile('api-token')),
      userId: config.defaultUserId ?? demoUserId(DEMO.seed, 0),
    };
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message);
    throw error;
  }
  let uws;
  try {
    uws = loadUws(config.allowUwsFallback).uws;
  } catch (error) {
    refuse((error as Error).message);
  }

  let embedded: DatabaseHandle | null = null;
  let readUrl = config.databaseUrl!;
  let token = config.apiToken;
  let userId = config.defaultUserId;
  if (!config.databaseUrl) {
    embedded = await writableDatabase((line) => log.info(line));
    ({ readUrl, token, userId } = await prepareEmbedded(config, embedded));
  }
  const resolved: ResolvedConfig = { ...config, apiToken: token!, defaultUserId: userId! };

  const pool = createReadOnlyPool({
    connectionString: readUrl,
    max: config.limits.dbPoolSize,
    statementTimeoutMs: config.limits.queryTimeoutMs,
    connectTimeoutMs: config.limits.dbConnectTimeoutMs,
    applicationName: 'healthd',
  });
  let zone: string | null;
  try {
    zone = await storedTimeZone(pool);
  } catch (error) {
    const code = (error as { code?: string }).code;
    await pool.end();
    await embedded?.close();
    if (code === '42P01') refuse('DATABASE_URL has no healthd schema; run `npm run migrate` first');
    refuse(`DATABASE_URL: cannot read the database (${code ?? (error as Error).message})`);
  }
  if (zone !== null && zone !== config.timeZone) {
    await pool.end();
    await embedded?.close();
    refuse(`SERVICE_TIME_ZONE is ${config.timeZone} but the stored data was cut in ${zone}; set SERVICE_TIME_ZONE=${zone}`);
  }

  const exportPool = createReadOnlyPool({
    connectionString: readUrl,
    max: 4,
    statementTimeoutMs: 0,
    connectTimeoutMs: config.limits.dbConnectTimeoutMs,
    applicationName: 'healthd-export',
  });
  const shutdown = new AbortController();
  const services: Services = {
    config: resolved,
    pool,
    exportPool,
    workers: createWorkerPool(config.workerThreads),
    health: new HealthProbe(pool, config.limits.healthCacheMs),
    catalog: new CatalogCache({
      freshMs: config.limits.catalogFreshMs,
      staleMs: config.limits.catalogStaleMs,
      maxUsers: 10_000,
      // Kept serialized: a warm hit then costs no JSON.stringify (45 % of that route's profile).
      compute: (user) => computeCatalog(pool, user, config.timeZone).then((types) => JSON.stringify({ types })),
      onRefreshError: (error) => log.error('catalog refresh failed', describeError(error)),
    }),
    shutdownSignal: shutdown.signal,
  };
  const server = createHttpServer(uws, services, allRoutes());
  const port = await server.listen(config.host, config.port);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    server.stopListening();
    shutdown.abort();
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const graceEnds = Date.now() + config.limits.shutdownGraceMs;
    while (server.activeStreams > 0 && Date.now() < graceEnds) await sleep(50);
    server.abortStreams();
    // Every request is bounded by the connect and query timeouts, so by then
    // the rest have finished unless something hangs (a connection that died
    // under it): that must not keep an unattended process from exiting.
    const lastCall = Date.now() + config.limits.dbConnectTimeoutMs + config.limits.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS;
    while (server.inFlight > 0 && Date.now() < lastCall) await sleep(20);
    if (server.inFlight > 0) log.warn('exiting with requests still running', { requests: server.inFlight });
    // pool.end() waits for checked-out clients; a stuck request never returns its own.
    await Promise.race([Promise.allSettled([pool.end(), exportPool.end(), services.workers.destroy()]), sleep(5_000)]);
    await embedded?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Announced only once the signal handlers are in place: a supervisor that
  // stops the service right after it is ready gets the graceful path.
  process.stdout.write(`healthd listening on http://${config.host}:${port}\n`);
  if (embedded) {
    process.stdout.write(`  token: ${resolved.apiToken}\n  user:  ${resolved.defaultUserId}\n`);
    process.stdout.write(`  try:   curl -H 'Authorization: Bearer ${resolved.apiToken}' http://${config.host}:${port}/v1/users\n`);
  }
}

main().catch((error) => {
  log.error('failed to start', describeError(error));
  process.exit(1);
});
