// GET /openapi.json — the OpenAPI 3.1 document. servers[0].url is the base URL
// the request arrived on; forwarded host/proto count only behind a trusted proxy.
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from '../schemas/openapi.js';
import type { ResolvedConfig } from '../services.js';
import { allRoutes } from './all.js';
import { defineRoute, type RequestInfo } from './route.js';

const HOST = /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export function baseUrl(request: RequestInfo, config: ResolvedConfig): string {
  if (config.trustProxyHeaders && HOST.test(request.forwardedHost.split(',')[0].trim())) {
    const proto = request.forwardedProto.split(',')[0].trim().toLowerCase();
    return `${proto === 'http' ? 'http' : 'https'}://${request.forwardedHost.split(',')[0].trim()}`;
  }
  if (HOST.test(request.host)) return `http://${request.host}`;
  return `http://${config.host}:${config.port}`;
}

let cached: { url: string; body: string } | null = null;

export function openApiDocument(url: string): string {
  if (cached?.url !== url) cached = { url, body: JSON.stringify(buildOpenApi(allRoutes(), { url })) };
  return cached.body;
}

export const openApiRoute = defineRoute({
  operationId: 'getOpenAPI',
  path: '/openapi.json',
  auth: false,
  summary: 'OpenAPI document',
  description: 'This API as an OpenAPI 3.1 document. servers[0].url is the base URL the request arrived on; behind a proxy the host comes from X-Forwarded-Host only when TRUST_PROXY_HEADERS=true.',
  params: Type.Object({}),
  responses: [{ status: 200, description: 'The OpenAPI 3.1 document.', contentType: 'application/openapi+json', schema: Type.Object({}, { additionalProperties: true }) }],
  async handler({ request, services }) {
    return { kind: 'text', contentType: 'application/openapi+json', body: openApiDocument(baseUrl(request, services.config)) };
  },
});
