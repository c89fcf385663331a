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
          else params[want.slice(1, -1)] = decodeSegment(segments[i]);
        } else ok = want === segments[i];
      }
      if (ok) return { route: compiled.route, path: params };
    }
    return undefined;
  }
}

/**
 * A path parameter as its value: percent-encoding decoded (`%34` is `4`, RFC
 * 3986), as query values are. One that does not decode stays as sent, and
 * its parameter's check refuses it.
 */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
