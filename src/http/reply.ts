// Writes a whole reply in one corked batch, and never touches a response whose
// client is gone (uWS aborts the process on that).
import type { HttpResponse } from './uws.js';
import type { ResponseState } from './stream-sink.js';

const REASONS: Record<number, string> = {
  200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 429: 'Too Many Requests', 500: 'Internal Server Error',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export const statusLine = (status: number): string => `${status} ${REASONS[status] ?? ''}`.trim();

export function writeHead(res: HttpResponse, status: number, headers: Record<string, string>): void {
  res.writeStatus(statusLine(status));
  for (const name in headers) res.writeHeader(name, headers[name]);
}

export function sendWhole(
  res: HttpResponse,
  state: ResponseState,
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array,
  closeConnection = false,
): void {
  if (state.aborted || state.done) return;
  state.done = true;
  res.cork(() => {
    writeHead(res, status, headers);
    res.end(body, closeConnection);
  });
}
