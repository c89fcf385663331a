// A small route table: exact paths and `{param}` segments, GET only. A path
// with parameters is matched by one regular expression made from its route
// (a parameter: one non-empty segment), and its parameters come out in the
// form the parameter parsers read (src/params/query-string.ts): splitting
// the path and filling an object by name cost the workout detail about 3 µs
// a request in V8's runtime (bench/RESULTS.md, 2026-12-07 late evening).
import type { Params, RawQuery } from '../params/query-string.js';
import type { Route } from '../routes/route.js';

export interface Match {
  route: Route;
  /** The path's parameters by name, each value once, decoded. */
  path: Params;
}

/** An exact path's parameters: none (shared; nothing writes a match's parameters). */
const NO_PARAMS: Params = new Map();

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
}

/** A literal part of a route's path in a regular expression. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `route`'s path as a regular expression over a whole request path, and its parameters' names in order. */
function compile(route: Route): Compiled {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith('{')) return literal(segment);
      names.push(segment.slice(1, -1));
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

export class Router {
  private readonly exact = new Map<string, Route>();
  private readonly patterns: Compiled[] = [];

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      if (route.path.includes('{')) this.patterns.push(compile(route));
      else this.exact.set(route.path, route);
    }
  }

  match(path: string): Match | undefined {
    const route = this.exact.get(path);
    if (route) return { route, path: NO_PARAMS };
    for (const { route, pattern, names } of this.patterns) {
      const found = pattern.exec(path);
      if (found === null) continue;
      const params: RawQuery = new Map();
      for (let i = 0; i < names.length; i++) params.set(names[i], [decodeSegment(found[i + 1])]);
      return { route, path: params };
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
