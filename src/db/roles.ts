// Login roles the embedded start-up creates inside the roles the migrations
// made (healthd_reader: SELECT only). With your own PostgreSQL you create
// them yourself (README); nothing here runs against DATABASE_URL.
import type pg from 'pg';

const ROLE_NAME = /^[a-z_][a-z0-9_]*$/;

/** Creates (or re-passwords) `role` as a login role that is a member of `memberOf`. */
export async function ensureLoginRole(admin: pg.ClientBase, role: string, password: string, memberOf: string): Promise<void> {
  if (!ROLE_NAME.test(role) || !ROLE_NAME.test(memberOf)) throw new Error('role names must be plain identifiers');
  const { rowCount } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  // CREATE/ALTER ROLE take no parameters: the password goes in as a quoted literal.
  const literal = `'${password.replace(/'/g, "''")}'`;
  await admin.query(`${rowCount ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN PASSWORD ${literal}`);
  await admin.query(`GRANT ${memberOf} TO ${role}`);
}
