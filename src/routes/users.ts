// GET /v1/users — every user with multi-user reads on; only the default user otherwise.
import { Type } from '@sinclair/typebox';
import { findUser, listAllUsers } from '../db/queries/users.js';
import { perResult } from '../db/fold.js';
import { UsersResponse, type UserT } from '../schemas/resources.js';
import { defineRoute, json, jsonText } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

/** The users' list as JSON, once a folded result (perResult). */
const usersJson = perResult((users: UserT[]) => JSON.stringify(users));

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
    if (only === null) {
      // Every user, for the static token with multi-user reads on: the requests of a turn share the list (src/db/fold.ts), and its JSON is
      // made once for them; the rest is the bytes JSON.stringify gives the same object.
      const users = usersJson(await listAllUsers(pool));
      const body = `{"users":${users},"default":${JSON.stringify(config.defaultUserId)},"multiUser":true,"timeZone":${JSON.stringify(config.timeZone)}}`;
      return jsonText(body);
    }
    const user = await findUser(pool, only);
    return json({ users: user ? [user] : [], default: only, multiUser: false, timeZone: config.timeZone });
  },
});
