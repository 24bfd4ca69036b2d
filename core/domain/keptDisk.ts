/**
 * The kept disk: an expired machine's disk copied (a snapshot) before its instance goes, kept
 * for SNAPSHOT_KEEP_DAYS, and brought back on the customer's next machine.
 */
import { assertNever } from './assertNever.ts';
import type { Decision, LifecycleLimits, RestoreView, SnapshotView } from './machineDecision.ts';
import { toEpochMs, type Instant } from './time.ts';

/** A kept copy's states: `creating → completed → restored | deleted`, or `failed`. */
export const SNAPSHOT_STATES = ['creating', 'completed', 'restored', 'deleted', 'failed'] as const;
export type SnapshotState = (typeof SNAPSHOT_STATES)[number];

/**
 * EC2 copies a 115–225 GB disk in minutes to a couple of hours; six hours pending means the copy
 * is stuck, and the instance (billed for its volume, holding the files) waits on it meanwhile.
 */
export const DEFAULT_SNAPSHOT_DEADLINE_MS = 6 * 3_600_000;

/**
 * Where the copy a new machine is to be made from stands. A copy that failed is followed to
 * the one the old machine takes again (the machine is pointed at it); until one is complete
 * the machine waits, and the old machine's instance (with the files) is not deleted meanwhile.
 */
export function restoreProgress(view: RestoreView): 'pending' | 'ready' | { repointTo: string } {
  if (view.copy === null) return 'ready';
  if (view.copy === 'creating') return 'pending';
  if (view.copy !== 'failed') return 'ready';
  return view.retake ? { repointTo: view.retake.id } : 'pending';
}

function formatHours(ms: number): string {
  const hours = Math.round((ms / 3_600_000) * 10) / 10;
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/**
 * A kept disk is copied before its instance goes; null once the copy is safe. A copy EC2 lost,
 * failed, or still pending past the snapshot deadline is given up (an operator is told) and
 * taken again; the instance, with the files, stays meanwhile.
 */
export function decideKeptDisk(
  snapshot: SnapshotView | undefined,
  now: Instant,
  limits: LifecycleLimits,
): Decision | null {
  if (snapshot === undefined)
    return { kind: 'observe-snapshot', reason: 'its disk is kept: how far is the snapshot?' };
  switch (snapshot.row) {
    case 'none':
    case 'unsent':
      return { kind: 'snapshot', reason: 'its disk is kept: snapshot it before the instance goes' };
    case 'completed':
    case 'restored':
      return null;
    case 'creating':
      switch (snapshot.cloud) {
        case 'completed':
          return snapshot.newMachineWaits
            ? {
                kind: 'hand-over-disk',
                reason: "the copy is complete and the customer's new machine waits for it",
              }
            : {
                kind: 'keep-disk',
                reason: 'the copy is complete: the customer is told until when it is kept',
              };
        case 'error':
          return { kind: 'snapshot-failed', reason: 'EC2 reports the snapshot in error' };
        case 'missing':
          return { kind: 'snapshot-failed', reason: 'EC2 does not know the snapshot' };
        case 'pending':
        case undefined: {
          const deadlineMs = limits.snapshotDeadlineMs ?? DEFAULT_SNAPSHOT_DEADLINE_MS;
          return snapshot.begunAt && toEpochMs(now) - toEpochMs(snapshot.begunAt) > deadlineMs
            ? {
                kind: 'snapshot-failed',
                reason: `the snapshot is still not complete after ${formatHours(deadlineMs)}`,
              }
            : { kind: 'check-later', reason: 'the snapshot of its disk is not complete yet' };
        }
        default:
          return assertNever(snapshot.cloud);
      }
    default:
      return assertNever(snapshot.row);
  }
}

/** A kept snapshot can bring the customer's files back until the end of its window. */
export function snapshotRestorable(
  snapshot: { state: string; keepUntil: Instant } | null | undefined,
  now: Instant,
): boolean {
  return !!snapshot && snapshot.state === 'completed' && toEpochMs(snapshot.keepUntil) > toEpochMs(now);
}

/**
 * A kept snapshot a new machine can be made from: complete and within its window, or still
 * being saved from the customer's old machine (the new one then waits for it: a renewal in the
 * minutes after expiry must not lose the files a fresh machine would not have).
 */
export function snapshotWillRestore(
  snapshot: { state: string; keepUntil: Instant } | null | undefined,
  now: Instant,
): boolean {
  return snapshotRestorable(snapshot, now) || snapshot?.state === 'creating';
}

/**
 * What the kept-disk sweep does with a copy now: delete it because its window is over
 * (`expired`: the customer is told), or because the machine made from it is ready and holds the
 * files (`restored`); a copy still being made when its machine went without keeping it (an
 * account deleted) goes once its window is over too. Null: it stays. `listSnapshotsDue`
 * (core/db/snapshots.ts) is this rule in SQL; `tests/integration/lifecycle-rules.test.ts` proves
 * they agree.
 */
export function copyDue(
  copy: {
    state: SnapshotState;
    keepUntil: Instant;
    /** The machine made from it has been ready (restored copies). */
    restoredMachineReady: boolean;
    /** The machine it was taken of is deleted. */
    ownMachineTerminated: boolean;
  },
  now: Instant,
): 'expired' | 'restored' | null {
  const windowOver = toEpochMs(copy.keepUntil) <= toEpochMs(now);
  switch (copy.state) {
    case 'completed':
      return windowOver ? 'expired' : null;
    case 'restored':
      return copy.restoredMachineReady ? 'restored' : null;
    case 'creating':
      return windowOver && copy.ownMachineTerminated ? 'expired' : null;
    case 'deleted':
    case 'failed':
      return null;
    default:
      return assertNever(copy.state);
  }
}

/**
 * Where a terminating machine's kept copy stands, from its rows: one that once completed is safe
 * whatever its row became since (restored into a renewal, deleted by the sweep), so the machine is
 * never copied again; else the copy being taken (to ask EC2 about, once its CreateSnapshot is
 * recorded), or none.
 */
export function copyProgress<C extends { state: SnapshotState; snapshotId: string | null }>(
  safe: 'restored' | 'kept' | 'creating' | 'none',
  copies: readonly C[],
):
  | { row: 'restored' | 'completed' | 'none' | 'unsent' }
  | { row: 'creating'; copy: C & { snapshotId: string } } {
  switch (safe) {
    case 'restored':
      return { row: 'restored' };
    case 'kept':
      return { row: 'completed' };
    case 'creating':
    case 'none':
      break;
    default:
      return assertNever(safe);
  }
  const copy = copies.find((c) => c.state === 'creating');
  if (!copy) return { row: 'none' };
  const { snapshotId } = copy;
  return snapshotId === null ? { row: 'unsent' } : { row: 'creating', copy: { ...copy, snapshotId } };
}

/** What EC2 says of a copy being taken, as the kept-disk decision reads it. */
export function snapshotCloud(
  state: 'pending' | 'completed' | 'error' | 'recoverable' | 'recovering' | undefined,
): 'pending' | 'completed' | 'error' | 'missing' {
  switch (state) {
    case undefined:
      return 'missing';
    case 'completed':
    case 'error':
      return state;
    case 'pending':
    case 'recoverable':
    case 'recovering':
      return 'pending';
    default:
      return assertNever(state);
  }
}

/** A snapshot tagged with a copy's row that is still being made is that copy's: the lifecycle adopts it by the tag. */
export function orphanSnapshotAdoptable(state: SnapshotState): boolean {
  return state === 'creating';
}
