// The MCP server over Streamable HTTP on its own node:http listener
// (SERVICE_MCP_PORT), so the read API's uWS port stays GET-only. Stateless:
// each POST /mcp gets a transport of its own answering plain JSON (no session
// to keep or lose, any process of several can answer) and an McpServer
// reading as the request's reader. Building an McpServer costs more CPU than
// a REST request's whole route (the SDK builds its handlers and schemas), so
// servers are reused: one whose response went out whole, with no handler
// left running, goes back to an idle list; one whose client left early is
// dropped. The SDK's web-standard transport is used with a thin node:http
// adapter (the body read here under MCP.bodyBytes, the answer written whole):
// the SDK's node wrapper (@hono/node-server) waits a timer tick on every JSON
// answer whose stream is not drained at once.
//
// The checks run in the read API's order — path → method → throttle → token:
// 404, 405 (Allow: POST), 429 with Retry-After before the token is looked at,
// 401 with WWW-Authenticate: Bearer; a body is read only once the token is
// good (413 past MCP.bodyBytes). The authenticator (constant-time, auth.ts)
// and the failed-auth throttle are the read API's. GET /healthz answers
// without a token, as on the read API. A browser page (it sends Origin) of an
// origin not in SERVICE_CORS_ORIGINS is refused (403); a listed origin's
// preflight of a POST is answered and every answer to it carries
// Access-Control-Allow-Origin.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ApiError, errors } from '../errors.js';
import { canonicalAddress, clientAddress, staticReadToken, type ReadAuthenticator } from '../http/auth.js';
import { FailedAuthThrottle } from '../http/throttle.js';
import { describeError, log } from '../log.js';
import type { Reader, RequestContext } from '../routes/route.js';
import { CORS, MCP } from '../limits.js';
import { screenToolCalls } from './call-screen.js';
import { createMcpServer, type McpCore } from './server.js';

export const MCP_PATH = '/mcp';
const HEALTH_PATH = '/healthz';
/** Idle servers kept for reuse: about the requests that run at once. */
const IDLE_SERVERS = 32;

interface ReusableServer {
  server: McpServer;
  reader: Reader;
  /** Set when the request's client left before its answer: its tools send no more queries (the server is then dropped, not reused). */
  gone: boolean;
}

export interface McpHttpOptions {
  /** Who a bearer token names; the static SERVICE_API_TOKEN when not given (the read API's authenticator in `npm start`). */
  authenticate?: ReadAuthenticator;
  /** The failed-auth throttle; the read API's in `npm start`, so one budget covers both ports. */
  throttle?: FailedAuthThrottle;
}

export interface McpHttpServer {
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; running requests go on. */
  stopListening(): void;
  readonly inFlight: number;
}

/** JSON-RPC's code for a message it cannot take; MCP's current revision (2025-06-18) has no batches. */
const INVALID_REQUEST = -32600;
export const BATCH_REFUSED = 'JSON-RPC batches are not supported: send one message per POST';

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

function sendError(res: ServerResponse, error: ApiError): void {
  res.writeHead(error.status, { ...JSON_HEADERS, ...error.headers }).end(JSON.stringify({ error: error.message }));
}

/** The 204 to a listed origin's preflight of a POST (its Access-Control-Allow-Origin is set already). */
function sendPreflight(res: ServerResponse): void {
  res
    .writeHead(204, {
      'Cache-Control': 'no-store',
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': CORS.mcpAllowedHeaders,
      'Access-Control-Max-Age': String(CORS.preflightMaxAgeS),
    })
    .end();
}

/** The body, or null past MCP.bodyBytes (declared or sent). */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  if (Number(req.headers['content-length'] ?? 0) > MCP.bodyBytes) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MCP.bodyBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function webRequest(req: IncomingMessage, body: string | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`http://localhost${req.url ?? MCP_PATH}`, { method: req.method, headers, body });
}

/** A JSON answer written whole; an event stream (never in JSON mode, kept for safety) piped. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
  response.headers.forEach((value, name) => (headers[name] = value));
  if (response.body && headers['content-type']?.startsWith('text/event-stream')) {
    res.writeHead(response.status, headers);
    Readable.fromWeb(response.body as never).pipe(res);
    return;
  }
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  res.writeHead(response.status, headers).end(body);
}

export function createMcpHttpServer(core: McpCore, options: McpHttpOptions = {}): McpHttpServer {
  const { config } = core.services;
  const authenticate = options.authenticate ?? staticReadToken(config.apiToken);
  const throttle = options.throttle ?? new FailedAuthThrottle();
  const health = core.table.route('getHealth');
  let inFlight = 0;

  async function serveHealth(res: ServerResponse): Promise<void> {
    const ctx: RequestContext = {
      userId: config.defaultUserId,
      reader: { boundUser: null },
      request: { host: '', forwardedHost: '', forwardedProto: '' },
      services: core.services,
      db: core.services.pool,
      requestId: 'mcp-healthz',
    };
    const reply = await health.run(ctx, new Map(), new Map());
    if (reply.kind !== 'json') throw new Error('healthz did not answer JSON');
    res.writeHead(reply.status ?? 200, JSON_HEADERS).end(JSON.stringify(reply.body));
  }

  /** The reader, or null once a refusal has been sent. */
  function admit(req: IncomingMessage, res: ServerResponse): Reader | null {
    const forwarded = req.headers['x-forwarded-for'];
    const address = clientAddress(canonicalAddress(req.socket.remoteAddress ?? ''), Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? ''), config.trustProxyHeaders);
    const wait = throttle.retryAfterSeconds(address, Date.now());
    if (wait > 0) {
      sendError(res, errors.tooManyFailedAuth(wait));
      return null;
    }
    let reader: Reader | null;
    try {
      reader = authenticate(req.headers.authorization ?? '');
    } catch (error) {
      // The issued tokens not read lately (errors.tokensUnchecked).
      if (!(error instanceof ApiError)) throw error;
      sendError(res, error);
      return null;
    }
    if (reader === null) {
      throttle.recordFailure(address, Date.now());
      sendError(res, errors.unauthorized());
      return null;
    }
    return reader;
  }

  const idle: ReusableServer[] = [];
  function serverFor(reader: Reader): ReusableServer {
    const reused = idle.pop();
    if (reused) {
      reused.reader = reader;
      return reused;
    }
    const fresh: ReusableServer = { server: undefined as unknown as McpServer, reader, gone: false };
    fresh.server = createMcpServer(core, () => fresh.reader, () => fresh.gone);
    return fresh;
  }

  async function serveMcp(req: IncomingMessage, res: ServerResponse, reader: Reader): Promise<void> {
    const body = await readBody(req);
    if (body === null) return sendError(res, errors.bodyTooLarge(MCP.bodyBytes));
    // Parsed here when it parses (the SDK would read it again through a web stream); else the SDK answers the parse error.
    const text = body.toString('utf8');
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      parsedBody = undefined;
    }
    if (Array.isArray(parsedBody)) {
      // The SDK's JSON mode answers a batch once every request in it has answered: a request
      // cancelled in the same batch never does (the POST hangs), and a repeated id loses an answer.
      res.writeHead(400, JSON_HEADERS).end(JSON.stringify({ jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: BATCH_REFUSED }, id: null }));
      return;
    }
    const entry = serverFor(reader);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    let answered = false;
    res.on('finish', () => (answered = true));
    res.on('close', () => {
      if (!answered) entry.gone = true;
      // In JSON mode the answer goes out once every handler of the request has answered.
      entry.server.close().then(
        () => answered && idle.length < IDLE_SERVERS && idle.push(entry),
        () => {},
      );
    });
    await entry.server.connect(transport);
    screenToolCalls(transport);
    const response = await transport.handleRequest(webRequest(req, parsedBody === undefined ? text : null), { parsedBody });
    await writeResponse(res, response);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === HEALTH_PATH) {
      if (req.method !== 'GET') return sendError(res, errors.methodNotAllowed());
      return serveHealth(res);
    }
    if (path !== MCP_PATH) return sendError(res, errors.notFound());
    const origin = req.headers.origin;
    const allowedOrigin = origin !== undefined && config.corsOrigins.includes(origin);
    if (allowedOrigin) {
      // A page of a listed origin reads every answer, errors included, as on the read API.
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', CORS.exposedHeaders);
      res.setHeader('Vary', 'Origin');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] === 'POST') return sendPreflight(res);
    }
    // Stateless Streamable HTTP: no session to resume (GET) or end (DELETE).
    if (req.method !== 'POST') return sendError(res, errors.mcpPostOnly(MCP_PATH));
    // The transport's rule against DNS rebinding: a browser page (it sends Origin) of an origin not allowed is refused.
    if (origin !== undefined && !allowedOrigin) return sendError(res, errors.originRefused());
    const reader = admit(req, res);
    if (reader === null) return;
    await serveMcp(req, res, reader);
  }

  const http: Server = createServer((req, res) => {
    inFlight++;
    res.on('close', () => inFlight--);
    handle(req, res).catch((error) => {
      // A client that hangs up while its body is still coming is no fault of ours.
      if (req.destroyed && (error as { code?: unknown }).code === 'ECONNRESET') log.info('mcp client left before its request was read');
      else log.error('mcp request failed', describeError(error));
      if (!res.headersSent) sendError(res, errors.internal());
      else res.destroy();
    });
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        http.once('error', (error) => reject(new Error(`could not listen on ${host}:${port} (SERVICE_MCP_PORT): ${error.message}`)));
        http.listen(port, host, () => {
          const address = http.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    stopListening() {
      http.close();
      http.closeIdleConnections();
    },
    get inFlight() {
      return inFlight;
    },
  };
}
