// The route table, in the order of the specification's endpoint list.
import { catalogRoute } from './catalog.js';
import { docsRoute } from './docs.js';
import { healthRoute } from './healthz.js';
import { indexRoute } from './index-page.js';
import { openApiRoute } from './openapi.js';
import { profileRoute } from './profile.js';
import type { RouteDef } from './route.js';
import { usersRoute } from './users.js';

export function allRoutes(): RouteDef[] {
  return [indexRoute, docsRoute, openApiRoute, healthRoute, usersRoute, profileRoute, catalogRoute] as unknown as RouteDef[];
}
