/**
 * A machine step that keeps failing the same way is tried again less and less often: from the
 * poll interval, doubling, with jitter, up to 5 minutes. Its log line is an error the first
 * time and a warning with a count after that; an operator hears of it once it has failed for
 * 5 minutes. AWS throttling slows the whole account down, not one machine: every EC2 step waits.
 *
 * Pure: the worker records each failure as a row (`step_failures`), asks here when the subject
 * may be tried again, and reads the same rows for `/metrics`.
 */
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

export const STEP_BACKOFF_MAX_MS = 5 * 60_000;
/** How long a step fails before an operator is alerted (VM_STUCK_SECONDS was the only signal, at 30). */
export const STEP_ALERT_AFTER_MS = 5 * 60_000;

/** The subject whose failures pace every EC2 step: throttling is counted per account. */
export const ACCOUNT_SUBJECT = 'account';

const THROTTLING = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'EC2ThrottledException',
  'RequestThrottled',
]);

export function isThrottling(code: string): boolean {
  return THROTTLING.has(code);
}

/** A failing step as recorded: what failed, how, how often in a row, since when. */
export type StepFailureFacts = {
  action: string;
  code: string;
  count: number;
  firstAt: Instant;
  nextAt: Instant;
  alertedAt: Instant | null;
};

/**
 * The wait before the n-th retry (n ≥ 1): the poll interval doubled n − 1 times, at most
 * 5 minutes, less a random part of up to half ("equal jitter"), never below the poll interval,
 * so machines failing together do not retry together.
 */
export function backoffDelayMs(count: number, pollMs: number, random: number): number {
  const base = Math.min(STEP_BACKOFF_MAX_MS, pollMs * 2 ** Math.max(0, Math.min(count - 1, 30)));
  const jittered = base / 2 + (Math.min(Math.max(random, 0), 1) * base) / 2;
  return Math.round(Math.max(Math.min(pollMs, STEP_BACKOFF_MAX_MS), jittered));
}

/**
 * A failure recorded on top of the previous one: the same action failing with the same code
 * counts on, anything else starts a new run.
 */
export function nextStepFailure(
  previous: StepFailureFacts | null,
  failure: { action: string; code: string },
  now: Instant,
  pollMs: number,
  random: number,
): { count: number; firstAt: number; nextAt: number; sameRun: boolean } {
  const at = toEpochMs(now);
  const sameRun = previous !== null && previous.action === failure.action && previous.code === failure.code;
  const count = sameRun ? previous.count + 1 : 1;
  return {
    count,
    firstAt: sameRun ? toEpochMs(previous.firstAt) : at,
    nextAt: at + backoffDelayMs(count, pollMs, random),
    sameRun,
  };
}

/** Whether the subject waits now (its next try is later). */
export function backedOff(failure: Pick<StepFailureFacts, 'nextAt'> | null, now: Instant): boolean {
  return failure !== null && toEpochMs(failure.nextAt) > toEpochMs(now);
}

/** The level of a failure's log line: the first is an error, the repeats are warnings with their count. */
export function failureLogLevel(count: number): 'error' | 'warn' {
  return count <= 1 ? 'error' : 'warn';
}

/** Whether the operator alert is due: failing for 5 minutes and not alerted in this run yet. */
export function failureAlertDue(failure: Omit<StepFailureFacts, 'action' | 'code'>, now: Instant): boolean {
  if (toEpochMsOrNull(failure.alertedAt) !== null) return false;
  return toEpochMs(now) - toEpochMs(failure.firstAt) >= STEP_ALERT_AFTER_MS;
}

/** Why a step is backed off, in the words `/metrics` groups them by. */
export const BACKOFF_CAUSES = [
  'throttled',
  'capacity',
  'limit',
  'permission',
  'not-found',
  'incorrect-state',
  'password',
  'launch-budget',
  'network',
  'other',
] as const;
export type BackoffCause = (typeof BACKOFF_CAUSES)[number];

const CAUSE_BY_CODE: Record<string, BackoffCause> = {
  InsufficientInstanceCapacity: 'capacity',
  InsufficientCapacity: 'capacity',
  InsufficientHostCapacity: 'capacity',
  Unsupported: 'capacity',
  VcpuLimitExceeded: 'limit',
  InstanceLimitExceeded: 'limit',
  UnauthorizedOperation: 'permission',
  AccessDenied: 'permission',
  AccessDeniedException: 'permission',
  AuthFailure: 'permission',
  'InvalidInstanceID.NotFound': 'not-found',
  'InvalidSnapshot.NotFound': 'not-found',
  'InvalidVolume.NotFound': 'not-found',
  IncorrectInstanceState: 'incorrect-state',
  IncorrectState: 'incorrect-state',
  PasswordUndecryptable: 'password',
  LaunchBudgetSpent: 'launch-budget',
  ECONNREFUSED: 'network',
  ECONNRESET: 'network',
  ETIMEDOUT: 'network',
  ENOTFOUND: 'network',
  TimeoutError: 'network',
};

export function backoffCauseOf(code: string): BackoffCause {
  if (isThrottling(code)) return 'throttled';
  return CAUSE_BY_CODE[code] ?? 'other';
}
