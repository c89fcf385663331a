// Renders /docs: a self-contained HTML reference (no external assets, no
// script) built from the OpenAPI document, so the page and /openapi.json can
// never disagree. The rules every route shares (conventions, authentication,
// errors, limits…) come first and are linked from the contents at the top;
// each operation then shows its parameters, every media type it answers with
// (fields and a trimmed example each) and an example request. Every section
// links back to the top. Wide tables and examples scroll inside themselves,
// so a 390 px phone never scrolls the page sideways.
import { escapeHtml, scrollingTable } from './html.js';
import type { DocsSection } from './sections.js';

type Json = Record<string, any>;

const backToTop = '<p class="top"><a href="#top">↑ back to top</a></p>';

function resolve(schema: Json, doc: Json): Json {
  if (schema?.$ref) return doc.components.schemas[String(schema.$ref).split('/').pop()!];
  return schema;
}

function typeName(schema: Json, doc: Json): string {
  if (!schema) return '';
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) {
    const parts = (schema.anyOf as Json[]).map((s) => typeName(s, doc));
    return parts.every((p) => p.startsWith('"')) ? `one of ${parts.join(', ')}` : parts.join(' | ');
  }
  if (schema.type === 'array') {
    if (schema.prefixItems) return `[${(schema.prefixItems as Json[]).map((s) => typeName(s, doc)).join(', ')}]`;
    return `array of ${typeName(schema.items, doc)}`;
  }
  if (schema.type === 'integer') return schema['x-epoch-ms'] ? 'int64 (epoch ms)' : 'int64';
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const values = schema.additionalProperties as Json;
    return Object.keys(values).length === 0 ? 'object' : `object of ${typeName(values, doc)}`;
  }
  return `${schema.type ?? 'any'}${schema.format ? ` (${schema.format})` : ''}`;
}

function bounds(schema: Json): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`max ${schema.maximum}`);
  if (schema['x-clamp'] !== undefined) parts.push(`larger values are clamped to ${schema['x-clamp']}`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join('; ');
}

/** The object whose fields a property's value has: itself, its array's items, or a map's values. */
function fieldsOf(prop: Json, doc: Json): { schema: Json; ref?: string } | undefined {
  for (const candidate of [prop, prop.items, prop.additionalProperties, ...(prop.anyOf ?? [])]) {
    if (!candidate || typeof candidate !== 'object') continue;
    const resolved = resolve(candidate, doc);
    if (resolved?.properties && Object.keys(resolved.properties).length > 0) return { schema: resolved, ref: candidate.$ref };
  }
  return undefined;
}

/** The fields of an object schema as a table (nested objects in <details>); '' for none. */
function fieldsTable(schema: Json, doc: Json, seen = new Set<string>()): string {
  const resolved = resolve(schema, doc);
  if (!resolved?.properties) return '';
  const required = new Set<string>(resolved.required ?? []);
  const rows = Object.entries(resolved.properties as Record<string, Json>).map(([name, prop]) => {
    const inner = fieldsOf(prop, doc);
    const nested = inner && (!inner.ref || !seen.has(inner.ref)) ? fieldsTable(inner.schema, doc, new Set([...seen, ...(inner.ref ? [inner.ref] : [])])) : '';
    const description = resolve(prop, doc)?.description ?? prop.description ?? '';
    return [
      `<code>${escapeHtml(name)}</code>${required.has(name) ? '' : ' <small>(absent when no data)</small>'}`,
      escapeHtml(typeName(prop, doc)),
      `${escapeHtml(description)}${nested ? `<details><summary>fields</summary>${nested}</details>` : ''}`,
    ];
  });
  return scrollingTable(['field', 'type', 'notes'], rows);
}

const exampleText = (example: unknown): string => (typeof example === 'string' ? example : JSON.stringify(example, null, 2));

function responsesHtml(op: Json, doc: Json): string {
  return Object.entries(op.responses as Record<string, Json>)
    .map(([status, response]) => {
      const headers = response.headers ? ` Headers: ${Object.keys(response.headers).map((h) => `<code>${escapeHtml(h)}</code>`).join(', ')}.` : '';
      const success = Number(status) < 300;
      const media = Object.entries((response.content ?? {}) as Record<string, Json>).map(([type, body]) => {
        if (!success) return `<code>${escapeHtml(type)}</code>`;
        const fields = body.schema ? fieldsTable(body.schema, doc) : '';
        const example = body.example === undefined ? '' : `<details><summary>example</summary><pre>${escapeHtml(exampleText(body.example))}</pre></details>`;
        return `<div class="media"><code>${escapeHtml(type)}</code>${fields}${example}</div>`;
      });
      const inline = success ? '' : `${media.join(', ')} `;
      return `<li><b>${status}</b> ${inline}${escapeHtml(response.description)}${headers}${success ? media.join('') : ''}</li>`;
    })
    .join('');
}

function operationHtml(path: string, op: Json, doc: Json): string {
  const params = (op.parameters as Json[]).map((p) => [
    `<code>${escapeHtml(p.name)}</code>`,
    p.in,
    p.required ? 'yes' : 'no',
    escapeHtml(typeName(p.schema, doc)),
    escapeHtml(bounds(p.schema)),
    escapeHtml(p.description),
  ]);
  const sample = (op['x-codeSamples'] as Json[] | undefined)?.[0]?.source;
  return `<section id="${escapeHtml(op.operationId)}"><h2><span class="m">GET</span> <code>${escapeHtml(path)}</code></h2>
<p><b>${escapeHtml(op.summary)}</b> — operationId <code>${escapeHtml(op.operationId)}</code>; ${op.security.length ? 'needs the bearer token' : 'no token needed'}.</p>
<p>${escapeHtml(op.description)}</p>
${params.length ? `<h3>Parameters</h3>${scrollingTable(['name', 'in', 'required', 'type', 'bounds', 'notes'], params)}` : '<p>No parameters.</p>'}
${sample ? `<h3>Example request</h3><pre>${escapeHtml(sample)}</pre>` : ''}
<h3>Responses</h3><ul>${responsesHtml(op, doc)}</ul>${backToTop}</section>`;
}

const slug = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

const STYLE = `*{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em;color:#222;overflow-wrap:break-word}
code{font:13px ui-monospace,monospace;background:#f3f3f3;padding:0 3px;overflow-wrap:anywhere}
pre{font:13px/1.4 ui-monospace,monospace;background:#f6f6f6;padding:8px;overflow-x:auto;max-width:100%;margin:.5em 0}
pre code{background:none;padding:0}
.scroll{overflow-x:auto;max-width:100%;margin:.5em 0}
table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}th{background:#fafafa}
td code{overflow-wrap:normal;white-space:nowrap}
section{border-top:1px solid #ccc;margin-top:2em}h2 code{font-size:.9em}.m{background:#2a6;color:#fff;padding:0 6px;border-radius:3px;font-size:13px}
details{margin-top:4px}.media{margin:.4em 0 .8em}.sub{color:#555;margin-top:-.6em}.top{font-size:13px;text-align:right}
nav ul{columns:2 16em;padding-left:1.2em}ul{padding-left:1.2em}
@media (max-width:600px){body{padding:.6em}h1{font-size:1.5em}}`;

export function renderDocsPage(doc: Json, sections: readonly DocsSection[]): string {
  const operations = Object.entries(doc.paths as Record<string, Json>).map(([path, item]) => operationHtml(path, item.get, doc));
  const routeRows = Object.entries(doc.paths as Record<string, Json>).map(([path, item]) => [
    `<a href="#${escapeHtml(item.get.operationId)}"><code>${escapeHtml(path)}</code></a>`,
    escapeHtml(item.get.summary),
    item.get.security.length ? 'token' : '—',
  ]);
  const shared = sections.map((s) => ({ ...s, id: slug(s.title) }));
  const contents = [...shared.map((s) => `<li><a href="#${s.id}">${escapeHtml(s.title)}</a></li>`), '<li><a href="#routes">Routes</a></li>'].join('');
  const sharedHtml = shared.map((s) => `<section id="${s.id}"><h2>${escapeHtml(s.title)}</h2>${s.html}${backToTop}</section>`).join('');
  const openapi = String(doc.openapi).split('.').slice(0, 2).join('.');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>healthd API reference · API version ${escapeHtml(doc.info.version)} · OpenAPI ${escapeHtml(openapi)}</title>
<style>${STYLE}</style></head>
<body><header id="top"><h1>healthd API reference</h1><p class="sub">API version ${escapeHtml(doc.info.version)} · OpenAPI ${escapeHtml(openapi)}</p></header>
<p>${escapeHtml(doc.info.description)}</p>
<p>The machine-readable description is at <a href="/openapi.json"><code>/openapi.json</code></a>.</p>
<nav aria-label="Contents"><h2>Contents</h2><ul>${contents}</ul></nav>
${sharedHtml}
<section id="routes"><h2>Routes</h2>${scrollingTable(['path', 'what', 'auth'], routeRows)}${backToTop}</section>
${operations.join('\n')}</body></html>`;
}
