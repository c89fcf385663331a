// Who is signed in, for this browser tab only: the bearer token lives in
// sessionStorage (never a URL, a cookie or localStorage), so closing the tab
// signs out. The picked user is kept beside it.

const TOKEN_KEY = 'healthd.token';
const USER_KEY = 'healthd.user';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(USER_KEY);
  },
  user: (): string | null => sessionStorage.getItem(USER_KEY),
  pickUser(userId: string | null): void {
    if (userId) sessionStorage.setItem(USER_KEY, userId);
    else sessionStorage.removeItem(USER_KEY);
  },
};
