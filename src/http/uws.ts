// The only module that loads uWebSockets.js. The npm alias silently falls back
// to a slow pure-JS server when its native binary does not load; we load the
// binary ourselves and refuse to start without it unless explicitly allowed.
import { createRequire } from 'node:module';
import type * as UwsModule from 'uWebSockets.js';
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';

const require = createRequire(import.meta.url);

export type Uws = typeof UwsModule;
export type { HttpRequest, HttpResponse, us_listen_socket } from 'uWebSockets.js';

export function loadUws(allowFallback: boolean): { uws: Uws; native: boolean } {
  const binary = `uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    return { uws: require(binary) as Uws, native: true };
  } catch (error) {
    if (!allowFallback) {
      throw new Error(`uWebSockets.js native binary did not load (${binary}: ${(error as Error).message.split('\n')[0]}); set ALLOW_UWS_FALLBACK=true to run on the slow pure-JS fallback`);
    }
    process.env.UWS_USE_FALLBACK = 'true';
    return { uws: require('uWebSockets.js') as Uws, native: false };
  }
}

type ListenCallback = (socket: us_listen_socket | false) => void;
/** The native listen with options, which the typings leave out. */
type ListenWithOptions = (host: string, port: number, options: number, cb: ListenCallback) => void;

/**
 * An app's listening socket: `listen` answers the port (0 picks one); `close`
 * stops accepting connections. uWS listens with SO_REUSEPORT by default, so a
 * second server on a port in use would start and take half its connections:
 * the port is exclusive unless `shared` (SERVICE_SHARE_PORT, several healthd
 * processes spreading one port's connections on purpose).
 */
export function listener(uws: Uws, app: TemplatedApp, shared: boolean): { listen(host: string, port: number): Promise<number>; close(): void } {
  let socket: us_listen_socket | null = null;
  const exclusive = (uws as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;
  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        const done: ListenCallback = (listening) => {
          if (!listening) return reject(new Error(`could not listen on ${host}:${port}${shared ? '' : ' (in use, or not an address of this machine)'}`));
          socket = listening;
          resolve(uws.us_socket_local_port(listening as never));
        };
        if (shared || exclusive === undefined) app.listen(host, port, done);
        else (app.listen as unknown as ListenWithOptions).call(app, host, port, exclusive, done);
      });
    },
    close() {
      if (socket) uws.us_listen_socket_close(socket);
      socket = null;
    },
  };
}
