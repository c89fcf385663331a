// GET / — where to find the documentation, and how to authenticate.
import { Type } from '@sinclair/typebox';
import { Index } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';

/** The index's answer; its example shortens the two long lines. */
const INDEX = {
  name: 'healthd',
  version: 'v1',
  docs: '/docs',
  openapi: '/openapi.json',
  health: '/healthz',
  app: '/app',
  auth: 'Bearer token on every /v1 route: Authorization: Bearer <SERVICE_API_TOKEN>',
  user: 'Optional user=<uuid> on any /v1 route selects the user; without it the default user (SERVICE_USER_ID) is served. Naming another user needs SERVICE_MULTI_USER=true.',
  description: 'Read-only HTTP/JSON API over the health data an iPhone synced to this server: daily metrics, activity rings, workouts with streams and routes, sleep, raw samples, mood, a summary and bulk export.',
};

export const indexRoute = defineRoute({
  operationId: 'getIndex',
  path: '/',
  auth: false,
  summary: 'Index',
  description: 'Points at the documentation, the OpenAPI document, the health check, the built-in viewer and the authentication scheme.',
  params: Type.Object({}),
  example: {},
  responses: [
    {
      status: 200,
      description: 'The index.',
      schema: Index,
      example: {
        ...INDEX,
        user: 'Optional user=<uuid> on any /v1 route selects the user; …',
        description: 'Read-only HTTP/JSON API over the health data an iPhone synced to this server: …',
      },
    },
  ],
  async handler() {
    return json(INDEX);
  },
});
