// GET /docs — the human-readable reference, rendered from the OpenAPI document
// of the route table plus the rules that are not per route (src/docs/). Made
// once per process: the table and the configured limits do not change.
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from '../docs/openapi.js';
import { renderDocsPage } from '../docs/page.js';
import { docsSections } from '../docs/sections.js';
import { defineRoute, type Route } from './route.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** The docs route over `table` (a getter: the table holds this route too). */
export function docsRoute(table: () => readonly Route[]): Route {
  let page: string | null = null;
  return defineRoute({
    operationId: 'getDocs',
    path: '/docs',
    auth: false,
    crossOrigin: false,
    summary: 'Reference documentation',
    description: 'This reference as a self-contained HTML page.',
    params: Type.Object({}),
    example: {},
    responses: [{ status: 200, description: 'HTML reference.', contentType: 'text/html', schema: Type.String(), example: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>healthd API reference</title>…' }],
    async handler({ services }) {
      const { limits, corsOrigins } = services.config;
      // The examples read the base URL from $H, as the page's Getting started says.
      page ??= renderDocsPage(buildOpenApi(table(), limits, { url: '$H' }), docsSections({ limits, corsOrigins }));
      return { kind: 'text', contentType: 'text/html; charset=utf-8', body: page, headers: { 'Content-Security-Policy': CSP } };
    },
  });
}
