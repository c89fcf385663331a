// The database side in one import for start-up code.
export { applyMigrations } from './migrate.js';
export { READ_ROLE } from './migrations.js';
