// Renders /docs: a self-contained HTML reference (no external assets) built from
// the OpenAPI document, so the page and /openapi.json can never disagree.
import type { DocsSection } from './sections.js';

type Json = Record<string, any>;

const escapeHtml = (text: unknown): string =>
  String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

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
  if (schema.type === 'integer') return 'int64';
  if (schema.type === 'object' && schema.patternProperties) return `object of ${typeName(Object.values(schema.patternProperties)[0] as Json, doc)}`;
  return `${schema.type ?? 'any'}${schema.format ? ` (${schema.format})` : ''}`;
}

function bounds(schema: Json): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`max ${schema.maximum}${schema['x-clamp'] ? ' (larger values are clamped)' : ''}`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join('; ');
}

function fieldsTable(schema: Json, doc: Json, seen = new Set<string>()): string {
  const resolved = resolve(schema, doc);
  if (!resolved?.properties) return '';
  const required = new Set<string>(resolved.required ?? []);
  const rows = Object.entries(resolved.properties as Record<string, Json>).map(([name, prop]) => {
    const inner = resolve(prop.type === 'array' && prop.items ? prop.items : prop, doc);
    const ref = (prop.$ref ?? prop.items?.$ref) as string | undefined;
    const nested = inner?.properties && (!ref || !seen.has(ref)) ? fieldsTable(inner, doc, new Set([...seen, ...(ref ? [ref] : [])])) : '';
    const description = resolve(prop, doc)?.description ?? prop.description ?? '';
    return `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? '' : ' <small>(absent when no data)</small>'}</td><td>${escapeHtml(typeName(prop, doc))}</td><td>${escapeHtml(description)}${nested ? `<details><summary>fields</summary>${nested}</details>` : ''}</td></tr>`;
  });
  return `<table><tr><th>field</th><th>type</th><th>notes</th></tr>${rows.join('')}</table>`;
}


export function renderDocsPage(doc: Json, sections: readonly DocsSection[]): string {
  const operations = Object.entries(doc.paths as Record<string, Json>).map(([path, item]) => {
    const op = item.get as Json;
    const params = (op.parameters as Json[])
      .map(
        (p) =>
          `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(typeName(p.schema, doc))}</td><td>${escapeHtml(bounds(p.schema))}</td><td>${escapeHtml(p.description)}</td></tr>`,
      )
      .join('');
    const responses = Object.entries(op.responses as Record<string, Json>)
      .map(([status, response]) => {
        const content = response.content ? (Object.entries(response.content)[0] as [string, Json]) : undefined;
        const headers = response.headers ? ` Headers: ${Object.keys(response.headers).map((h) => `<code>${escapeHtml(h)}</code>`).join(', ')}.` : '';
        const schema = content?.[1].schema;
        const table = schema && Number(status) < 300 ? fieldsTable(schema, doc) : '';
        return `<li><b>${status}</b> ${content ? `<code>${escapeHtml(content[0])}</code> ` : ''}${escapeHtml(response.description)}${headers}${table}</li>`;
      })
      .join('');
    return `<section id="${escapeHtml(op.operationId)}"><h2><span class="m">GET</span> <code>${escapeHtml(path)}</code></h2>
<p><b>${escapeHtml(op.summary)}</b> — operationId <code>${escapeHtml(op.operationId)}</code>; ${op.security.length ? 'needs the bearer token' : 'no token needed'}.</p>
<p>${escapeHtml(op.description)}</p>
${params ? `<h3>Parameters</h3><table><tr><th>name</th><th>in</th><th>required</th><th>type</th><th>bounds</th><th>notes</th></tr>${params}</table>` : '<p>No parameters.</p>'}
<h3>Responses</h3><ul>${responses}</ul></section>`;
  });
  const toc = Object.entries(doc.paths as Record<string, Json>)
    .map(([path, item]) => `<li><a href="#${escapeHtml(item.get.operationId)}"><code>${escapeHtml(path)}</code></a></li>`)
    .join('');
  const extra = sections.map((s) => `<section><h2>${escapeHtml(s.title)}</h2>${s.html}</section>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>healthd API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}code{font:13px ui-monospace,monospace;background:#f3f3f3;padding:0 3px}
table{border-collapse:collapse;margin:.5em 0;font-size:14px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}th{background:#fafafa}
section{border-top:1px solid #ccc;margin-top:2em}.m{background:#2a6;color:#fff;padding:0 6px;border-radius:3px;font-size:13px}details{margin-top:4px}</style></head>
<body><h1>healthd API reference <small>v1 (OpenAPI ${escapeHtml(doc.info.version)})</small></h1>
<p>${escapeHtml(doc.info.description)}</p>
<p>The machine-readable description is at <a href="/openapi.json"><code>/openapi.json</code></a>.</p>
<h2>Routes</h2><ul>${toc}</ul>${operations.join('')}${extra}</body></html>`;
}
