// The sign-in form: the person pastes the bearer token once (the server's
// SERVICE_API_TOKEN, or a per-user read token). It is checked against
// /v1/users before anything else loads; a refusal says so plainly and never
// echoes the token.
import { h, replace } from '../dom.js';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export function signInForm(main: HTMLElement, message: string | null, onToken: (token: string) => void): void {
  const input = h('input', {
    // Not a password to keep: a password manager would save it to disk, where the help text says "this tab only".
    id: 'token', name: 'token', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false',
    'aria-describedby': 'token-help',
  });
  const form = h(
    'form',
    { class: 'card sign-in', id: 'sign-in' },
    h('h1', {}, 'Sign in'),
    h('label', { for: 'token' }, 'Bearer token'),
    input,
    h('p', { id: 'token-help', class: 'muted' },
      'The token npm start printed (or a read token you were given). It is kept in this browser tab only and sent as an Authorization header; closing the tab signs you out.'),
    message ? h('p', { class: 'error', role: 'alert', id: 'sign-in-error' }, message) : null,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    // A token is visible ASCII; pasted from a chat it may carry an invisible or typographic character, which no
    // header can carry (the browser would refuse to send it, and the message would read as the server away).
    if (!VISIBLE_ASCII.test(token)) {
      signInForm(main, 'A token is made of visible ASCII characters only; this one holds another (a space, an invisible character or a typographic quote?). Paste it again.', onToken);
      return;
    }
    onToken(token);
  });
  replace(main, form);
  input.focus();
}
