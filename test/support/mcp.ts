// The MCP SDK's own client against the real server: over Streamable HTTP with
// a bearer token, or over stdio by launching the stdio entry. Tool answers
// are parsed here; a tool error (isError) is returned as its text.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function connectHttp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'healthd-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.content.length, 1, `${name}: one content item`);
  const [item] = result.content;
  assert.equal(item.type, 'text');
  return { isError: result.isError === true, text: (item as { text: string }).text };
}

/** A tool's JSON answer; fails the test on a tool error. */
export async function toolJson<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const { isError, text } = await call(client, name, args);
  assert.equal(isError, false, `${name} ${JSON.stringify(args)} answered an error: ${text}`);
  return JSON.parse(text) as T;
}

/** A tool's text answer (the summary's markdown); fails the test on a tool error. */
export async function toolText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const { isError, text } = await call(client, name, args);
  assert.equal(isError, false, `${name} answered an error: ${text}`);
  return text;
}

/** A tool error's message; fails the test when the tool answered data. */
export async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const { isError, text } = await call(client, name, args);
  assert.equal(isError, true, `${name} ${JSON.stringify(args)} should have been refused, answered ${text.slice(0, 200)}`);
  return text;
}
