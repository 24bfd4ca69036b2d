/**
 * What may be launched: each plan's warm pool and each customer's plan have a budget of
 * instances per hour (LAUNCH_BUDGET_PER_HOUR), and a pool whose spare failed for a reason that
 * will fail the next one too is put on hold. A Windows GPU launch is billed the moment it
 * starts, so a fault that repeats (a wrong key, a broken image, a missing permission) must cost
 * a few launches, not one every sweep.
 *
 * Pure: `pool-replenish`, the machine lifecycle and `/metrics` read the launch ledger and the
 * holds from rows and ask here; nothing is timed in memory. A hold ends when its backoff has
 * passed (15 minutes, doubling with each hold in a row, up to 4 hours) or at once when an
 * operator acknowledges its alert (`npm run alerts -- ack`).
 */
import { DAY_MS, HOUR_MS, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

const MINUTE_MS = 60_000;

export const POOL_HOLD_FIRST_MS = 15 * MINUTE_MS;
export const POOL_HOLD_MAX_MS = 4 * HOUR_MS;
/** The window a launch budget counts over. */
export const LAUNCH_BUDGET_WINDOW_MS = HOUR_MS;
/**
 * How long a row of the launch ledger (ec2_launches) is kept. The budgets read only the last
 * LAUNCH_BUDGET_WINDOW_MS, and /metrics keeps its counts in totals when a row goes; the rest is
 * an operator's record of what was launched, when and why it failed. 45 days keeps every launch
 * of a calendar month until that month's AWS invoice, issued in the first days of the next, has
 * been checked against it; the hourly housekeeping sweep deletes what is older.
 */
export const LAUNCH_LEDGER_RETENTION_MS = 45 * DAY_MS;

/** The instant before which the launch ledger's rows may go: no budget reads them any more. */
export function launchLedgerPrunableBefore(now: Instant): number {
  return toEpochMs(now) - Math.max(LAUNCH_LEDGER_RETENTION_MS, LAUNCH_BUDGET_WINDOW_MS);
}

/** Launches per hour for each plan's pool and each customer's plan when nothing is configured. */
export const DEFAULT_LAUNCH_BUDGET = 4;

/**
 * Why a spare failed in a way the next one will repeat:
 * - password-undecryptable: EC2's password data does not open with our key (or is malformed);
 * - image-fault: the image does not boot to a password, or EC2 refuses it;
 * - permission-denied: IAM refuses the launch (or passing the instance profile's role);
 * - unhealthy: a machine fresh from the image reports a fault of the image (no licensed driver, no display).
 */
export const POOL_HOLD_CAUSES = [
  'password-undecryptable',
  'image-fault',
  'permission-denied',
  'unhealthy',
] as const;
export type PoolHoldCause = (typeof POOL_HOLD_CAUSES)[number];

/** EC2 error codes that mean the launch itself will fail again the same way. */
const PERMISSION_CODES = new Set(['UnauthorizedOperation', 'AccessDenied', 'AccessDeniedException']);
const IMAGE_CODES = /^(InvalidAMIID\.|InvalidAMIName\.)/;

/** The hold cause of a failed pool launch, or null when waiting (or another subnet) may help. */
export function launchErrorHoldCause(code: string, message = ''): PoolHoldCause | null {
  if (PERMISSION_CODES.has(code)) return 'permission-denied';
  // Passing the instance profile's role is refused as an invalid parameter by EC2.
  if (code === 'InvalidParameterValue' && /iamInstanceProfile/i.test(message)) return 'permission-denied';
  if (IMAGE_CODES.test(code)) return 'image-fault';
  return null;
}

/**
 * Faults a machine fresh from the plan's image reports that are the image's, not its host's: a
 * GPU driver without its licence, no (virtual) display. A host's fault (no GPU answering) is
 * cured by a stop and start and says nothing of the next spare.
 */
export const IMAGE_HEALTH_FAULTS = ['driver-unlicensed', 'no-display'] as const;
/** How long after it first became ready a machine still speaks for its image. */
export const FRESH_FROM_IMAGE_MS = HOUR_MS;

/**
 * The hold cause of a health report: `unhealthy` when a machine made from the plan's image in
 * the last hour reports a fault of the image (its spares would carry it too), else null.
 */
export function healthHoldCause(
  problems: readonly string[],
  machine: { readyAt: Instant | null },
  now: Instant,
): PoolHoldCause | null {
  const ready = toEpochMsOrNull(machine.readyAt);
  if (ready === null || toEpochMs(now) - ready > FRESH_FROM_IMAGE_MS) return null;
  return problems.some((p) => (IMAGE_HEALTH_FAULTS as readonly string[]).includes(p)) ? 'unhealthy' : null;
}

/** A hold as read from its row, with its alert's acknowledgement. */
export type PoolHoldFacts = {
  cause: PoolHoldCause;
  begunAt: Instant;
  until: Instant;
  /** 0 for the first of a run of holds; each next one doubles the wait. */
  level: number;
  /** When an operator acknowledged the hold's alert (it then ends at once). */
  acknowledgedAt: Instant | null;
};

/** How long the hold of this level lasts: 15 minutes, doubling, at most 4 hours. */
export function poolHoldDurationMs(level: number): number {
  return Math.min(POOL_HOLD_MAX_MS, POOL_HOLD_FIRST_MS * 2 ** Math.max(0, Math.min(level, 20)));
}

function acknowledged(hold: PoolHoldFacts): boolean {
  const at = toEpochMsOrNull(hold.acknowledgedAt);
  return at !== null && at >= toEpochMs(hold.begunAt);
}

/**
 * Where a plan's pool stands:
 * - held: no spare is launched until `until`;
 * - probation: the last hold ran out without anyone fixing anything, and no spare has become
 *   ready since: one spare at a time is tried, so a fault still there costs one launch;
 * - open: launch what the pool needs (within the budget).
 */
export type PoolHoldStatus =
  | { kind: 'held'; cause: PoolHoldCause; until: number; reason: string }
  | { kind: 'probation'; cause: PoolHoldCause; reason: string }
  | { kind: 'open'; reason: string };

export function poolHoldStatus(
  latest: PoolHoldFacts | null,
  /** A spare of the plan became ready after the latest hold began. */
  readySince: boolean,
  now: Instant,
): PoolHoldStatus {
  if (!latest) return { kind: 'open', reason: 'never held' };
  if (readySince) return { kind: 'open', reason: 'a spare became ready since the last hold' };
  if (acknowledged(latest)) return { kind: 'open', reason: 'an operator acknowledged the hold' };
  const until = toEpochMs(latest.until);
  if (toEpochMs(now) < until)
    return { kind: 'held', cause: latest.cause, until, reason: `on hold (${latest.cause})` };
  return {
    kind: 'probation',
    cause: latest.cause,
    reason: `the hold (${latest.cause}) ran out: one spare at a time until one is ready`,
  };
}

/**
 * The hold a new failure starts: the next level when it follows a hold that simply ran out
 * (nobody fixed anything, no spare got ready since), the first level otherwise.
 */
export function nextPoolHold(
  latest: PoolHoldFacts | null,
  readySince: boolean,
  cause: PoolHoldCause,
  now: Instant,
): { cause: PoolHoldCause; level: number; until: number } {
  const continues = latest !== null && !readySince && !acknowledged(latest);
  const level = continues ? latest.level + 1 : 0;
  return { cause, level, until: toEpochMs(now) + poolHoldDurationMs(level) };
}

/** Launches still allowed in the window, and when the next one frees up when none is. */
export function launchBudgetLeft(
  budget: number,
  /** When each launch of the window happened (older ones are ignored). */
  launchedAt: readonly Instant[],
  now: Instant,
): { left: number; freesAt: number | null } {
  const since = toEpochMs(now) - LAUNCH_BUDGET_WINDOW_MS;
  const recent = launchedAt
    .map(toEpochMs)
    .filter((at) => at > since)
    .sort((a, b) => a - b);
  const left = Math.max(0, budget - recent.length);
  const oldest = recent[recent.length - budget];
  return { left, freesAt: left > 0 || oldest === undefined ? null : oldest + LAUNCH_BUDGET_WINDOW_MS };
}

/** How many spares a plan's pool may launch now: what the top-up wants, within hold and budget. */
export function poolLaunchAllowance(input: {
  wanted: number;
  status: PoolHoldStatus;
  budget: { left: number; freesAt: number | null };
  /** Spares launched and not yet ready (on probation only one may be). */
  inFlight: number;
}): { allowed: number; refused: 'hold' | 'budget' | null; reason: string } {
  const { wanted, status, budget } = input;
  if (wanted <= 0) return { allowed: 0, refused: null, reason: 'nothing wanted' };
  if (status.kind === 'held')
    return {
      allowed: 0,
      refused: 'hold',
      reason: `${status.reason} until ${new Date(status.until).toISOString()}`,
    };
  const cap = status.kind === 'probation' ? Math.max(0, 1 - input.inFlight) : wanted;
  const allowed = Math.min(wanted, cap, budget.left);
  if (allowed < Math.min(wanted, cap))
    return {
      allowed,
      refused: 'budget',
      reason: `launch budget spent${budget.freesAt ? ` until ${new Date(budget.freesAt).toISOString()}` : ''}`,
    };
  return { allowed, refused: null, reason: status.reason };
}

/** What a customer's machine may do about a launch it needs: go ahead, or wait for the budget. */
export function machineLaunchAllowed(budget: {
  left: number;
  freesAt: number | null;
}): { kind: 'launch' } | { kind: 'wait'; until: number | null; reason: string } {
  if (budget.left > 0) return { kind: 'launch' };
  return {
    kind: 'wait',
    until: budget.freesAt,
    reason: `this plan's launch budget is spent${budget.freesAt ? ` until ${new Date(budget.freesAt).toISOString()}` : ''}`,
  };
}

/** The fix an operator reads for each hold cause. */
const HOLD_FIX: Record<PoolHoldCause, (facts: { keyName: string; planEnv: string }) => string> = {
  'password-undecryptable': ({ keyName }) =>
    `set EC2_PRIVATE_KEY_PEM to the private key of key pair ${keyName} (npm run aws:check compares them) and restart the worker`,
  'image-fault': ({ planEnv }) =>
    `check the plan's image (${planEnv} or EC2_AMI_ID): it must be available and finish its first boot (npm run aws:check)`,
  'permission-denied': () =>
    'attach infra/iam/worker-policy.json to the worker role, including iam:PassRole for EC2_INSTANCE_PROFILE (npm run aws:check)',
  unhealthy: ({ planEnv }) =>
    `the plan's image (${planEnv} or EC2_AMI_ID) boots without a working GPU driver or display: rebuild it (infra/image)`,
};

/** The alert of a hold: what failed, until when nothing is launched, and the fix. */
export function poolHoldAlertMessage(input: {
  planName: string;
  cause: PoolHoldCause;
  detail: string;
  until: Instant;
  level: number;
  keyName: string;
  planEnv: string;
}): string {
  const minutes = Math.round(poolHoldDurationMs(input.level) / MINUTE_MS);
  return (
    `Warm pool of ${input.planName} on hold for ${minutes} minutes (until ${new Date(toEpochMs(input.until)).toISOString()}; ` +
    `hold ${input.level + 1} in a row, no spare is launched meanwhile): ${input.detail} ` +
    `Fix: ${HOLD_FIX[input.cause]({ keyName: input.keyName, planEnv: input.planEnv })}; ` +
    'then acknowledge this alert (npm run alerts -- ack <id>) to release the hold at once.'
  );
}
