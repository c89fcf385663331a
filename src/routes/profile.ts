// GET /v1/profile — the person's profile; 404 when none was synced.
import { Type } from '@sinclair/typebox';
import { findProfile } from '../db/queries/users.js';
import { errors } from '../errors.js';
import { Profile } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

export const profileRoute = defineRoute({
  operationId: 'getProfile',
  path: '/v1/profile',
  auth: true,
  summary: 'Profile',
  description: 'Name, e-mail, date of birth and biological sex as synced from the phone. Fields never filled in are null.',
  params: Type.Object({}),
  example: {},
  responses: [
    {
      status: 200,
      description: 'The profile.',
      schema: Profile,
      example: { userID: EXAMPLE.user, name: 'Ada Lovelace', email: 'ada@example.org', dateOfBirth: 315_532_800_000, biologicalSex: 'female' },
    },
    { status: 404, description: 'No profile exists for the user.' },
  ],
  async handler({ db, services, userId }) {
    const profile = await findProfile(db, userId);
    if (!profile) throw errors.profileNotFound();
    return json(profile);
  },
});
