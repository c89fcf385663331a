// The HTTP ceiling: a uWS server on the same native binary as healthd that
// answers every request with /healthz's body and nothing else — what the
// machine can do over HTTP at the bench's connection count.
// PORT (required) names the port; prints `hello listening on <port>`.
import { loadUws } from '../../src/http/uws.js';

const { uws } = loadUws(false);
const BODY = '{"ok":true,"db":true}';

uws
  .App()
  .any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(BODY);
    });
  })
  .listen('127.0.0.1', Number(process.env.PORT), (socket) => {
    if (!socket) {
      process.stderr.write(`cannot listen on ${process.env.PORT}\n`);
      process.exit(1);
    }
    process.stdout.write(`hello listening on ${process.env.PORT}\n`);
  });

process.on('SIGTERM', () => process.exit(0));
