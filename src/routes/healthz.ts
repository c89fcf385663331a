// GET /healthz — is the service up and does the database answer? The database
// status is cached for HEALTH_CACHE_MS (src/db/probe.ts).
import { Type } from '@sinclair/typebox';
import { spokenDuration } from '../limits.js';
import { Health } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';

const health = (db: boolean) => json({ ok: db, db }, db ? 200 : 503);

export const healthRoute = defineRoute({
  operationId: 'getHealth',
  path: '/healthz',
  auth: false,
  noStore: true,
  summary: 'Health',
  description: (limits) =>
    `200 when the service and the database are up; 503 with the same shape when the database did not answer. The database status is cached for ${spokenDuration(limits.healthCacheMs)}.`,
  params: Type.Object({}),
  example: {},
  responses: [
    { status: 200, description: 'Service and database up.', schema: Health, example: { ok: true, db: true } },
    { status: 503, description: 'The database is not answering.', schema: Health, example: { ok: false, db: false } },
  ],
  async handler({ services }) {
    return health(await services.probe.databaseUp());
  },
  immediate: ({ probe }) => {
    const db = probe.cached();
    return db === undefined ? undefined : health(db);
  },
});
