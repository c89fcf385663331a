// Bundles the viewer (viewer/src → dist/viewer): one minified script, one
// stylesheet (uPlot's CSS folded in), the page and its icon — flat, because
// the server serves /app and /app/<file> from that folder. Run by `npm run
// build`, so `npm start` and `npm test` always serve a fresh viewer.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'viewer');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [
    { in: join(here, 'src', 'main.ts'), out: 'app' },
    { in: join(here, 'src', 'styles.css'), out: 'app' },
  ],
  outdir: out,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'icon.svg']) copyFileSync(join(here, file), join(out, file));
