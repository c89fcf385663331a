// GET /openapi.json — the OpenAPI 3.1 document of the route table.
// servers[0].url is the base URL the request arrived on; forwarded host/proto
// count only behind a trusted proxy.
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from '../docs/openapi.js';
import type { ResolvedConfig } from '../services.js';
import { defineRoute, type RequestInfo, type Route } from './route.js';

const HOST = /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const CONTENT_TYPE = 'application/openapi+json';

export function baseUrl(request: RequestInfo, config: ResolvedConfig): string {
  if (config.trustProxyHeaders && HOST.test(request.forwardedHost.split(',')[0].trim())) {
    const proto = request.forwardedProto.split(',')[0].trim().toLowerCase();
    return `${proto === 'http' ? 'http' : 'https'}://${request.forwardedHost.split(',')[0].trim()}`;
  }
  if (HOST.test(request.host)) return `http://${request.host}`;
  return `http://${config.host}:${config.port}`;
}

/** The OpenAPI route over `table` (a getter: the table holds this route too). */
export function openApiRoute(table: () => readonly Route[]): Route {
  // The last base URL's document, serialized: clients mostly arrive on one.
  let cached: { url: string; body: string } | null = null;
  return defineRoute({
    operationId: 'getOpenAPI',
    path: '/openapi.json',
    auth: false,
    readsHost: true,
    summary: 'OpenAPI document',
    description:
      'This API as an OpenAPI 3.1 document. servers[0].url is the base URL the request arrived on; behind a proxy the host comes from X-Forwarded-Host only when TRUST_PROXY_HEADERS=true.',
    params: Type.Object({}),
    example: {},
    responses: [
      {
        status: 200,
        description: 'The OpenAPI 3.1 document.',
        contentType: CONTENT_TYPE,
        schema: Type.Object({}, { additionalProperties: true }),
        example: { openapi: '3.1.0', info: { title: 'healthd', version: '1.0.0' }, servers: [{ url: 'http://127.0.0.1:8081' }], paths: {} },
      },
    ],
    async handler({ request, services }) {
      const url = baseUrl(request, services.config);
      if (cached?.url !== url) cached = { url, body: JSON.stringify(buildOpenApi(table(), services.config.limits, { url })) };
      return { kind: 'text', contentType: CONTENT_TYPE, body: cached.body };
    },
  });
}
