// The MCP server both transports serve: every tool (each annotated read-only,
// idempotent, not destructive), the guide and type-catalog resources, and the
// prompts, over a RouteTable built once. An McpServer serves one connection
// at a time: stdio has one; the stateless HTTP transport connects one per
// request (http.ts reuses them, setting the request's reader first).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describeError, log } from '../log.js';
import type { Reader, Route } from '../routes/route.js';
import type { Services } from '../services.js';
import { GUIDE_URI, guideMarkdown, instructions, typeCatalog, TYPES_URI } from './guide.js';
import { prompts } from './prompts.js';
import { RouteTable } from './route-call.js';
import { READ_ONLY, ToolError, type Tool, type ToolContext } from './tool.js';
import { getActivityRings, getSleep, getStateOfMind } from './tools/days.js';
import { getDailyMetrics, getLatestMetrics, getMetricStats } from './tools/metrics.js';
import { getProfile, listAvailableTypes, listUsers } from './tools/people.js';
import { getSamples, getSummary } from './tools/samples.js';
import { getWorkout, getWorkoutRoute, getWorkoutSeries, listWorkouts } from './tools/workouts.js';

export const SERVER_INFO = { name: 'healthd', title: 'healthd — your health data', version: '1.0.0' } as const;

/** Every tool, in the order tools/list gives them: PulsHealth's thirteen, then ours. */
export const TOOLS: readonly Tool[] = [
  listUsers,
  getSummary,
  getProfile,
  listAvailableTypes,
  getLatestMetrics,
  getDailyMetrics,
  getActivityRings,
  listWorkouts,
  getWorkout,
  getWorkoutSeries,
  getSleep,
  getSamples,
  getStateOfMind,
  getWorkoutRoute,
  getMetricStats,
];

/** What every McpServer of one process shares: the route table and the texts built from the settings. */
export class McpCore {
  readonly table: RouteTable;
  readonly instructions: string;
  /** The guide for the static token's reader, and for a per-user token's (whose data it reads differs). */
  readonly guide: string;
  readonly ownGuide: string;
  readonly types: string;
  /** The SDK builds an Ajv instance per server unless given one: shared, it saves ~0.2 ms a request. */
  readonly jsonSchemaValidator = new AjvJsonSchemaValidator();

  constructor(
    readonly services: Services,
    routes: readonly Route[],
  ) {
    this.table = new RouteTable(services, routes);
    const { timeZone, multiUser } = services.config;
    this.instructions = instructions(timeZone);
    this.guide = guideMarkdown({ timeZone, reads: multiUser ? 'anyone' : 'default' });
    this.ownGuide = guideMarkdown({ timeZone, reads: 'own' });
    this.types = typeCatalog();
  }
}

async function callTool(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
  try {
    const output = await tool.run(args, ctx);
    return { content: [{ type: 'text', text: 'markdown' in output ? output.markdown : JSON.stringify(output.json) }] };
  } catch (error) {
    if (!(error instanceof ToolError)) log.error('tool failed', { tool: tool.name, ...describeError(error) });
    return { content: [{ type: 'text', text: error instanceof ToolError ? error.message : 'internal error' }], isError: true };
  }
}

/**
 * An MCP server reading as `reader()` at each call (the static token's reader, or a per-user token's).
 * `gone()`, over HTTP: the request's client left, so its tools send no more queries.
 */
export function createMcpServer(core: McpCore, reader: () => Reader, gone?: () => boolean): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: core.instructions, jsonSchemaValidator: core.jsonSchemaValidator });
  const ctx = core.table.contextFor(reader, gone);
  const zone = core.services.config.timeZone;
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { title: tool.title, ...READ_ONLY } },
      (args: Record<string, unknown>) => callTool(tool, args, ctx),
    );
  }
  server.registerResource(
    'guide',
    GUIDE_URI,
    { title: 'Guide for assistants', description: 'Units, deduplication, local days, paging, and which tool answers which question.', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: reader().boundUser === null ? core.guide : core.ownGuide }] }),
  );
  server.registerResource(
    'types',
    TYPES_URI,
    { title: 'Type catalog', description: 'Every HealthKit identifier healthd knows: kind, canonical unit, and whether a day\'s value is a total or a mean.', mimeType: 'application/json' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: core.types }] }),
  );
  for (const prompt of prompts) {
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema: prompt.args }, (args: Record<string, unknown>) => ({
      description: prompt.description,
      messages: prompt.messages(args as Record<string, string | undefined>, zone, Date.now()),
    }));
  }
  // The SDK advertises list-change notifications on registering; the lists never change while a client is
  // connected (and the stateless HTTP transport could not notify), so none are promised.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
  return server;
}
