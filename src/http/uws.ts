// The only module that loads uWebSockets.js. The npm alias silently falls back
// to a slow pure-JS server when its native binary does not load; we load the
// binary ourselves and refuse to start without it unless explicitly allowed.
import { createRequire } from 'node:module';
import type * as UwsModule from 'uWebSockets.js';

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
