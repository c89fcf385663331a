// Strict query-string parsing: every name keeps all its values (so repeated
// parameters can be refused), percent-encoding must decode to valid UTF-8,
// and NUL is refused. `+` means space, as in HTML forms.
import { errors } from '../errors.js';

export type RawQuery = Map<string, string[]>;

/** Parameters as the parsers read them (src/params/parse.ts): a query's, or a path's. */
export type Params = ReadonlyMap<string, readonly string[]>;

/** What is said of a value holding NUL, which PostgreSQL text cannot hold (the tools say it of their inputs too). */
export const NO_NUL = 'must not contain a NUL character';
/** What is said of a value that is empty or spaces alone (the tools say it of their names too). */
export const NOT_EMPTY = 'must not be empty';

function decode(component: string, what: string): string {
  // Bytes that are not UTF-8 reach us as U+FFFD (uWS decodes the URL); one that was sent percent-encoded (%EF%BF%BD) is valid.
  if (component.includes('\uFFFD')) throw errors.badRequest(`${what} is not valid UTF-8`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    throw errors.badRequest(`${what} is not valid percent-encoded UTF-8`);
  }
  if (decoded.includes('\u0000')) throw errors.badRequest(`${what} ${NO_NUL}`);
  return decoded;
}

export function parseQueryString(queryString: string): RawQuery {
  const query: RawQuery = new Map();
  if (!queryString) return query;
  for (const pair of queryString.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    const name = decode(rawName, 'a parameter name');
    const value = decode(rawValue, `parameter ${name.length <= 40 ? name : 'value'}`);
    const values = query.get(name);
    if (values) values.push(value);
    else query.set(name, [value]);
  }
  return query;
}
