// `node dist/src/demo/cli.js --users N --days D --seed S [--zone Europe/Berlin] [--end 2026-11-01] [--heavy]`
// Fills the database named by DATABASE_URL with deterministic demo data:
// applies the migrations, generates, prints the user ids and the COPY rate.
import { parseArgs } from 'node:util';
import { loadDatabaseUrl, loadTimeZone } from '../config.js';
import { applyMigrations, ownerLoginHint } from '../db/migrate.js';
import { generateDemo } from './generate.js';

const USAGE = 'usage: node dist/src/demo/cli.js --users N --days D --seed S [--zone Europe/Berlin] [--end YYYY-MM-DD] [--heavy]';

function integerOption(values: Record<string, unknown>, name: string): number {
  const raw = values[name];
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) throw new Error(`--${name} must be an integer\n${USAGE}`);
  return Number(raw);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      users: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      zone: { type: 'string' },
      end: { type: 'string' },
      heavy: { type: 'boolean', default: false },
    },
  });
  const connectionString = loadDatabaseUrl();
  const options = {
    users: integerOption(values, 'users'),
    days: integerOption(values, 'days'),
    seed: integerOption(values, 'seed'),
    timeZone: values.zone ?? loadTimeZone(),
    endDay: values.end,
    scale: values.heavy ? ('heavy' as const) : ('normal' as const),
    log: (line: string) => console.error(line),
  };
  await applyMigrations(connectionString, options.log);
  const result = await generateDemo(connectionString, options);
  for (const userId of result.userIds) console.log(userId);
  const rate = Math.round(result.samples / result.seconds);
  console.error(`demo: ${result.samples} samples in ${result.seconds.toFixed(1)} s (${rate} samples/s)`);
}

main().catch((error: unknown) => {
  console.error(`healthd demo: ${error instanceof Error ? error.message : String(error)}${ownerLoginHint(error)}`);
  process.exitCode = 1;
});
