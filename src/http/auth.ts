// Who may read: the bearer token checked in constant time (timingSafeEqual
// over the secret's length, whatever is presented), the user a reader may
// select, and the client address the failed-auth throttle keys on.
import { timingSafeEqual } from 'node:crypto';
import { errors } from '../errors.js';
import type { Reader } from '../routes/route.js';
import type { HttpResponse } from './uws.js';

/** The token of a bearer `Authorization` header (RFC 6750: the scheme in any case), or null when it presents none. */
export function bearerToken(authorization: string): string | null {
  const match = /^bearer[ ]+(\S+)[ ]*$/i.exec(authorization);
  return match ? match[1] : null;
}

/** The reader a bearer `Authorization` header names, or null when it names none. */
export type ReadAuthenticator = (authorization: string) => Reader | null;

/**
 * Whether a presented token (bearerToken's) is `token`, in time that says
 * nothing of `token` but its length: timingSafeEqual always runs over the
 * secret's bytes, and a token of another length is compared with the secret
 * itself. No hash a request: the check with a one-shot SHA-256 took 1.0 µs
 * of every authenticated request, this one 0.2 (bench/RESULTS.md).
 */
export function makeTokenCheck(token: string): (presented: string | null) => boolean {
  const expected = Buffer.from(token, 'utf8');
  return (presented) => {
    const bytes = Buffer.from(presented ?? '', 'utf8');
    const sameLength = bytes.length === expected.length;
    return timingSafeEqual(sameLength ? bytes : expected, expected) && sameLength && presented !== null;
  };
}

/** SERVICE_API_TOKEN: reads the default user, and anyone with multi-user reads on. */
export function staticReadToken(token: string): ReadAuthenticator {
  const matches = makeTokenCheck(token);
  const reader: Reader = Object.freeze({ boundUser: null });
  return (authorization) => (matches(bearerToken(authorization)) ? reader : null);
}

export interface UserRules {
  defaultUserId: string;
  multiUser: boolean;
}

/** The user a request reads (api.md Authentication 6): `requested` (lowercase uuid) or the default. */
export function selectUser(reader: Reader, requested: string | undefined, rules: UserRules): string {
  if (reader.boundUser !== null) {
    if (requested !== undefined && requested !== reader.boundUser) throw errors.otherUserForbidden();
    return reader.boundUser;
  }
  if (requested === undefined || requested === rules.defaultUserId) return rules.defaultUserId;
  if (!rules.multiUser) throw errors.multiUserDisabled();
  return requested;
}

/** uWS's text of an IPv4 client on a dual-stack socket: the full IPv4-mapped IPv6 form. */
const MAPPED_LONG = /^0000:0000:0000:0000:0000:ffff:([0-9a-f]{4}):([0-9a-f]{4})$/;

/**
 * A socket's address written one way whoever read it: uWS writes IPv6 in
 * full (`0000:…:ffff:7f00:0001`), node compressed with a mapped IPv4 dotted
 * (`::ffff:127.0.0.1`). The failed-auth throttle keys on it across the
 * listeners, so both become the same text: compressed IPv6 (as URLs write
 * it), an IPv4-mapped one as plain IPv4. IPv4 text is kept as it is.
 */
export function canonicalAddress(address: string): string {
  if (!address.includes(':')) return address;
  const long = MAPPED_LONG.exec(address);
  if (long) return dotted(parseInt(long[1], 16), parseInt(long[2], 16));
  let host: string;
  try {
    host = new URL(`http://[${address}]`).hostname.slice(1, -1);
  } catch {
    return address;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  return dotted(parseInt(mapped[1], 16), parseInt(mapped[2], 16));
}

/** An IPv4 address from the two 16-bit groups of its IPv4-mapped IPv6 form. */
const dotted = (high: number, low: number): string => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * A uWS request's client for the failed-auth throttle: the trusted forwarded
 * address, else the socket's. The socket address is a copy out of uWS, so it
 * is read only then; `res` must still be valid (before the request's first
 * await, when the client cannot have gone yet).
 */
export function uwsClientAddress(res: HttpResponse, forwardedFor: string, trustProxyHeaders: boolean): string {
  return clientAddress('', forwardedFor, trustProxyHeaders) || canonicalAddress(Buffer.from(res.getRemoteAddressAsText()).toString());
}

/** The socket's address, or the last X-Forwarded-For entry (the one our proxy appended) when trusted. */
export function clientAddress(socketAddress: string, forwardedFor: string, trustProxyHeaders: boolean): string {
  if (trustProxyHeaders && forwardedFor) {
    const entries = forwardedFor.split(',');
    const last = entries[entries.length - 1].trim();
    if (last) return forwardedAddress(last.slice(0, 100));
  }
  return socketAddress;
}

/**
 * A forwarded entry as the one key its client is: without the port some
 * proxies add (`203.0.113.9:4711`, `[2001:db8::1]:4711`), in the text
 * canonicalAddress gives (an IPv4-mapped address as plain IPv4).
 */
export function forwardedAddress(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed) return canonicalAddress(bracketed[1]);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  return canonicalAddress(withPort ? withPort[1] : entry);
}
