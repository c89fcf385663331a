// `npm run tokens -- …`: issue, list and revoke per-device upload tokens and
// per-user read tokens. A token is printed once, when issued, and stored only
// as its hash; running servers pick up an issue or a revocation within
// seconds (src/tokens/store.ts), and the command returns once they have
// (TOKEN_TAKE_UP_MS; --no-wait returns at once). Writes into DATABASE_URL, or the embedded
// database under ./data — the running `npm start`'s own cluster when it is up.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ConfigError, loadDatabaseSettings, type DatabaseSettings } from '../config.js';
import { canonicalUuid } from '../core/uuid.js';
import { embeddedUrl, runningClusterPort } from '../db/embedded.js';
import { applyMigrations, ownerLoginHint } from '../db/migrate.js';
import { insertToken, listTokens, revokeToken, type TokenKind } from '../db/tokens.js';
import { openWritableDatabase } from '../db/writable-database.js';
import { TOKEN_TAKE_UP_MS } from '../limits.js';
import { newToken, tokenHash } from './store.js';

const TAKE_UP_S = TOKEN_TAKE_UP_MS / 1000;

const USAGE = `usage:
  npm run tokens -- issue --user <uuid> --name "Ada's iPhone"          an upload token for one phone (writes only as that user)
  npm run tokens -- issue --read --user <uuid> --name "Ada's reader"   a read token for that user's data only
  npm run tokens -- list                                               every token: id, kind, user, name, created, revoked
  npm run tokens -- revoke <id>                                        stops a token, no restart
issue and revoke return once running servers have taken the change up (${TAKE_UP_S} s);
with --no-wait they return at once and servers take it up within ${TAKE_UP_S} s (for scripts issuing many).`;

class UsageError extends Error {}

/** The embedded cluster a running `npm start` owns, when it answers; else none. */
async function runningEmbedded(settings: DatabaseSettings): Promise<string | null> {
  const file = join(settings.dataDir, 'pg-superuser-password');
  const port = runningClusterPort(settings.dataDir);
  if (port === null || !existsSync(file)) return null;
  const url = embeddedUrl(settings.dataDir, port, 'postgres', readFileSync(file, 'utf8').trim());
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function withDatabase<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const settings = loadDatabaseSettings();
  const running = settings.url ? null : await runningEmbedded(settings);
  const handle = running ? { url: running, close: async () => {} } : await openWritableDatabase(settings);
  try {
    if (!settings.url) await applyMigrations(handle.url);
    const client = new pg.Client({ connectionString: handle.url });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  } finally {
    await handle.close();
  }
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(0, 19) + 'Z');

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          user: { type: 'string' },
          name: { type: 'string' },
          read: { type: 'boolean', default: false },
          'no-wait': { type: 'boolean', default: false },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  })();
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const wait = !values['no-wait'];
  /** Until running servers have re-read the tokens, unless --no-wait. */
  const takenUp = () => (wait ? new Promise((resolve) => setTimeout(resolve, TOKEN_TAKE_UP_MS)) : Promise.resolve());
  switch (command) {
    case 'issue': {
      if (rest.length > 0) throw new UsageError(`issue takes no positional arguments, got ${JSON.stringify(rest[0])}`);
      const userId = canonicalUuid(values.user ?? '');
      if (userId === null) throw new UsageError('--user must name the uuid of the user the token is bound to');
      const name = (values.name ?? '').trim();
      if (name === '') throw new UsageError('--name must say whose token it is, e.g. --name "Ada\'s iPhone"');
      const kind: TokenKind = values.read ? 'read' : 'upload';
      const token = newToken(kind);
      const id = await withDatabase((client) => insertToken(client, { kind, userId, name, hash: tokenHash(token) }, Date.now()));
      await takenUp();
      process.stderr.write(
        `issued ${kind} token ${id} (${name}) for user ${userId}${wait ? '' : `; running servers take it up within ${TAKE_UP_S} s`}; it is shown only now, store it where it is used:\n`,
      );
      process.stdout.write(token + '\n');
      return;
    }
    case 'list': {
      const tokens = await withDatabase((client) => listTokens(client));
      if (tokens.length === 0) {
        process.stdout.write('no tokens issued\n');
        return;
      }
      const rows = [['id', 'kind', 'user', 'name', 'created', 'revoked'], ...tokens.map((t) => [String(t.id), t.kind, t.userId, t.name, iso(t.createdAtMs), iso(t.revokedAtMs)])];
      const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
      for (const row of rows) process.stdout.write(row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd() + '\n');
      return;
    }
    case 'revoke': {
      if (rest.length !== 1 || !/^[1-9][0-9]*$/.test(rest[0])) throw new UsageError('revoke takes one token id (see `npm run tokens -- list`)');
      const id = Number(rest[0]);
      // Ids are PostgreSQL integers: a larger number names no token (and would be a database error).
      if (id > 2_147_483_647) throw new UsageError(`no active token ${rest[0]}`);
      const revoked = await withDatabase((client) => revokeToken(client, id, Date.now()));
      if (!revoked) throw new UsageError(`no active token ${id}`);
      await takenUp();
      process.stdout.write(`revoked token ${id}; running servers refuse it ${wait ? 'now' : `within ${TAKE_UP_S} s`}\n`);
      return;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

// A reader that stops early (`npm run tokens -- list | head`) closes the pipe: nothing more to say, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`healthd tokens: ${(error as Error).message}${ownerLoginHint(error)}\n${error instanceof UsageError ? USAGE + '\n' : ''}`);
  process.exit(error instanceof UsageError || error instanceof ConfigError ? 2 : 1);
}
