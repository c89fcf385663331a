// Who and what: list_users (/v1/users), get_profile (/v1/profile),
// list_available_types (/v1/catalog/types).
import type { Static } from '@sinclair/typebox';
import { z } from 'zod';
import { MCP } from '../../limits.js';
import type { CatalogResponse, ProfileT, UsersResponse, UserT } from '../../schemas/resources.js';
import { localTimeOrNull, localTime, utcDate } from '../compact.js';
import { today } from '../dates.js';
import { NameInput, Offset, TOOL_FOR_KIND, UserInput } from '../inputs.js';
import { defineTool } from '../tool.js';

/** Whether a user's name, e-mail or id holds `search` (`search` in lower case). */
const userMatches = (user: UserT, search: string): boolean =>
  [user.name, user.email, user.userID].some((text) => text !== null && text.toLowerCase().includes(search));

export const listUsers = defineTool({
  name: 'list_users',
  title: 'List users',
  description:
    'The people whose data this server holds: every user with multi-user reads on, otherwise only the default one; oldest first, optionally only those whose name, e-mail or id contains search. ' +
    'Also gives the time zone that cuts every local day and date, and which user is the default (read when a tool is given no user). ' +
    `Pages of limit users (default ${MCP.defaultUsers}, at most ${MCP.usersPerCall}); total counts every match, and note says how to get the next page.`,
  input: {
    search: NameInput.optional().describe('Only users whose name, e-mail or user id contains this, in any case (Ada, @example.org).'),
    limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MCP.usersPerCall, `must be at most ${MCP.usersPerCall}`).default(MCP.defaultUsers).describe(`Users per call: default ${MCP.defaultUsers}, at most ${MCP.usersPerCall}.`),
    offset: Offset,
  },
  async run({ search, limit, offset }, ctx) {
    const body = await ctx.json<Static<typeof UsersResponse>>('listUsers');
    const zone = ctx.config.timeZone;
    const matching = search === undefined ? body.users : body.users.filter((user) => userMatches(user, search.toLowerCase()));
    const page = matching.slice(offset, offset + limit);
    const next = offset + page.length;
    return {
      json: {
        timeZone: body.timeZone,
        default: body.default,
        multiUser: body.multiUser,
        total: matching.length,
        users: page.map((user) => ({ ...user, createdAt: localTime(user.createdAt, zone), lastSync: localTimeOrNull(user.lastSync, zone) })),
        ...(next < matching.length ? { nextOffset: next, note: `${matching.length - next} more; call again with offset ${next}` } : {}),
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
