/**
 * When an account's owner is mailed about what someone else did with it. Each kind of warning
 * goes at most once per OWNER_WARNING_WINDOW_SECONDS, however many requests race to send it
 * (core/db/ownerWarnings.ts claims it in one statement).
 */

export const OWNER_WARNING_KINDS = ['password-known', 'password-guessed'] as const;
/** `password-known`: right password, no second factor; `password-guessed`: wrong current passwords typed in a session. */
export type OwnerWarningKind = (typeof OWNER_WARNING_KINDS)[number];

/** The least time between two warnings of one kind to one owner, and the window attempts are counted in. */
export const OWNER_WARNING_WINDOW_SECONDS = 3600;

/**
 * Wrong current passwords typed into "change password" on one account (any session, any
 * address) within the window before its owner is mailed: someone is signed in as them and
 * does not know the password.
 */
export const WRONG_CURRENT_PASSWORDS_BEFORE_WARNING = 5;

export function shouldWarnOfPasswordGuesses(wrongInWindow: number): boolean {
  return wrongInWindow >= WRONG_CURRENT_PASSWORDS_BEFORE_WARNING;
}

/**
 * Sign-ins with the right password that did not finish the second step (no code given, or only
 * wrong ones), started within the window from addresses the owner has never had a session at,
 * before the owner is told someone has their password. The sign-in that makes the count is one
 * of them as it starts: waiting for it to expire would only give the password's holder more tries.
 */
export const UNFINISHED_SIGN_INS_BEFORE_WARNING = 3;

export function shouldWarnOfUnfinishedSignIns(unfinishedInWindow: number): boolean {
  return unfinishedInWindow >= UNFINISHED_SIGN_INS_BEFORE_WARNING;
}
