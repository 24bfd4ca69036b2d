/**
 * Where a customer was going when they were asked to sign in, and what they had chosen on the
 * way (a plan and hours, or a trial). Both live in sessionStorage for this tab only, so they
 * survive the login page, registration and its code step, a reload, and Google's redirect.
 */

const RETURN_KEY = 'returnTo';
const CHOICE_KEY = 'pendingChoice';

/**
 * `path` when it is a path on this site ("/dashboard?x=1"), else null: never another origin
 * ("//evil.example", "https://…", "/\\evil.example"), never a login page (a loop).
 */
export function safeReturnPath(path: string | null | undefined): string | null {
  if (!path || path.length > 512) return null;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return null;
  // Control characters or backslashes could be read as another host by some parsers.
  if ([...path].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\\')) return null;
  let url: URL;
  try {
    url = new URL(path, 'https://legend.invalid');
  } catch {
    return null;
  }
  if (url.origin !== 'https://legend.invalid') return null;
  if (['/login', '/register', '/register/otp', GOOGLE_CALLBACK].includes(url.pathname)) return null;
  return url.pathname + url.search + url.hash;
}

const GOOGLE_CALLBACK = '/auth/google/callback';

function session(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Remembers where to go after signing in (ignored unless a safe path). */
export function rememberReturnTo(path: string | null | undefined): void {
  const safe = safeReturnPath(path);
  try {
    if (safe) session()?.setItem(RETURN_KEY, safe);
  } catch {
    // without storage the customer lands on the home page, as before
  }
}

export function forgetReturnTo(): void {
  try {
    session()?.removeItem(RETURN_KEY);
  } catch {
    // nothing stored
  }
}

/** Where to go now that the customer is signed in: the remembered path (once), else `fallback`. */
export function takeReturnTo(fallback = '/'): string {
  let stored: string | null;
  try {
    stored = session()?.getItem(RETURN_KEY) ?? null;
    session()?.removeItem(RETURN_KEY);
  } catch {
    stored = null;
  }
  return safeReturnPath(stored) ?? fallback;
}

/** The login address that comes back to `path` afterwards. */
export function loginPathFor(path: string): string {
  const safe = safeReturnPath(path);
  return safe ? `/login?next=${encodeURIComponent(safe)}` : '/login';
}

/**
 * The login address for the page open now, remembered as where to come back to: what a signed-in
 * page that finds nobody signed in (a 401) sends the customer to.
 */
export function loginPathForHere(): string {
  const here = window.location.pathname + window.location.search + window.location.hash;
  rememberReturnTo(here);
  return loginPathFor(here);
}

/** A choice made before signing in. */
export type PendingChoice =
  { kind: 'plan'; planId: string; hours: number } | { kind: 'trial'; planId: string };

export function rememberChoice(choice: PendingChoice): void {
  try {
    session()?.setItem(CHOICE_KEY, JSON.stringify(choice));
  } catch {
    // the choice is simply made again
  }
}

/** The choice made before signing in, if it is of `kind` (kept until `forgetChoice`). */
export function pendingChoice<K extends PendingChoice['kind']>(
  kind: K,
): Extract<PendingChoice, { kind: K }> | null {
  try {
    const raw = session()?.getItem(CHOICE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<PendingChoice>;
    if (value.kind !== kind || typeof value.planId !== 'string') return null;
    if (value.kind === 'plan' && typeof value.hours !== 'number') return null;
    return value as Extract<PendingChoice, { kind: K }>;
  } catch {
    return null;
  }
}

export function forgetChoice(): void {
  try {
    session()?.removeItem(CHOICE_KEY);
  } catch {
    // nothing stored
  }
}
