// Builds the OpenAPI 3.1 document from the route table: every operation, its
// parameters with bounds and enums, its responses and their schemas, and the
// errors each route can give, with the limits as this server is configured.
// /docs renders from this same document.
import type { TObject, TSchema } from '@sinclair/typebox';
import { QUERY_TIMEOUT_MESSAGE, TOKENS_UNCHECKED, TOKENS_UNCHECKED_WHEN } from '../errors.js';
import { FAILED_AUTH, spokenDuration, TOKEN_REFRESH_MS, type Tunables } from '../limits.js';
import { describe, exampleUrl, type Route } from '../routes/route.js';
import { ErrorBody, UserParams } from '../schemas/common.js';

type Json = Record<string, unknown>;

/** A plain JSON Schema: TypeBox's symbols dropped, named schemas turned into $refs. */
function plain(schema: TSchema, components: Record<string, Json>, top = true): Json {
  const id = schema.$id as string | undefined;
  if (id && !top) {
    if (!components[id]) components[id] = plain(schema, components, true);
    return { $ref: `#/components/schemas/${id}` };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    if (key === 'properties' || key === 'patternProperties') {
      const props: Json = {};
      for (const [name, child] of Object.entries(value as Record<string, TSchema>)) props[name] = plain(child, components, false);
      out[key] = props;
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out[key] = plain(value as TSchema, components, false);
    } else if (key === 'anyOf' || key === 'allOf' || key === 'oneOf' || key === 'prefixItems' || (key === 'items' && Array.isArray(value))) {
      out[key === 'items' ? 'prefixItems' : key] = (value as TSchema[]).map((child) => plain(child, components, false));
    } else {
      out[key] = value;
    }
  }
  // TypeBox writes tuples as items+additionalItems (draft 7); 3.1 wants
  // prefixItems. `items: false` after them is exact in 2020-12 but means "no
  // items at all" to the draft-7 validators many tools run (Prism refused every
  // series answer so), so `items` is the union of the positions instead: a
  // draft-7 tool checks each element against it, a 2020-12 one checks the
  // positions, and minItems = maxItems fixes the length for both.
  if (out.prefixItems && 'additionalItems' in out) {
    delete out.additionalItems;
    out.items = unionOf(out.prefixItems as Json[]);
  }
  // Type.Record(String, X) is patternProperties {'^(.*)$': X}: additionalProperties says the same to more tools.
  const patterns = out.patternProperties as Json | undefined;
  if (patterns && Object.keys(patterns).length === 1 && ANY_KEY in patterns && !('properties' in out)) {
    out.additionalProperties = patterns[ANY_KEY];
    delete out.patternProperties;
  }
  if (id && top) components[id] = out;
  return out;
}

const ANY_KEY = '^(.*)$';

/** A schema any of `schemas` satisfies (descriptions dropped): numbers merge into one. */
function unionOf(schemas: readonly Json[]): Json {
  const members: Json[] = [];
  const seen = new Set<string>();
  const add = (schema: Json) => {
    if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).forEach(add);
    const { description: _, ...bare } = schema;
    const kind = bare.type === 'integer' && Object.keys(bare).length === 1 ? { type: 'number' } : bare;
    const key = JSON.stringify(kind);
    if (!seen.has(key)) {
      seen.add(key);
      members.push(kind);
    }
  };
  schemas.forEach(add);
  return members.length === 1 ? members[0] : { anyOf: members };
}

/** A parameter's example value as its schema types it, from the text a URL carries. */
function typedExample(raw: string, schema: TSchema): unknown {
  if (schema.type === 'array') return raw.split(',');
  if (schema.type === 'integer') return Number(raw);
  return raw;
}

function parameters(schema: TObject, location: 'query' | 'path', components: Record<string, Json>, examples: Readonly<Record<string, string>> = {}): Json[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const prop = property as TSchema;
    const parameter: Json = {
      name,
      in: location,
      required: location === 'path' || (required.has(name) && prop.default === undefined),
      description: prop.description,
      schema: plain(prop, components, true),
    };
    if (examples[name] !== undefined) parameter.example = typedExample(examples[name], prop);
    // Generated clients send a list as types=A&types=B (form, exploded: OpenAPI's
    // default), and the server takes that as well as types=A,B.
    if (prop['x-style'] === 'list') Object.assign(parameter, { style: 'form', explode: true });
    return parameter;
  });
}

const errorResponse = (description: string, headers?: Json): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  ...(headers ? { headers } : {}),
});

const header = (description: string, type: 'string' | 'integer' = 'string'): Json => ({ description, schema: { type } });

function commonErrors(route: Route, limits: Tunables): Record<string, Json> {
  const errors: Record<string, Json> = {};
  const hasParams = Object.keys(route.params.properties).length > 0 || route.pathParams !== undefined || route.auth;
  if (hasParams) errors['400'] = errorResponse('A parameter is missing, malformed or out of range; the message names it.');
  if (route.auth) {
    errors['401'] = errorResponse('Bearer token missing or wrong; counts against the failed-authentication limit.', {
      'WWW-Authenticate': header('Bearer'),
    });
    errors['403'] = errorResponse('user names someone other than the default user while multi-user reads are off.');
    errors['429'] = errorResponse(`Too many failed authentications from this address (burst ${FAILED_AUTH.burst}, refill ${FAILED_AUTH.refillPerMinute} per minute).`, {
      'Retry-After': header('Seconds until the next attempt is evaluated.', 'integer'),
    });
    errors['500'] = errorResponse('The query failed. Details are logged on the server and never returned.');
    errors['503'] = errorResponse(`${TOKENS_UNCHECKED_WHEN[0].toUpperCase()}${TOKENS_UNCHECKED_WHEN.slice(1)}; the error says "${TOKENS_UNCHECKED}".`, { 'Retry-After': header(`Seconds to wait: ${TOKEN_REFRESH_MS / 1000}.`, 'integer') });
    if (!route.streams) errors['504'] = errorResponse(`A query ran past its ${spokenDuration(limits.queryTimeoutMs)} limit: ${QUERY_TIMEOUT_MESSAGE}.`);
  }
  return errors;
}

/** The example request of `route` as a curl command against `base` (the token as $TOKEN). */
export function curlCommand(route: Route, base: string): string {
  const url = `${base.replace(/\/$/, '')}${exampleUrl(route)}`;
  // A download (the example's answer is the first 200 documented) is saved under its own name.
  const download = route.responses.find((r) => r.status === 200)?.headers?.['Content-Disposition'] ? '-OJ ' : '';
  return `curl ${download}${route.auth ? '-H "Authorization: Bearer $TOKEN" ' : ''}"${url}"`;
}

export interface ServerUrl {
  url: string;
}

export function buildOpenApi(routes: readonly Route[], limits: Tunables, server: ServerUrl): Json {
  const components: Record<string, Json> = {};
  components.Error = plain(ErrorBody, components, true);
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const responses: Record<string, Json> = { ...commonErrors(route, limits) };
    for (const response of route.responses) {
      const contentType = response.contentType ?? 'application/json';
      const headers = response.headers ? Object.fromEntries(Object.entries(response.headers).map(([name, text]) => [name, header(text)])) : undefined;
      if (response.status >= 400 && !response.schema) {
        responses[String(response.status)] = errorResponse(response.description, headers);
        continue;
      }
      // Several bodies for one status (CSV or JSONL, markdown or JSON) merge into one response.
      const existing = responses[String(response.status)];
      const media: Json = { schema: response.schema ? plain(response.schema, components, false) : { type: 'string' } };
      if (response.example !== undefined) media.example = response.example;
      const content = { [contentType]: media };
      responses[String(response.status)] = existing?.content
        ? {
            ...existing,
            description: `${existing.description} ${response.description}`,
            content: { ...(existing.content as Json), ...content },
          }
        : { description: response.description, ...(headers ? { headers } : {}), content };
    }
    const params = [
      ...(route.pathParams ? parameters(route.pathParams, 'path', components, route.example.path) : []),
      ...parameters(route.params, 'query', components, route.example.query),
      ...(route.auth ? parameters(UserParams, 'query', components) : []),
    ];
    paths[route.path] = {
      get: {
        operationId: route.operationId,
        summary: route.summary,
        description: describe(route.description, limits),
        security: route.auth ? [{ bearer: [] }] : [],
        parameters: params,
        responses,
        // The example request as a command (Redocly and other renderers show x-codeSamples).
        'x-codeSamples': [{ lang: 'Shell', label: 'curl', source: curlCommand(route, server.url) }],
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'healthd',
      version: '1.0.0',
      description:
        'Read-only HTTP/JSON API over the health data a phone synced into a self-hosted server. Timestamps are epoch milliseconds (UTC); ranges are half-open [start, end); calendar days follow the configured time zone; units are canonical per type. Every error from a JSON route is {"error": "<message>"}.',
    },
    servers: [server],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'The static SERVICE_API_TOKEN.' } },
    },
  };
}
