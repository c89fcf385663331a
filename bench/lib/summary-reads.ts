// The reads of /v1/summary for the baselines: exactly the route's reader
// (src/db/queries/summary.ts). The database ceiling stops after the reads; the
// Fastify baseline builds the Summary from the input inline.
export { readSummaryInput as summaryInput } from '../../src/routes/summary-plan.js';
