// A small route table: exact paths and `{param}` segments, GET only.
import type { Route } from '../routes/route.js';

export interface Match {
  route: Route;
  path: Record<string, string>;
}

interface Compiled {
  route: Route;
  segments: string[];
}

export class Router {
  private readonly exact = new Map<string, Route>();
  private readonly patterns: Compiled[] = [];

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      if (route.path.includes('{')) this.patterns.push({ route, segments: route.path.split('/') });
      else this.exact.set(route.path, route);
    }
  }

  match(path: string): Match | undefined {
    const route = this.exact.get(path);
    if (route) return { route, path: {} };
    const segments = path.split('/');
    for (const compiled of this.patterns) {
      if (compiled.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const want = compiled.segments[i];
        if (want.startsWith('{')) {
          if (segments[i] === '') ok = false;
          else params[want.slice(1, -1)] = segments[i];
        } else ok = want === segments[i];
      }
      if (ok) return { route: compiled.route, path: params };
    }
    return undefined;
  }
}
