// Cross-origin reads for browser dashboards on other origins, opt-in with
// SERVICE_CORS_ORIGINS (exact origins). Unset, nothing here runs and every
// reply is what it always was. Set:
// - a GET from an allowed origin gets Access-Control-Allow-Origin (that
//   origin, never `*`) and the headers a client needs exposed (Retry-After,
//   WWW-Authenticate, Content-Disposition, X-Request-Id) — errors included, so
//   a dashboard can read a 400's message or a 401;
// - its preflight (OPTIONS with Access-Control-Request-Method) is answered
//   204 for GET with Authorization allowed; OPTIONS from anyone else, or
//   without that header, is the 405 it always was;
// - replies of routes a browser may read cross-origin say Vary: Origin, so a
//   cache never hands one origin's answer to another.
// No credentials mode: the token travels in Authorization, never a cookie.
// Routes say whether they take part (Route.crossOrigin: not /docs, not /app).
import { CORS } from '../limits.js';
import { headerLines, type HeaderLines } from './reply.js';

interface OriginHeaders {
  plain: HeaderLines;
  noStore: HeaderLines;
  preflight: HeaderLines;
}

export class CorsPolicy {
  readonly enabled: boolean;
  private readonly allowed = new Map<string, OriginHeaders>();
  private readonly varyOnly: { plain: HeaderLines; noStore: HeaderLines };

  /** `base`: the header sets every reply carries, without and with no-store. */
  constructor(origins: readonly string[], base: { plain: Readonly<Record<string, string>>; noStore: Readonly<Record<string, string>> }) {
    this.enabled = origins.length > 0;
    const vary = { Vary: 'Origin' };
    this.varyOnly = { plain: headerLines({ ...base.plain, ...vary }), noStore: headerLines({ ...base.noStore, ...vary }) };
    for (const origin of origins) {
      const allow = { 'Access-Control-Allow-Origin': origin, ...vary };
      const exposed = { ...allow, 'Access-Control-Expose-Headers': CORS.exposedHeaders };
      this.allowed.set(origin, {
        plain: headerLines({ ...base.plain, ...exposed }),
        noStore: headerLines({ ...base.noStore, ...exposed }),
        preflight: headerLines({
          ...base.noStore,
          ...allow,
          'Access-Control-Allow-Methods': 'GET',
          'Access-Control-Allow-Headers': CORS.allowedHeaders,
          'Access-Control-Max-Age': String(CORS.preflightMaxAgeS),
        }),
      });
    }
  }

  /** The fixed header lines of a reply to a cross-origin-readable route (only when enabled). */
  replyHeaders(origin: string, noStore: boolean): HeaderLines {
    const set = this.allowed.get(origin) ?? this.varyOnly;
    return noStore ? set.noStore : set.plain;
  }

  /** The header lines of a preflight's 204, or null when this OPTIONS is not a preflight from an allowed origin. */
  preflightHeaders(origin: string, requestMethod: string): HeaderLines | null {
    if (requestMethod === '') return null;
    return this.allowed.get(origin)?.preflight ?? null;
  }
}
