// A 1 GB CSV export read at 1 MB/s, and the server's peak RSS (issues 4 and 6).
// Run after a build, from the repository root: node bench/export-1gb.mjs (~20 min).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { startEmbeddedDatabase, freePort } from '../dist/src/db/embedded.js';
import { applyMigrations } from '../dist/src/db/migrate.js';
const USER = '00000000-0000-4000-8000-000000000001', TOKEN = 'bench-token-0123456789abcdef';
const T0 = Date.UTC(2026, 9, 1), DAY = 86400000;
const log = (m) => console.log(new Date().toISOString().slice(11, 19), m);
const db = await startEmbeddedDatabase({ dir: 'bench/data/export-1gb', unsafeFast: true });
await applyMigrations(db.adminUrl);
const c = new pg.Client({ connectionString: db.adminUrl }); await c.connect();
await c.query(`INSERT INTO settings VALUES ('time_zone','UTC') ON CONFLICT DO NOTHING`);
await c.query(`INSERT INTO users VALUES ($1, 0) ON CONFLICT DO NOTHING`, [USER]);
await c.query(`INSERT INTO sample_types (identifier) VALUES ('HKQuantityTypeIdentifierHeartRate') ON CONFLICT DO NOTHING`);
await c.query(`INSERT INTO sources (name, device) VALUES ('Apple Watch', 'Watch7,3') ON CONFLICT DO NOTHING`);
const n = Number((await c.query('SELECT count(*) FROM samples')).rows[0].count);
if (n === 0) {
  log('inserting 8,035,200 heart-rate samples (3 per second for 31 days)');
  for (let d = 0; d < 31; d++) {
    await c.query(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
      SELECT $1, gen_random_uuid(), 1, $2::bigint + g * 333, $2::bigint + g * 333, 60 + (g % 97) * 0.731, 1 FROM generate_series(0, 259199) g`, [USER, T0 + d * DAY]);
  }
  await c.query('ANALYZE samples');
}
log(`samples: ${(await c.query('SELECT count(*) FROM samples')).rows[0].count}`);
await c.end();
const port = await freePort();
const server = spawn(process.execPath, ['dist/src/main.js'], { env: { ...process.env, DATABASE_URL: db.adminUrl, SERVICE_API_TOKEN: TOKEN, SERVICE_USER_ID: USER, SERVICE_PORT: String(port), SERVICE_MCP_PORT: 'off', WORKER_THREADS: '2' }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((r) => server.stdout.on('data', (d) => /listening/.test(d) && r()));
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
log(`server up, RSS ${rss().toFixed(0)} MB`);
const url = `http://127.0.0.1:${port}/v1/export?format=csv&dataset=samples&type=HKQuantityTypeIdentifierHeartRate&start=${T0}&end=${T0 + 31 * DAY}`;
const started = Date.now();
const curl = spawn('curl', ['-sS', '--limit-rate', '1M', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}\n', '-H', `Authorization: Bearer ${TOKEN}`, url], { stdio: ['ignore', 'pipe', 'inherit'] });
let peak = 0; const samples = [];
const timer = setInterval(() => { const m = rss(); peak = Math.max(peak, m); samples.push(m); if (samples.length % 12 === 0) log(`t=${((Date.now() - started) / 1000).toFixed(0)} s RSS ${m.toFixed(0)} MB (peak ${peak.toFixed(0)})`); }, 5000);
let out = ''; curl.stdout.on('data', (d) => (out += d));
await new Promise((r) => curl.on('exit', r));
clearInterval(timer);
log(`curl: ${out.trim()} (code bytes seconds); server RSS peak over 5 s samples ${peak.toFixed(1)} MB, VmHWM ${hwm().toFixed(1)} MB, samples ${samples.length}, min ${Math.min(...samples).toFixed(0)} max ${Math.max(...samples).toFixed(0)}`);
server.kill('SIGTERM'); await new Promise((r) => server.on('exit', r));
await db.stop();
