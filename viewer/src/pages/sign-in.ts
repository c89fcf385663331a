// The sign-in form: the person pastes the bearer token once (the server's
// SERVICE_API_TOKEN, or a per-user read token). It is checked against
// /v1/users before anything else loads; a refusal says so plainly and never
// echoes the token.
import { h, replace } from '../dom.js';

export function signInForm(main: HTMLElement, message: string | null, onToken: (token: string) => void): void {
  const input = h('input', {
    id: 'token', name: 'token', type: 'password', autocomplete: 'current-password', required: true, spellcheck: 'false',
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
    if (token) onToken(token);
  });
  replace(main, form);
  input.focus();
}
