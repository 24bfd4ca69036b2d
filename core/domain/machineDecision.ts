/**
 * The lifecycle's vocabulary: what a decision is given (the machine's row as facts, its plan,
 * what EC2 says, what the last step came to) and what it answers (one `Decision`, with a reason
 * an operator can read), and where each kind of step is carried out (`stepRule`).
 */
import { assertNever } from './assertNever.ts';
import type { LastTry } from './lastTry.ts';
import type { NameView, PointNameDecision, SinkNameDecision } from './machineName.ts';
import type { MachineState } from './machineStates.ts';
import type { PlanFacts } from './planTime.ts';
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';
import type { HourAlertPercent } from './usage.ts';

/** EC2 instance states (the instance-state-name values). */
export type CloudState = 'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped';

/** What the cloud says of the machine's instance; `null`: EC2 does not know it (yet, or any more). */
export type CloudView = {
  state: CloudState;
  publicIp: string | null;
  /** Our `legend:vm` tag on the instance, when there is one. */
  vmTag: string | null;
  /** The root EBS volume: what a plan change grows and an expiry snapshots. */
  rootVolumeId?: string | null | undefined;
} | null;

export type MachineFacts = {
  id: string;
  state: MachineState;
  source: 'launch' | 'pool' | null;
  instanceId: string | null;
  launchAttempts: number;
  startAttempts: number;
  passwordStored: boolean;
  /** Usage counted up to `usageCountedAt` (only while running does it grow). */
  usageSeconds: number;
  usageCountedAt: Instant | null;
  launchedAt: Instant | null;
  startRequestedAt: Instant | null;
  stoppedAt: Instant | null;
  /** Why the row is in its state (`plan-change`: stopped to change its kind). */
  stateReason?: string | null | undefined;
  /** A plan change still to apply to the instance: its new type and/or a bigger disk. */
  resizeTo?: { instanceType: string | null; storageGb: number | null } | null | undefined;
  /** The type it had before a plan change, until it first runs on the new one. */
  resizedFrom?: string | null | undefined;
  /** An expired machine: its disk is kept as a snapshot before the instance goes. */
  keepDisk?: boolean | undefined;
  /** A new machine that brings back a kept disk: launched from that copy, never a warm-pool spare. */
  restoresDisk?: boolean | undefined;
};

/**
 * Where the kept copy of a terminating machine's disk stands, as read from our row and EC2
 * (reading it writes nothing); undefined until looked at.
 * - row: `none` (never begun, or the last one failed), `unsent` (our row is written, no
 *   CreateSnapshot recorded yet), `creating`, `completed`, `restored` (already given to the
 *   customer's new machine).
 * - cloud: what EC2 says of a `creating` one.
 * - newMachineWaits: the customer renewed while it was being saved; their new machine waits for it.
 * - begunAt: when our row was written (the copy asked for), for the snapshot deadline.
 */
export type SnapshotView = {
  row: 'none' | 'unsent' | 'creating' | 'completed' | 'restored';
  cloud?: 'pending' | 'completed' | 'error' | 'missing' | undefined;
  newMachineWaits?: boolean | undefined;
  begunAt?: Instant | undefined;
};

/**
 * The copy a new machine is to be made from, as read: the state of the row it points at (null:
 * no such row) and, when that copy failed, the copy the old machine takes again (if any yet).
 */
export type RestoreView = {
  copy: string | null;
  retake?: { id: string; state: string } | null | undefined;
};

export type LifecycleLimits = {
  /** A just-launched or just-started instance may be missing from DescribeInstances this long. */
  missingGraceMs: number;
  maxStartAttempts: number;
  /** Launch attempts (the provisioning job's budget) before the machine is given up. */
  maxLaunchAttempts: number;
  /**
   * A kept disk's copy still pending this long after it was asked for is given up and taken
   * again (SNAPSHOT_DEADLINE_HOURS); DEFAULT_SNAPSHOT_DEADLINE_MS when not given.
   */
  snapshotDeadlineMs?: number | undefined;
};

export const DEFAULT_MISSING_GRACE_MS = 5 * 60_000;

export type LifecycleInput = {
  machine: MachineFacts;
  plan: PlanFacts | null;
  /** Undefined: not looked at (the decision then asks for a look when it needs one). */
  cloud: CloudView | undefined;
  /** Whether Remote Desktop answers on the public address; undefined until probed. */
  remoteDesktop?: 'open' | 'closed' | undefined;
  /** For a terminating machine whose disk is kept; undefined until looked at. */
  snapshot?: SnapshotView | undefined;
  /** For a new machine that brings back a kept disk: the copy it is made from; undefined otherwise. */
  restore?: RestoreView | undefined;
  lastTry?: LastTry | undefined;
  /** Its DNS name (machineName.ts); undefined when no zone is configured. */
  name?: NameView | undefined;
  /** For a machine that needs a launch: what its plan's launch budget has left (launchBudget.ts). */
  launchBudget?: { left: number; freesAt: number | null } | undefined;
  now: Instant;
  limits: LifecycleLimits;
};

export type LostWhile = 'provisioning' | 'use';

/**
 * One step towards what the row wants. `reason` says why in a sentence an operator can read.
 * Where each is carried out, and whether a sweep may, is `stepRule` below.
 * - observe / observe-snapshot / probe-remote-desktop: looks (what EC2, the snapshot, Remote
 *   Desktop say); they write nothing.
 * - claim-pool / launch / adopt / start / start-claimed / stop / terminate / tag / capture-password / resize /
 *   revert-resize / snapshot / alert-unexpected: one EC2 call (or a few of one kind), made
 *   under the machine's lock after deciding again on the freshly read row.
 * - mark-*, accrue, request-stop, request-start, refuse-start, give-up-start, give-up-launch,
 *   lost, repoint-restore, hand-over-disk, keep-disk, snapshot-failed, check-later (a follow-up
 *   check queued), note-remote-desktop-wait (the dashboard says why it is not ready yet):
 *   conditional row transitions (with their notices, alerts and jobs), no cloud call.
 * - point-name: its DNS name pointed at the new address before it is shown running (machineName.ts).
 * - sink-name: its DNS name taken off the address it gives back, before a stop or deletion and once
 *   found stopped (machineName.ts, `nameAwayFirst`).
 * - retry-later: the job's step failed and is tried again with the queue's backoff.
 * - nothing / wait: nothing to do now; `wait` means something is under way.
 */

/** A decision that carries nothing but its reason, one member per kind. */
export type Plain<K extends string> = K extends string ? { kind: K; reason: string } : never;

export type Decision =
  | Plain<
      | 'nothing'
      | 'wait'
      | 'observe'
      | 'observe-snapshot'
      | 'probe-remote-desktop'
      | 'claim-pool'
      | 'launch'
      | 'adopt'
      | 'start'
      | 'start-claimed'
      | 'stop'
      | 'terminate'
      | 'tag'
      | 'capture-password'
      | 'alert-unexpected'
      | 'resize'
      | 'revert-resize'
      | 'snapshot'
      | 'mark-terminated'
      | 'give-up-start'
      | 'give-up-launch'
      | 'request-start'
      | 'hand-over-disk'
      | 'keep-disk'
      | 'snapshot-failed'
      | 'check-later'
      | 'note-remote-desktop-wait'
      | 'retry-later'
    >
  | { kind: 'mark-ready'; reason: string; publicIp: string }
  | { kind: 'mark-running'; reason: string; publicIp: string }
  | { kind: 'mark-stopped'; reason: string; stoppedBy: 'stop' | 'shut-down' }
  | { kind: 'accrue'; reason: string; alerts: HourAlertPercent[]; capSeconds: number }
  | {
      kind: 'request-stop';
      reason: string;
      why: 'out-of-hours' | 'plan-expired' | 'plan-change';
      alerts: HourAlertPercent[];
    }
  | { kind: 'refuse-start'; reason: string; why: 'out-of-hours' | 'plan-expired' }
  | { kind: 'lost'; reason: string; during: LostWhile }
  | { kind: 'repoint-restore'; reason: string; snapshotId: string }
  | PointNameDecision
  | SinkNameDecision
  | { kind: 'wait-launch-budget'; reason: string; until: number | null };

export type DecisionKind = Decision['kind'];

/**
 * Where the executor carries a step out:
 * - end: nothing to carry out (nothing, wait);
 * - look: an input gathered (no write), then decide again;
 * - cloud: under the machine's lock, after deciding again on the freshly read row;
 * - row: a conditional row transition;
 * - retry: the job fails this attempt and is retried with backoff.
 */
export type StepPlace = 'end' | 'look' | 'cloud' | 'row' | 'retry';

/**
 * How a step is run: where, whether the minute sweep may take it (a sweep converges; it does
 * not spend a job's retry budget: launching, and starting a customer's stopped machine, belong
 * to their jobs, which the reaper sends again when they stall; a claimed spare it may start, no
 * hours being at stake), and whether the run decides
 * again after it (`go-on`) or ends there (the rest happens in EC2 or another job and is seen by
 * a later check). Every look and cloud step is followed by a new decision on what it reported.
 */
export type StepRule = { place: StepPlace; sweep: boolean; then: 'end' | 'go-on' };

export function stepRule(decision: Decision): StepRule {
  const look: StepRule = { place: 'look', sweep: true, then: 'go-on' };
  const cloud: StepRule = { place: 'cloud', sweep: true, then: 'go-on' };
  const row = (then: StepRule['then']): StepRule => ({ place: 'row', sweep: true, then });
  switch (decision.kind) {
    case 'nothing':
    case 'wait':
      return { place: 'end', sweep: true, then: 'end' };
    case 'observe':
    case 'observe-snapshot':
    case 'probe-remote-desktop':
      return look;
    case 'claim-pool':
    case 'launch':
      return { ...cloud, sweep: false };
    case 'start':
      return { ...cloud, sweep: false };
    case 'start-claimed':
    case 'adopt':
    case 'stop':
    case 'terminate':
    case 'tag':
    case 'capture-password':
    case 'alert-unexpected':
    case 'resize':
    case 'revert-resize':
    case 'snapshot':
    case 'point-name':
    case 'sink-name':
      return cloud;
    // Stopped for a plan change: the change and the start follow now, not at the next sweep.
    case 'mark-stopped':
    case 'repoint-restore':
    case 'hand-over-disk':
    case 'keep-disk':
    case 'snapshot-failed':
      return row('go-on');
    case 'mark-ready':
    case 'mark-running':
    case 'mark-terminated':
    case 'accrue':
    case 'request-stop':
    case 'request-start':
    case 'refuse-start':
    case 'give-up-start':
    case 'give-up-launch':
    case 'lost':
    case 'check-later':
    case 'note-remote-desktop-wait':
    case 'wait-launch-budget':
      return row('end');
    case 'retry-later':
      return { place: 'retry', sweep: false, then: 'end' };
    default:
      return assertNever(decision);
  }
}

/** What a run may do: the job everything; the sweep leaves launches and retries to their jobs. */
export type Mode = 'job' | 'sweep';

/** EC2 is deleting the instance, or has: nothing of it is left to adopt or delete. */
export function instanceGone(state: CloudState): boolean {
  switch (state) {
    case 'shutting-down':
    case 'terminated':
      return true;
    case 'pending':
    case 'running':
    case 'stopping':
    case 'stopped':
      return false;
    default:
      return assertNever(state);
  }
}

/**
 * The looks a decision reads besides the row and EC2, by the machine's state (each a read the
 * executor makes only when it is wanted): the copy a machine waiting to be made from a kept disk
 * is made from; the plan's launch budget, for a machine that needs a launch; its DNS name, on the
 * way to running and on the way to giving its address back (stopping, stopped, being deleted).
 */
export function looksWanted(machine: { state: MachineState; hasInstance: boolean; restoresDisk: boolean }): {
  restore: boolean;
  launchBudget: boolean;
  name: boolean;
} {
  switch (machine.state) {
    case 'requested':
      return { restore: machine.restoresDisk, launchBudget: !machine.hasInstance, name: false };
    case 'provisioning':
      return { restore: false, launchBudget: !machine.hasInstance, name: true };
    case 'starting':
    case 'stopping':
    case 'stopped':
    case 'terminating':
      return { restore: false, launchBudget: false, name: true };
    case 'running':
    case 'terminated':
    case 'error':
      return { restore: false, launchBudget: false, name: false };
    default:
      return assertNever(machine.state);
  }
}

/** EC2 states in which an instance still is; `shutting-down` and `terminated` mean it is gone. */
export type LiveCloudState = Exclude<CloudState, 'shutting-down' | 'terminated'>;

/** An instance EC2 lists as still there. */
export type LiveCloud = NonNullable<CloudView> & { state: LiveCloudState };

/** Missing from EC2 for longer than a fresh instance may be (eventual consistency), or since an unknown time. */
export function missingTooLong(since: Instant | null, now: Instant, graceMs: number): boolean {
  const at = toEpochMsOrNull(since);
  return at === null || toEpochMs(now) - at > graceMs;
}

/**
 * What EC2's view says of an instance the machine holds: still there (its view, narrowed to the
 * states an instance that is there can be in), or the decision its absence calls for — lost, or
 * a wait while a fresh instance may not be listed yet (`missing.since`: when it became fresh;
 * `at-once`: one in use is lost as soon as EC2 does not know it). A call answered "no such
 * instance" (`instance-not-found`) is EC2's word, not a listing that may lag: lost at once.
 */
export function instanceFate(
  cloud: CloudView,
  input: Pick<LifecycleInput, 'now' | 'limits' | 'lastTry'>,
  during: LostWhile,
  missing: { since: Instant | null } | 'at-once',
): { kind: 'there'; cloud: LiveCloud } | { kind: 'absent'; decision: Decision } {
  const lost = (reason: string) => ({
    kind: 'absent' as const,
    decision: { kind: 'lost' as const, reason, during },
  });
  if (cloud === null) {
    switch (input.lastTry) {
      case 'instance-not-found':
        return lost('EC2 answered that the instance does not exist');
      case undefined:
      case 'no-spare':
      case 'nothing-adopted':
      case 'launch-failed':
      case 'start-failed':
      case 'not-startable-yet':
      case 'stop-refused':
      case 'password-not-ready':
      case 'password-undecryptable':
      case 'name-failed':
        break;
      default:
        return assertNever(input.lastTry);
    }
    if (missing === 'at-once' || missingTooLong(missing.since, input.now, input.limits.missingGraceMs))
      return lost('EC2 does not know the instance');
    return {
      kind: 'absent',
      decision: { kind: 'wait', reason: 'the instance is not listed yet (EC2 is eventually consistent)' },
    };
  }
  switch (cloud.state) {
    case 'shutting-down':
    case 'terminated':
      return lost(`the instance is ${cloud.state}`);
    case 'pending':
    case 'running':
    case 'stopping':
    case 'stopped':
      return { kind: 'there', cloud: { ...cloud, state: cloud.state } };
    default:
      return assertNever(cloud.state);
  }
}
