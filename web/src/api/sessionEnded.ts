import { useSyncExternalStore } from 'react';

/**
 * Whether the session this tab was signed in with has ended on the server (expired, revoked
 * elsewhere, cookies cleared) while a signed-in page was open. One state for the whole app:
 * the fetcher reports a 401 here, the session check reports "nobody", a login or a deliberate
 * logout say what happened; guarded pages (RequireUser) then show "Your session has ended — log
 * in again" and stop acting signed in; swr stops polling (App's `isPaused`).
 */

let believedSignedIn = false;
let ended = false;
/** Why the server signed this device out, when it said (`X-Session-Ended`): only a password change, for now. */
let endedBecause: 'password-changed' | null = null;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

/** The server said why this device's session ended (the fetcher reads it from any answer). */
export function sessionEndedBecause(reason: string): void {
  if (reason !== 'password-changed' || endedBecause === reason) return;
  endedBecause = reason;
  emit();
}

export function sessionEndReason(): 'password-changed' | null {
  return endedBecause;
}

export function useSessionEndReason(): 'password-changed' | null {
  return useSyncExternalStore(onSessionEndedChange, sessionEndReason, sessionEndReason);
}

/** A session is known to be live (a login, or the session check answered a user). */
export function sessionBegan(): void {
  believedSignedIn = true;
  endedBecause = null;
  if (ended) {
    ended = false;
    emit();
  }
}

/** The customer logged out (or deleted the account) on purpose: nothing has "ended" on them. */
export function sessionLeft(): void {
  believedSignedIn = false;
}

/**
 * The server says nobody is signed in. True when this tab believed it was (or already knew it
 * ended): the session ended under it. False for a visitor who never signed in.
 */
export function sessionLost(): boolean {
  if (!believedSignedIn) return ended;
  believedSignedIn = false;
  ended = true;
  emit();
  return true;
}

export function isSessionEnded(): boolean {
  return ended;
}

/** Calls `listener` whenever the state changes; answers the unsubscribe. */
export function onSessionEndedChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSessionEnded(): boolean {
  return useSyncExternalStore(onSessionEndedChange, isSessionEnded, isSessionEnded);
}
