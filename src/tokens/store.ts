// The issued tokens each server process checks against, held in memory as a
// map from hash to grant and re-read every TOKEN_REFRESH_MS (so an issue or
// a revocation takes effect within seconds, in every process, without a
// restart). A presented token is hashed once and looked up: no per-request
// query, and nothing to compare byte by byte. The static secrets
// (SERVICE_API_TOKEN, SERVICE_UPLOAD_TOKEN) are compared in constant time.
import { hash, randomBytes } from 'node:crypto';
import { activeTokens, type ActiveToken, type TokenKind } from '../db/tokens.js';
import type { Db } from '../db/pool.js';
import { bearerToken, makeTokenCheck } from '../http/auth.js';
import { errors } from '../errors.js';
import { TOKEN_REFRESH_MS, TOKENS_STALE_MS } from '../limits.js';
import { describeError, log } from '../log.js';
import type { Reader } from '../routes/route.js';

const PREFIX: Readonly<Record<TokenKind, string>> = { upload: 'hdu_', read: 'hdr_' };

/** A new token of `kind`: a recognisable prefix and 32 random bytes. */
export function newToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

/** What is stored: tokens are random, so one SHA-256 is enough (no guessing to slow down). */
export const tokenHash = (token: string): string => hash('sha256', token, 'hex');

/** Who an upload may write for: the token's bound user, or anyone (the shared token). */
export interface Uploader {
  boundUser: string | null;
}

export class TokenStore {
  private byHash = new Map<string, ActiveToken>();
  /** When the tokens were last read (performance.now()). */
  private readAt = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  /** A re-read under way: the next waits for it to end rather than taking another connection (a lock on the tokens would pile them up). */
  private reading: Promise<void> | null = null;
  private readonly listeners: Array<() => void> = [];
  private readonly readers: Array<() => void> = [];

  constructor(private readonly db: Db) {}

  /** Loads the tokens, then keeps re-reading them. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      if (this.reading) return;
      this.reading = this.refresh()
        .catch((error) => log.warn('could not re-read issued tokens', describeError(error)))
        .finally(() => (this.reading = null));
    }, TOKEN_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async refresh(): Promise<void> {
    const rows = await activeTokens(this.db);
    this.byHash = new Map(rows.map((row) => [row.hash, row]));
    this.readAt = performance.now();
    // Each listener on its own: one that throws must not keep the others (the receiver's start) from their turn.
    for (const listener of [...this.readers, ...(this.hasUploadTokens ? this.listeners : [])]) {
      try {
        listener();
      } catch (error) {
        log.error('a listener of the token re-read failed', describeError(error));
      }
    }
  }

  /** Called after every read of the tokens (what a revocation has stopped is stopped then). */
  afterEveryRead(listener: () => void): void {
    this.readers.push(listener);
  }

  /** Whether an issued token (by hash) is still active. */
  holds(hash: string): boolean {
    return this.byHash.has(hash);
  }

  /** Called after every read of the tokens that finds a device upload token. */
  whileUploadTokens(listener: () => void): void {
    this.listeners.push(listener);
  }

  get hasUploadTokens(): boolean {
    for (const token of this.byHash.values()) if (token.kind === 'upload') return true;
    return false;
  }

  /** The issued token of `kind` that `presented` (bearerToken's) is, or undefined; a 503 (thrown) when the tokens have not been read for TOKENS_STALE_MS. */
  lookup(presented: string | null, kind: TokenKind): ActiveToken | undefined {
    if (presented === null || !presented.startsWith(PREFIX[kind])) return undefined;
    if (performance.now() - this.readAt > TOKENS_STALE_MS) throw errors.tokensUnchecked();
    const token = this.byHash.get(tokenHash(presented));
    return token?.kind === kind ? token : undefined;
  }
}

/**
 * The read API's token check: SERVICE_API_TOKEN (reads the default user, or
 * anyone with multi-user reads on), or a per-user read token (reads that one
 * user), or null. Upload tokens never read.
 */
export function readAuthenticator(store: TokenStore, apiToken: string): (authorization: string) => Reader | null {
  const matchesStatic = makeTokenCheck(apiToken);
  const staticReader: Reader = Object.freeze({ boundUser: null });
  return (authorization) => {
    const presented = bearerToken(authorization);
    const issued = store.lookup(presented, 'read');
    if (issued) return { boundUser: issued.userId, honoured: () => store.holds(issued.hash) };
    return matchesStatic(presented) ? staticReader : null;
  };
}

/** The receiver's token check: SERVICE_UPLOAD_TOKEN (any user), or a device token (its user), or null. Read tokens never upload. */
export function uploadAuthenticator(store: TokenStore, uploadToken: string | null): (authorization: string) => Uploader | null {
  const matchesShared = uploadToken === null ? () => false : makeTokenCheck(uploadToken);
  const shared: Uploader = Object.freeze({ boundUser: null });
  return (authorization) => {
    const presented = bearerToken(authorization);
    const issued = store.lookup(presented, 'upload');
    if (issued) return { boundUser: issued.userId };
    return matchesShared(presented) ? shared : null;
  };
}
