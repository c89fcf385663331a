// Bearer-token check in constant time (both sides hashed to equal length
// before timingSafeEqual), and the client address the throttle keys on.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export function makeTokenCheck(token: string): (authorization: string) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^bearer[ ]+(\S+)[ ]*$/i.exec(authorization);
    const presented = digest(match ? match[1] : '');
    return timingSafeEqual(presented, expected) && match !== null;
  };
}

/** The socket's address, or the last X-Forwarded-For entry (the one our proxy appended) when trusted. */
export function clientAddress(socketAddress: string, forwardedFor: string, trustProxyHeaders: boolean): string {
  if (trustProxyHeaders && forwardedFor) {
    const entries = forwardedFor.split(',');
    const last = entries[entries.length - 1].trim();
    if (last) return last.slice(0, 100);
  }
  return socketAddress;
}
