// Who and what: list_users (/v1/users), get_profile (/v1/profile),
// list_available_types (/v1/catalog/types).
import type { Static } from '@sinclair/typebox';
import type { CatalogResponse, ProfileT, UsersResponse } from '../../schemas/resources.js';
import { localTimeOrNull, localTime, utcDate } from '../compact.js';
import { today } from '../dates.js';
import { TOOL_FOR_KIND, UserInput } from '../inputs.js';
import { defineTool } from '../tool.js';

export const listUsers = defineTool({
  name: 'list_users',
  title: 'List users',
  description:
    'The people whose data this server holds: every user with multi-user reads on, otherwise only the default one. ' +
    'Also gives the time zone that cuts every local day and date, and which user is the default (read when a tool is given no user).',
  input: {},
  async run(_args, ctx) {
    const body = await ctx.json<Static<typeof UsersResponse>>('listUsers');
    const zone = ctx.config.timeZone;
    return {
      json: {
        timeZone: body.timeZone,
        default: body.default,
        multiUser: body.multiUser,
        users: body.users.map((user) => ({ ...user, createdAt: localTime(user.createdAt, zone), lastSync: localTimeOrNull(user.lastSync, zone) })),
      },
    };
  },
});

/** Whole years from a birth date to `on` (both YYYY-MM-DD). */
export function ageOn(birthDate: string, on: string): number {
  const years = Number(on.slice(0, 4)) - Number(birthDate.slice(0, 4));
  return on.slice(5) < birthDate.slice(5) ? years - 1 : years;
}

export const getProfile = defineTool({
  name: 'get_profile',
  title: 'Profile',
  description: 'Name, e-mail, date of birth (with the age it gives today) and biological sex as synced from the phone; null where never filled in.',
  input: { user: UserInput },
  async run({ user }, ctx) {
    const profile = await ctx.json<ProfileT>('getProfile', { user });
    const dateOfBirth = profile.dateOfBirth === null ? null : utcDate(profile.dateOfBirth);
    return {
      json: {
        ...profile,
        dateOfBirth,
        age: dateOfBirth === null ? null : ageOn(dateOfBirth, today(ctx.config.timeZone)),
      },
    };
  },
});

export const listAvailableTypes = defineTool({
  name: 'list_available_types',
  title: 'Available data types',
  description:
    'Every type of data stored for the user, with row counts and the first and last record, and which tools read it. ' +
    'Call it first to learn what exists before asking for a metric. aggregateRows > 0 means the type has daily values (get_daily_metrics); ' +
    'rawRows counts individual samples (get_samples).',
  input: { user: UserInput },
  async run({ user }, ctx) {
    const body = await ctx.json<Static<typeof CatalogResponse>>('listCatalogTypes', { user });
    const zone = ctx.config.timeZone;
    return {
      json: {
        types: body.types.map((type) => ({
          ...type,
          earliest: localTimeOrNull(type.earliest, zone),
          latest: localTimeOrNull(type.latest, zone),
          readWith: type.kind === 'quantity' && type.aggregateRows === 0 ? 'get_latest_metrics or get_samples (no daily values)' : TOOL_FOR_KIND[type.kind],
        })),
      },
    };
  },
});
