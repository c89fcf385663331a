// The MCP server's listener beside the read API (`npm start`), unless
// SERVICE_MCP_PORT is off: same host, the read API's bearer check (so a
// per-user read token works on both) and its failed-auth throttle (one budget
// per client address across both ports).
import { hostInUrl } from '../config.js';
import type { HttpServer } from '../http/server.js';
import { createMcpHttpServer, MCP_PATH, type McpHttpServer } from '../mcp/http.js';
import { McpCore } from '../mcp/server.js';
import type { Route } from '../routes/route.js';
import type { Services } from '../services.js';

export interface RunningMcp {
  server: McpHttpServer;
  url: string;
}

export async function startMcpListener(services: Services, routes: readonly Route[], readApi: HttpServer): Promise<RunningMcp | null> {
  const { host, mcpPort } = services.config;
  if (mcpPort === null) return null;
  const server = createMcpHttpServer(new McpCore(services, routes), { authenticate: readApi.authenticate, throttle: readApi.throttle });
  const port = await server.listen(host, mcpPort);
  return { server, url: `http://${hostInUrl(host)}:${port}${MCP_PATH}` };
}
