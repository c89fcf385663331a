// A tools/call whose `arguments` is not an object, or without a tool's name.
// The SDK checks a request's shape before any tool sees it and answers such a
// call with JSON-RPC's internal error and zod's raw issues, where a bad input
// should be a tool error naming the problem (README). Screened here, on both
// transports, as each message leaves the transport (after its own checks:
// headers, protocol version) for the server: `null` counts as no arguments
// (taken out of the message), and any other non-object (a list, a string, a
// number) is answered with that tool error through the transport; params
// without a tool's name with JSON-RPC's invalid params (-32602), saying what a
// call holds.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeError, log } from '../log.js';

export const ARGUMENTS_NOT_OBJECT = "arguments must be a JSON object of the tool's inputs by name, or left out";
export const CALL_WITHOUT_NAME = "tools/call needs params holding the tool's name (a string) and its arguments";
/** JSON-RPC's code for a method's invalid params. */
const INVALID_PARAMS = -32602;

/** The tool error answering `message`, or null to hand it on (with `arguments: null` taken out). */
export function screenToolCall(message: unknown): JSONRPCMessage | null {
  if (typeof message !== 'object' || message === null) return null;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return null;
  if (typeof params !== 'object' || params === null || Array.isArray(params) || typeof (params as { name?: unknown }).name !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: CALL_WITHOUT_NAME } };
  }
  if (!('arguments' in params)) return null;
  const call = params as { arguments?: unknown };
  if (call.arguments === null) {
    delete call.arguments;
    return null;
  }
  if (typeof call.arguments === 'object' && !Array.isArray(call.arguments)) return null;
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: ARGUMENTS_NOT_OBJECT }], isError: true } };
}

/** Screens every tools/call `transport` hands its server from now on (call after the server connected to it). */
export function screenToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const screened = screenToolCall(message);
    if (screened === null) deliver?.(message, extra);
    else transport.send(screened).catch((error) => log.error('mcp answer not sent', describeError(error)));
  };
}
