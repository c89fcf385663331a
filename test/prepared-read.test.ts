// Reading a prepared statement's rows without pg's Query (src/db/prepared-read.ts),
// on a real PostgreSQL: the same rows as pg's Query gives (objects and arrays,
// every type the read API's statements answer, nulls, parameters bound as pg
// binds them), the result described once a connection, PostgreSQL's errors
// and pg's read timeout as pg's Query reports them, and the connection
// answering after each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { prepared, RequestDb, ClientGone } from '../src/db/pool.js';
import { readPrepared } from '../src/db/prepared-read.js';
import { databaseWithClient } from './support/db.js';

const own = databaseWithClient((db) =>
  db.query(`CREATE TABLE things (id int PRIMARY KEY, name text, born_ms bigint, ratio float8, ok boolean, detail jsonb, day date, tags text[], key uuid)`).then(() =>
    db.query(`INSERT INTO things VALUES
      (1, 'O''Brien, "quoted"', 1766966400000, 0.1, true, '{"a": [1, 2.5, null], "b": "x"}', '2026-12-07', '{a,"b c",NULL}', '0c6c538e-483e-5449-8c6e-5680104e4608'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, 'ünïcödé ✓', -5, -1e300, false, 'null', '1970-01-01', '{}', 'ffffffff-ffff-ffff-ffff-ffffffffffff')`),
  ),
);

// Columns as the read API's statements alias them, several of them quoted.
const THINGS = prepared(
  `SELECT id, name AS "userName", born_ms AS "bornAt", ratio, ok, detail, day::text AS day, tags, key::text AS "key", $2::text AS echo
   FROM things WHERE id = ANY($1::int[]) ORDER BY id`,
);

test('readPrepared: the rows pg’s Query gives, as objects and as arrays — text, bigint, float8, boolean, jsonb, dates, arrays, uuids and nulls — parameters bound as pg binds them', async () => {
  for (const echo of ['plain', 'a "quoted", {braced} \\ value', null]) {
    const statement = THINGS([[3, 1, 2, 99], echo]);
    const expected = await own.client.query(statement);
    assert.equal(expected.rows.length, 3);
    assert.deepEqual(await readPrepared(own.client, statement), expected.rows);
    const expectedArrays = await own.client.query({ ...statement, rowMode: 'array' });
    assert.deepEqual(await readPrepared(own.client, statement, 'array'), expectedArrays.rows);
  }
  const [first] = await readPrepared<Record<string, unknown>>(own.client, THINGS([[1], 'x']));
  assert.equal(first.bornAt, 1766966400000, 'a bigint read through healthd’s parser, as a number');
  assert.deepEqual(first.tags, ['a', 'b c', null]);
  assert.deepEqual(first.detail, { a: [1, 2.5, null], b: 'x' });
  assert.deepEqual(await readPrepared(own.client, THINGS([[], 'x'])), [], 'no rows');
});

test('readPrepared: the result is described once a connection; each connection asks for its own', async () => {
  const statement = prepared(`SELECT id, name FROM things WHERE id = $1`);
  const fresh = new pg.Client({ connectionString: own.db.url });
  await fresh.connect();
  try {
    const counted = (client: pg.Client) => {
      const connection = (client as unknown as { connection: { describe(message: unknown): void } }).connection;
      const describe = connection.describe.bind(connection);
      const calls = { describe: 0 };
      connection.describe = (message) => {
        calls.describe++;
        describe(message);
      };
      return calls;
    };
    const calls = counted(fresh);
    for (const id of [1, 2, 3, 1]) assert.deepEqual(await readPrepared(fresh, statement([id])), (await own.client.query(statement([id]))).rows);
    assert.equal(calls.describe, 1, 'described on the first read only');
    const other = new pg.Client({ connectionString: own.db.url });
    await other.connect();
    try {
      const otherCalls = counted(other);
      assert.deepEqual(await readPrepared(other, statement([3])), [{ id: 3, name: 'ünïcödé ✓' }]);
      assert.equal(otherCalls.describe, 1, 'a new connection describes it for itself');
    } finally {
      await other.end();
    }
  } finally {
    await fresh.end();
  }
});

test('readPrepared: PostgreSQL’s error rejects the read with its code, on the first read of a statement and later; the connection answers the next read', async () => {
  const divide = prepared(`SELECT 10 / $1::int AS quotient`);
  await assert.rejects(readPrepared(own.client, divide([0])), (error: Error & { code?: string }) => error.code === '22012');
  assert.deepEqual(await readPrepared(own.client, divide([5])), [{ quotient: 2 }]);
  await assert.rejects(readPrepared(own.client, divide([0])), (error: Error & { code?: string }) => error.code === '22012');
  assert.deepEqual(await readPrepared(own.client, divide([2]), 'array'), [[5]]);

  const missing = prepared(`SELECT no_such_column FROM things WHERE id = $1`);
  for (let i = 0; i < 2; i++) await assert.rejects(readPrepared(own.client, missing([1])), (error: Error & { code?: string }) => error.code === '42703');
  assert.equal((await own.client.query('SELECT 7 AS seven')).rows[0].seven, 7);
});

test('readPrepared: pg’s read timeout rejects a read PostgreSQL does not answer in time, as pg’s Query', async () => {
  const client = new pg.Client({ connectionString: own.db.url, query_timeout: 200 });
  await client.connect();
  try {
    await assert.rejects(readPrepared(client, prepared(`SELECT pg_sleep($1::float8)`)([2])), /Query read timeout/);
  } finally {
    await client.end();
  }
});

test('readPrepared: on a pool the connection goes back after the read, or after its error; a request whose client left sends nothing', async () => {
  const pool = new pg.Pool({ connectionString: own.db.url, max: 1 });
  try {
    const statement = prepared(`SELECT id FROM things WHERE id = $1`);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await readPrepared(pool, statement([2])), [{ id: 2 }]);
      await assert.rejects(readPrepared(pool, prepared(`SELECT 1 / $1::int`)([0])), (error: Error & { code?: string }) => error.code === '22012');
    }
    assert.deepEqual(await readPrepared(pool, statement([3])), [{ id: 3 }], 'the pool’s one connection came back after the error (or a new one was made)');
    assert.equal(pool.idleCount, 1, 'and is back in the pool after the read');
    await assert.rejects(readPrepared(new RequestDb(pool, () => true), statement([2])), ClientGone);
    assert.deepEqual(await readPrepared(new RequestDb(pool, () => false), statement([1])), [{ id: 1 }]);
  } finally {
    await pool.end();
  }
});
