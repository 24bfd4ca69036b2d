import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { pairKey, type Counter } from '../middleware/rateLimit.ts';
import { CODE_REQUESTER_COOKIE, readCookie, writeCookie } from './cookies.ts';
import type { AppContext } from '../context.ts';

/**
 * Failures on one account from anywhere never lock it (anyone could aim that at a customer):
 * past a threshold they slow every password attempt on it, as OWASP's authentication
 * guidance suggests. Guessing from one address is stopped by the per-pair limit instead.
 */
export const ACCOUNT_SLOWDOWN_AFTER = 10;
const SLOWDOWN_STEP_MS = 200;
const SLOWDOWN_MAX_MS = 2000;

/** How long an attempt on an account with `failures` recent failures waits before it is checked. */
export function slowdownMs(failures: number): number {
  const excess = failures - ACCOUNT_SLOWDOWN_AFTER;
  return excess <= 0 ? 0 : Math.min(SLOWDOWN_MAX_MS, excess * SLOWDOWN_STEP_MS);
}

/** Waits as long as the account's recent failures ask for (the same for unknown emails). */
export async function slowDownForAccount(failures: Counter, email: string): Promise<void> {
  const ms = slowdownMs(await failures.peek(email));
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

/** The budget key of an email as spent from this request's address. */
export function accountPair(ctx: AppContext, who: string): string {
  return pairKey(who, ctx.ip);
}

/**
 * The hash of this browser's code-requester cookie, creating the cookie when absent. An
 * emailed code is usable only by the browser that asked for it (core/db/codes.ts).
 */
export function requesterFor(ctx: AppContext, production: boolean): string {
  let token = readCookie(ctx, CODE_REQUESTER_COOKIE, { production });
  if (!token) {
    token = randomToken();
  }
  // Renewed on every send, so it outlives the newest code.
  writeCookie(ctx, CODE_REQUESTER_COOKIE, { production }, token);
  return hashToken(token);
}

/** The hash of this browser's code-requester cookie, or null when it has none. */
export function existingRequester(ctx: AppContext, production: boolean): string | null {
  const token = readCookie(ctx, CODE_REQUESTER_COOKIE, { production });
  return token ? hashToken(token) : null;
}
