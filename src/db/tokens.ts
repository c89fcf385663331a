// Issued tokens (`access_tokens`, migration 4): per-device upload tokens and
// per-user read tokens, each bound to one user, stored only as a hash.
import type pg from 'pg';
import type { Db } from './pool.js';

export type TokenKind = 'upload' | 'read';

export interface IssuedToken {
  id: number;
  kind: TokenKind;
  userId: string;
  name: string;
  createdAtMs: number;
  revokedAtMs: number | null;
}

export interface ActiveToken {
  kind: TokenKind;
  userId: string;
  hash: string;
}

/** Every token not revoked, by hash (what each server process holds in memory). */
export async function activeTokens(db: Db): Promise<ActiveToken[]> {
  const { rows } = await db.query<ActiveToken>(
    `SELECT kind, user_id::text AS "userId", token_hash AS hash FROM access_tokens WHERE revoked_at_ms IS NULL`,
  );
  return rows;
}

export async function insertToken(db: pg.ClientBase, token: { kind: TokenKind; userId: string; name: string; hash: string }, nowMs: number): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO access_tokens (kind, user_id, name, token_hash, created_at_ms) VALUES ($1, $2, $3, $4, $5) RETURNING token_id AS id`,
    [token.kind, token.userId, token.name, token.hash, nowMs],
  );
  return rows[0].id;
}

export async function listTokens(db: pg.ClientBase): Promise<IssuedToken[]> {
  const { rows } = await db.query<IssuedToken>(
    `SELECT token_id AS id, kind, user_id::text AS "userId", name, created_at_ms AS "createdAtMs", revoked_at_ms AS "revokedAtMs"
     FROM access_tokens ORDER BY token_id`,
  );
  return rows.map((row) => ({ ...row, createdAtMs: Number(row.createdAtMs), revokedAtMs: row.revokedAtMs === null ? null : Number(row.revokedAtMs) }));
}

/** Revokes the token; false when no such token is active. */
export async function revokeToken(db: pg.ClientBase, id: number, nowMs: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE access_tokens SET revoked_at_ms = $2 WHERE token_id = $1 AND revoked_at_ms IS NULL', [id, nowMs]);
  return rowCount === 1;
}
