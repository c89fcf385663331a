// GET /v1/users — every user with multi-user reads on; only the default user otherwise.
import { Type } from '@sinclair/typebox';
import { findUser, listAllUsers } from '../db/queries/users.js';
import { UsersResponse } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

export const usersRoute = defineRoute({
  operationId: 'listUsers',
  path: '/v1/users',
  auth: true,
  summary: 'Users',
  description:
    'Every user when SERVICE_MULTI_USER=true; only the default user otherwise (an empty list when the default user has no data yet). ' +
    'A per-user read token lists only its own user, and default names it.',
  params: Type.Object({}),
  example: {},
  responses: [
    {
      status: 200,
      description: 'The users.',
      schema: UsersResponse,
      example: {
        users: [
          { userID: EXAMPLE.user, name: 'Ada Lovelace', email: 'ada@example.org', createdAt: 1_766_966_400_000, lastSync: 1_768_140_000_000, batches: 214, uploadedSamples: 80_530 },
        ],
        default: EXAMPLE.user,
        multiUser: false,
        timeZone: 'Europe/Berlin',
      },
    },
  ],
  async handler({ services, reader }) {
    const { config, pool } = services;
    const only = reader.boundUser ?? (config.multiUser ? null : config.defaultUserId);
    const users = only === null ? await listAllUsers(pool) : await findUser(pool, only).then((user) => (user ? [user] : []));
    return json({ users, default: only ?? config.defaultUserId, multiUser: reader.boundUser === null && config.multiUser, timeZone: config.timeZone });
  },
});
