// GET /v1/users — every user with multi-user reads on; only the default user otherwise.
import { Type } from '@sinclair/typebox';
import { findUser, listAllUsers } from '../db/queries/users.js';
import { UsersResponse } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';

export const usersRoute = defineRoute({
  operationId: 'listUsers',
  path: '/v1/users',
  auth: true,
  summary: 'Users',
  description: 'Every user when SERVICE_MULTI_USER=true; only the default user otherwise (an empty list when the default user has no data yet).',
  params: Type.Object({}),
  responses: [{ status: 200, description: 'The users.', schema: UsersResponse }],
  async handler({ services }) {
    const { config, pool } = services;
    const users = config.multiUser
      ? await listAllUsers(pool)
      : await findUser(pool, config.defaultUserId).then((user) => (user ? [user] : []));
    return json({ users, default: config.defaultUserId, multiUser: config.multiUser, timeZone: config.timeZone });
  },
});
