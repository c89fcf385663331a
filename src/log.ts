// Structured log lines on stderr. Callers pass facts an operator needs (route,
// request id, error); never tokens, query values or health data.
type Fields = Record<string, unknown>;

function write(level: string, message: string, fields?: Fields): void {
  const line: Fields = { time: new Date().toISOString(), level, msg: message, ...fields };
  process.stderr.write(JSON.stringify(line) + '\n');
}

export const log = {
  info: (message: string, fields?: Fields) => write('info', message, fields),
  warn: (message: string, fields?: Fields) => write('warn', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};

/** What of an error is safe and useful in a log line. */
export function describeError(error: unknown): Fields {
  if (error instanceof Error) {
    const pgCode = (error as { code?: unknown }).code;
    return { error: error.message, ...(typeof pgCode === 'string' ? { code: pgCode } : {}), stack: error.stack?.split('\n').slice(1, 4).join(' | ') };
  }
  return { error: String(error) };
}
