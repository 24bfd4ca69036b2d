/**
 * Limits on emailed codes and second factors follow the asker (a browser, an address), never
 * the target alone: what strangers do to an email address must not refuse its owner.
 *
 * An inbox gets at most 15 code mails in any hour (sign-up codes, login codes
 * and reset links together): a burst of INBOX_BURST, then one each INBOX_INTERVAL_SECONDS. A
 * browser that has signed in to the account before (a known browser) is never refused by that
 * budget; any other browser waits at most INBOX_INTERVAL_SECONDS for the next mail, however many
 * others asked; once strangers have met the budget, new browsers must also solve a
 * proof-of-work puzzle for an hour.
 */

export const INBOX_BURST = 3;
export const INBOX_INTERVAL_SECONDS = 300;
/** How long an account counts as under attack after strangers met its inbox budget. */
export const UNDER_ATTACK_SECONDS = 3600;

/**
 * The next theoretical arrival time of an inbox's budget (generic cell rate) if one more mail
 * were sent now, and whether that is within the burst. Mirrors the SQL that spends it
 * (core/db/codeMailBudgets.ts), which checks and spends in one statement.
 */
export function inboxAfterOneMore(tatMs: number | null, nowMs: number): { tatMs: number; allowed: boolean } {
  const next = Math.max(tatMs ?? nowMs, nowMs) + INBOX_INTERVAL_SECONDS * 1000;
  return { tatMs: next, allowed: next - nowMs <= INBOX_BURST * INBOX_INTERVAL_SECONDS * 1000 };
}

/** Seconds until the inbox budget allows one more mail (0 when it does now); never more than one interval. */
export function inboxRetryAfterSeconds(tatMs: number, nowMs: number): number {
  const { tatMs: next } = inboxAfterOneMore(tatMs, nowMs);
  const wait = next - nowMs - INBOX_BURST * INBOX_INTERVAL_SECONDS * 1000;
  return Math.max(0, Math.ceil(wait / 1000));
}

export type CodeAsker = {
  /** The browser has signed in to this account before (its device cookie is recorded). */
  knownBrowser: boolean;
  /** Strangers met this inbox's budget within UNDER_ATTACK_SECONDS. */
  underAttack: boolean;
  /** The request carries a fresh, valid proof-of-work solution. */
  provedWork: boolean;
};

export type CodeSendStep =
  /** Send without touching the inbox budget's verdict (a known browser: spend if there is any). */
  | 'send-known'
  /** Spend the inbox budget; refuse with its wait when it is spent. */
  | 'spend-inbox'
  /** Ask for a proof-of-work solution first. */
  | 'prove-work';

/** What a request for an emailed code must pass before the mail goes. */
export function codeSendStep(asker: CodeAsker): CodeSendStep {
  if (asker.knownBrowser) return 'send-known';
  if (asker.underAttack && !asker.provedWork) return 'prove-work';
  return 'spend-inbox';
}

/** A person-readable wait: "1 minute", "4 minutes". */
function minutesText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** Said when an inbox has had all the code mails it may get for now. */
export function inboxBusyMessage(retryAfterSeconds: number): string {
  return `Many codes were asked for this email just now. Please try again in ${minutesText(retryAfterSeconds)}.`;
}

export const PROVE_WORK_MESSAGE =
  'Many codes were asked for this email just now, so your browser must first solve a short puzzle. Please try again.';

/** Wrong second-factor codes after the right password, per account, before its owner is mailed. */
export const FAILED_SECOND_STEPS_BEFORE_WARNING = 3;
/** The window those failures are counted in, and the least time between two warnings. */
export const FAILED_SECOND_STEPS_WINDOW_SECONDS = 3600;

/** Whether this failed second step is the one that should warn the owner (exactly the threshold). */
export function shouldWarnOwner(failedSecondStepsInWindow: number): boolean {
  return failedSecondStepsInWindow >= FAILED_SECOND_STEPS_BEFORE_WARNING;
}

export const TWO_FACTOR_MESSAGES = {
  /** The challenge used all its attempts. */
  exhausted:
    'Too many wrong codes for this sign-in, so it was ended. Please sign in again with your password to get five more tries.',
  /** No challenge (never started, expired or finished). */
  expired: 'Your sign-in has expired. Please log in again.',
  /** Too many wrong codes from this browser and address, across sign-ins. */
  tooMany: (retryAfterSeconds: number) =>
    `Too many wrong codes from this browser. Please try again in ${minutesText(retryAfterSeconds)}, or use another device.`,
} as const;
