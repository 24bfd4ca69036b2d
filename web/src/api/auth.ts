import { useApi } from './swr.ts';
import { clearAllStored, clearLogin, writeStored } from '../storage.ts';
import { api } from './fetcher.ts';
import { updateSessionUser, type SessionUser } from './session.ts';
import { sessionBegan, sessionLeft } from './sessionEnded.ts';

/** The account calls of spec §7 the pages share, and what a login or logout changes in the SPA. */

export type TwoFactorRequired = { twoFactorRequired: true; message: string };
/** What every login path answers: the session user, or a request for the second factor. */
export type LoginReply = SessionUser | TwoFactorRequired;

export function needsTwoFactor(reply: LoginReply): reply is TwoFactorRequired {
  return 'twoFactorRequired' in reply && reply.twoFactorRequired === true;
}

/**
 * After any successful login: the spec's browser values (display caches only, spec §3) and
 * the session everyone reads, without another round trip.
 */
export async function rememberLogin(user: SessionUser): Promise<void> {
  writeStored({
    isLoggedIn: true,
    email: user.email,
    name: user.name,
    phone: user.phone ?? null,
    hasPlan: user.hasPlan,
  });
  sessionBegan();
  updateSessionUser(user);
}

/** After logout or deletion: forget the session here too (`everything` also clears all stored data). */
export async function forgetLogin(options: { everything?: boolean } = {}): Promise<void> {
  sessionLeft();
  if (options.everything) clearAllStored();
  else clearLogin();
  updateSessionUser(null);
}

/**
 * Ends the session on the server, then forgets it here (`everything`: every stored choice too).
 * When the server was not told, it throws and forgets nothing: the session cookie, which only the
 * server can clear, would still sign this browser in (a shared computer stays signed in).
 */
export async function logOut(options: { everything?: boolean } = {}): Promise<void> {
  await api('/auth/logout', { method: 'POST' });
  await forgetLogin(options);
}

/** The second step of a login with two-factor on. */
export function sendSecondFactor(code: string): Promise<SessionUser> {
  return api<SessionUser>('/auth/two-factor', { body: { code } });
}

/** How "Continue with Google" is set up here (`mode: 'off'`: the button is hidden). */
export type GoogleConfig = {
  mode: 'oidc' | 'off';
  clientId: string | null;
  authorizeUrl: string | null;
};

/** Asked once per page load: it changes only with the server's configuration. */
export function useGoogleConfig() {
  return useApi<GoogleConfig>('/auth/google/config', {
    revalidateOnFocus: false,
    revalidateIfStale: false,
  });
}

export type TwoFactorStatus = { enabled: boolean; recoveryCodesLeft: number };

/** Whether two-factor sign-in is on, and how many recovery codes are left; `mutate()` after a change. */
export function useTwoFactorStatus() {
  return useApi<TwoFactorStatus>('/user/two-factor');
}
