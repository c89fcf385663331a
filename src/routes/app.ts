// GET /app and its files — the built-in viewer (viewer/, bundled into
// dist/viewer by `npm run build`): static files read once at start and served
// under a strict Content-Security-Policy (scripts, styles and requests from
// this origin only; no inline code, no frames). They need no token: the
// viewer asks the person for it and sends it with each /v1 call.
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { errors } from '../errors.js';
import { defineRoute, type Route } from './route.js';

/** dist/src/routes/app.js → dist/viewer/ */
const VIEWER_DIR = new URL('../../viewer/', import.meta.url);

export const APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HEADERS = { 'Content-Security-Policy': APP_CSP, 'Cache-Control': 'no-cache', 'Referrer-Policy': 'no-referrer' };

interface ViewerFile {
  path: string;
  file: string;
  operationId: string;
  summary: string;
  contentType: string;
  /** The start of the file, for the document's example. */
  example: string;
}

const FILES: ViewerFile[] = [
  { path: '/app', file: 'index.html', operationId: 'getApp', summary: 'The viewer', contentType: 'text/html; charset=utf-8', example: '<!doctype html><html lang="en">…' },
  { path: '/app/app.js', file: 'app.js', operationId: 'getAppScript', summary: "The viewer's script", contentType: 'text/javascript; charset=utf-8', example: 'var On=class extends Error{…' },
  { path: '/app/app.css', file: 'app.css', operationId: 'getAppStyles', summary: "The viewer's stylesheet", contentType: 'text/css; charset=utf-8', example: '.uplot,.uplot *{…' },
  { path: '/app/icon.svg', file: 'icon.svg', operationId: 'getAppIcon', summary: "The viewer's icon", contentType: 'image/svg+xml', example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">…' },
];

function readBuilt(file: string): string | null {
  try {
    return readFileSync(new URL(file, VIEWER_DIR), 'utf8');
  } catch {
    return null;
  }
}

const DESCRIPTION =
  'The built-in viewer: a web page over this same read API (week and rings, trends, sleep, workouts with tracks, catalog and export). ' +
  'It asks for the bearer token once, keeps it in the tab\'s sessionStorage and calls only the public /v1 routes. ' +
  `Static file, no token needed; served with Content-Security-Policy: ${APP_CSP}.`;

export const appRoutes: Route[] = FILES.map((entry) => {
  const body = readBuilt(entry.file);
  return defineRoute({
    operationId: entry.operationId,
    path: entry.path,
    auth: false,
    crossOrigin: false,
    summary: entry.summary,
    description: DESCRIPTION,
    params: Type.Object({}),
    example: {},
    responses: [
      { status: 200, description: entry.summary + '.', contentType: entry.contentType.split(';')[0], schema: Type.String(), example: entry.example },
      { status: 404, description: 'The viewer was not built (npm run build builds it).' },
    ],
    async handler() {
      if (body === null) throw errors.notFound('the viewer is not built; run npm run build');
      return { kind: 'text', contentType: entry.contentType, body, headers: HEADERS };
    },
  });
});
