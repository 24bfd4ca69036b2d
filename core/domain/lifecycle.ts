/**
 * The machine lifecycle as decisions. Given what we know of a machine (its row), the plan it
 * serves, what the cloud says of its instance and the time, `decideMachine` answers the one
 * thing to do next and why. It does no I/O: the worker gathers the inputs, asks, and carries the
 * decision out (`worker/lifecycle/advance.ts`), one step at a time, never choosing. Every rule the lifecycle depends on is a named
 * predicate here and nowhere else; the SPA and the SQL filters use the same ones (the SQL
 * copies are proven equal by `tests/integration/lifecycle-rules.test.ts`).
 *
 * The row's state is what we want (starting: we want it running; stopping: stopped;
 * terminating: gone); the cloud's state is what is. A decision closes the gap one step.
 */
import { DAY_MS, formatLongDate, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';
import { hourAlertsReached, planSeconds, remainingSeconds, type HourAlertPercent } from './usage.ts';
import { mayClaimSpare } from './pool.ts';
import { isGone } from './machineGone.ts';
import { nameFirst, type NameView, type PointNameDecision } from './machineName.ts';
import { machineLaunchAllowed } from './launchBudget.ts';
import { HARDWARE_MOVE_REASON } from './machineEvents.ts';

export const MACHINE_STATES = [
  'requested',
  'provisioning',
  'starting',
  'running',
  'stopping',
  'stopped',
  'terminating',
  'terminated',
  'error',
] as const;
export type MachineState = (typeof MACHINE_STATES)[number];

/** States in which a machine still is (or is becoming) the customer's: at most one per customer. */
export const LIVE_STATES = [
  'requested',
  'provisioning',
  'starting',
  'running',
  'stopping',
  'stopped',
] as const satisfies readonly MachineState[];

/** States that settle by themselves: something is under way and worth checking again soon. */
const TRANSITIONAL_STATES = [
  'requested',
  'provisioning',
  'starting',
  'stopping',
  'terminating',
] as const satisfies readonly MachineState[];

export function isLive(state: string): boolean {
  return (LIVE_STATES as readonly string[]).includes(state);
}

export function isTransitional(state: string): boolean {
  return (TRANSITIONAL_STATES as readonly string[]).includes(state);
}

/** What the rules need of a plan (a subscription row, or the dashboard's view of one). */
export type PlanFacts = {
  status: string;
  expiresAt: Instant | null;
  /** The plan's hours (30/45/65/90, or 1 for the trial). */
  hours: number;
  cancelledAt?: Instant | null;
};

/** The plan is paid, active and not yet past its expiry instant. */
export function planInForce(plan: PlanFacts | null | undefined, now: Instant): boolean {
  if (!plan || plan.status !== 'active') return false;
  const expiresAt = toEpochMsOrNull(plan.expiresAt);
  return expiresAt !== null && expiresAt > toEpochMs(now);
}

/** The plan has run its course: expired or cancelled by status, or active past its expiry instant. */
export function planEnded(plan: PlanFacts, now: Instant): boolean {
  if (plan.status === 'expired' || plan.status === 'cancelled') return true;
  const expiresAt = toEpochMsOrNull(plan.expiresAt);
  return plan.status === 'active' && (expiresAt === null || expiresAt <= toEpochMs(now));
}

/** When an ended plan ended: the earlier of its cancellation and its expiry. */
function planEndedAt(plan: PlanFacts): number | null {
  const expiresAt = toEpochMsOrNull(plan.expiresAt);
  const cancelledAt = toEpochMsOrNull(plan.cancelledAt ?? null);
  if (expiresAt === null) return cancelledAt;
  return cancelledAt === null ? expiresAt : Math.min(expiresAt, cancelledAt);
}

/** The machine of an ended plan is kept (stopped) until this moment, then deleted unless renewed. */
export function keptUntil(plan: PlanFacts, graceDays: number): number | null {
  const ended = planEndedAt(plan);
  return ended === null ? null : ended + graceDays * DAY_MS;
}

/** The plan ended, but the machine is still kept for a renewal. */
export function inGrace(plan: PlanFacts, now: Instant, graceDays: number): boolean {
  const until = keptUntil(plan, graceDays);
  return planEnded(plan, now) && until !== null && toEpochMs(now) < until;
}

/** The plan ended more than the grace period ago: its machine goes. */
export function pastGrace(plan: PlanFacts, now: Instant, graceDays: number): boolean {
  const until = keptUntil(plan, graceDays);
  return planEnded(plan, now) && until !== null && toEpochMs(now) >= until;
}

/** Every hour of the plan has been used: the machine stops and START is refused. */
export function hoursExhausted(plan: Pick<PlanFacts, 'hours'>, usageSeconds: number): boolean {
  return remainingSeconds(plan.hours, usageSeconds) === 0;
}

/**
 * A desktop can be opened on the machine now (the Remote Desktop file, the browser desktop):
 * it runs and has a public address. `core/db/desktopTokens.ts` repeats it in SQL; the desktop
 * tokens' integration test proves both agree.
 */
export function desktopReachable(machine: { state: string; publicIp: string | null }): boolean {
  return machine.state === 'running' && machine.publicIp !== null;
}

/** What the downloads need: the password file once a password is stored, the RDP file while running with an address. */
export function downloadsReady(machine: {
  state: string;
  publicIp: string | null;
  passwordStored: boolean;
}): {
  rdp: boolean;
  password: boolean;
} {
  const kept = !isGone(machine.state);
  return {
    rdp: desktopReachable(machine),
    password: kept && machine.passwordStored,
  };
}

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

/**
 * EC2 copies a 115–225 GB disk in minutes to a couple of hours; six hours pending means the copy
 * is stuck, and the instance (billed for its volume, holding the files) waits on it meanwhile.
 */
export const DEFAULT_SNAPSHOT_DEADLINE_MS = 6 * 3_600_000;

/**
 * What the previous step of this run came to, when the next decision depends on it (a step
 * reports it; it never chooses what follows).
 * - no-spare: no warm-pool spare fits (the claim); nothing-adopted: nothing was launched under
 *   the machine's ClientToken; launch-failed: RunInstances failed (recorded on the row).
 * - start-failed: StartInstances failed and an attempt was counted; not-startable-yet: the
 *   instance is still stopping (not a failed attempt).
 * - stop-refused: the instance cannot be stopped yet (still pending).
 * - password-not-ready / password-undecryptable: what the Windows password capture found.
 */
export type LastTry =
  | 'no-spare'
  | 'nothing-adopted'
  | 'launch-failed'
  | 'start-failed'
  | 'not-startable-yet'
  | 'stop-refused'
  | 'password-not-ready'
  | 'password-undecryptable'
  | 'name-failed';

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
 * - retry-later: the job's step failed and is tried again with the queue's backoff.
 * - nothing / wait: nothing to do now; `wait` means something is under way.
 */
/** A decision that carries nothing but its reason, one member per kind. */
type Plain<K extends string> = K extends string ? { kind: K; reason: string } : never;

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
  | { kind: 'wait-launch-budget'; reason: string; until: number | null };

export type DecisionKind = Decision['kind'];

/** A switch over a union that forgot a member fails to compile here, and throws if reached anyway. */
export function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}

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

/**
 * The next step for a machine as `mode` may take it: `decideMachine`, with the steps a sweep
 * leaves to their job turned into a wait. This is what the executor asks.
 */
export function nextStep(input: LifecycleInput, mode: Mode): Decision {
  const decision = decideMachine(input);
  if (mode === 'sweep' && !stepRule(decision).sweep)
    return { kind: 'wait', reason: `${decision.reason} (left to its job)` };
  return decision;
}

function gone(cloud: CloudView): boolean {
  return cloud === null || cloud.state === 'terminated' || cloud.state === 'shutting-down';
}

/** Missing from EC2 for longer than a fresh instance may be (eventual consistency), or since an unknown time. */
function missingTooLong(since: Instant | null, now: Instant, graceMs: number): boolean {
  const at = toEpochMsOrNull(since);
  return at === null || toEpochMs(now) - at > graceMs;
}

/** Usage up to `now` if the machine has been running since its last count, capped at the plan. */
function usageUpTo(machine: MachineFacts, plan: Pick<PlanFacts, 'hours'>, now: Instant): number {
  const counted = toEpochMsOrNull(machine.usageCountedAt);
  const extra = counted === null ? 0 : Math.max(0, (toEpochMs(now) - counted) / 1000);
  return Math.min(planSeconds(plan.hours), machine.usageSeconds + extra);
}

function lostOrWait(
  cloud: CloudView,
  since: Instant | null,
  input: LifecycleInput,
  during: LostWhile,
): Decision | null {
  if (!gone(cloud)) return null;
  if (cloud === null) {
    return missingTooLong(since, input.now, input.limits.missingGraceMs)
      ? { kind: 'lost', reason: 'EC2 does not know the instance', during }
      : { kind: 'wait', reason: 'the instance is not listed yet (EC2 is eventually consistent)' };
  }
  return { kind: 'lost', reason: `the instance is ${cloud.state}`, during };
}

/** Lost or wait, where a wait cannot be: a machine in use that EC2 does not know is lost at once. */
function lostInUse(cloud: CloudView, since: Instant | null, input: LifecycleInput): Decision | null {
  const lost = lostOrWait(cloud, since, input, 'use');
  return lost?.kind === 'wait'
    ? { kind: 'lost', reason: 'EC2 does not know the instance', during: 'use' }
    : lost;
}

/** The next step for a machine. Pure: same input, same decision. */
export function decideMachine(input: LifecycleInput): Decision {
  const { machine, plan, now } = input;
  switch (machine.state) {
    case 'terminated':
      return { kind: 'nothing', reason: 'the machine is deleted' };
    case 'error':
      return { kind: 'nothing', reason: 'the machine failed; an operator decides what next' };
    case 'requested':
      return decideRequested(input);
    case 'terminating':
      return decideTerminating(input);
    case 'provisioning':
      return decideProvisioning(input);
    case 'starting':
      if (!planInForce(plan, now))
        return { kind: 'refuse-start', reason: 'the plan is not in force', why: 'plan-expired' };
      if (plan && hoursExhausted(plan, machine.usageSeconds))
        return { kind: 'refuse-start', reason: "the plan's hours are used up", why: 'out-of-hours' };
      return inUse(input, machine.startRequestedAt, false, decideStarting);
    case 'running':
      return inUse(input, machine.launchedAt, true, decideRunning);
    case 'stopping':
      return inUse(input, machine.startRequestedAt ?? machine.launchedAt, true, decideStopping);
    case 'stopped':
      return inUse(input, machine.stoppedAt, false, decideStopped);
    default:
      return assertNever(machine.state);
  }
}

/**
 * A machine that has (had) an instance: lost without one; observed before anything else; lost
 * when EC2 no longer has it (`strict`: at once, for one that was running or stopping; else
 * only once missing for longer than a fresh instance may be, counted from `since`).
 */
function inUse(
  input: LifecycleInput,
  since: Instant | null,
  strict: boolean,
  decide: (input: LifecycleInput, cloud: NonNullable<CloudView>) => Decision,
): Decision {
  const { machine, cloud } = input;
  if (!machine.instanceId) return { kind: 'lost', reason: 'the machine has no instance', during: 'use' };
  if (cloud === undefined) return { kind: 'observe', reason: `${machine.state}: what does EC2 say?` };
  const lost = strict ? lostInUse(cloud, since, input) : lostOrWait(cloud, since, input, 'use');
  if (lost) return lost;
  if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
  return decide(input, cloud);
}

/** A paid plan without a machine yet: launched from the kept copy once it is complete, else a spare claimed first. */
function decideRequested(input: LifecycleInput): Decision {
  const { plan, now } = input;
  if (!planInForce(plan, now)) return { kind: 'nothing', reason: 'the plan is no longer in force' };
  const restore = input.restore === undefined ? 'ready' : restoreProgress(input.restore);
  if (typeof restore === 'object')
    return {
      kind: 'repoint-restore',
      reason: 'the copy it was to be made from failed: it is made from the copy taken again',
      snapshotId: restore.repointTo,
    };
  if (restore === 'pending')
    return {
      kind: 'wait',
      reason:
        "the copy of the customer's old disk is still being saved: it is launched from it once complete",
    };
  return decideLaunch(input);
}

/**
 * A machine without an instance: a ready warm-pool spare first (never for a machine that
 * brings back a kept disk: it must be launched from it), then an earlier launch adopted, then
 * RunInstances; a failed launch is tried again until the launch budget is spent.
 */
function decideLaunch(input: LifecycleInput): Decision {
  const { machine, lastTry, limits } = input;
  if (lastTry === 'launch-failed')
    return machine.launchAttempts >= limits.maxLaunchAttempts
      ? { kind: 'give-up-launch', reason: `no instance after ${machine.launchAttempts} launch attempts` }
      : { kind: 'retry-later', reason: `launch attempt ${machine.launchAttempts} failed` };
  if (
    machine.state === 'requested' &&
    mayClaimSpare({ restoring: machine.restoresDisk === true }) &&
    lastTry !== 'no-spare'
  )
    return {
      kind: 'claim-pool',
      reason: 'a paid plan has no machine yet: a warm-pool spare is claimed first',
    };
  if (machine.launchAttempts > 0 && lastTry !== 'nothing-adopted')
    return {
      kind: 'adopt',
      reason: 'a launch was sent but its answer was not recorded: find it by ClientToken',
    };
  const budget = input.launchBudget && machineLaunchAllowed(input.launchBudget);
  if (budget?.kind === 'wait')
    return { kind: 'wait-launch-budget', reason: budget.reason, until: budget.until };
  return {
    kind: 'launch',
    reason:
      lastTry === 'nothing-adopted'
        ? 'nothing was launched under its ClientToken: launch (the same token, so at most one)'
        : machine.state === 'requested'
          ? 'a paid plan has no machine yet'
          : 'no instance yet',
  };
}

/** Terminating: whatever was launched is deleted, its disk snapshotted first when it is kept. */
function decideTerminating(input: LifecycleInput): Decision {
  const { machine, cloud } = input;
  // Never recorded an instance: terminate whatever was launched under its ClientToken.
  if (!machine.instanceId)
    return machine.launchAttempts > 0
      ? { kind: 'terminate', reason: 'a launch was sent: delete whatever it made' }
      : { kind: 'mark-terminated', reason: 'the machine never had an instance' };
  if (cloud === undefined) return { kind: 'observe', reason: 'terminating: is the instance gone?' };
  if (cloud === null || cloud.state === 'terminated')
    return { kind: 'mark-terminated', reason: 'EC2 confirms the instance is gone' };
  // Deleted only once EC2 says so: until then the customer reads "being deleted".
  if (cloud.state === 'shutting-down')
    return { kind: 'check-later', reason: 'EC2 is deleting the instance (shutting-down)' };
  if (machine.keepDisk) {
    const kept = decideKeptDisk(input.snapshot, input.now, input.limits);
    if (kept) return kept;
  }
  return { kind: 'terminate', reason: `the machine is to be deleted and its instance is ${cloud.state}` };
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
function decideKeptDisk(
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

function decideStarting(input: LifecycleInput, cloud: NonNullable<CloudView>): Decision {
  const { machine, limits, lastTry } = input;
  if (cloud.state === 'running')
    return cloud.publicIp
      ? (nameFirst(input.name, cloud.publicIp, lastTry) ?? {
          kind: 'mark-running',
          reason: 'EC2 says running with a public address',
          publicIp: cloud.publicIp,
        })
      : { kind: 'wait', reason: 'running, waiting for a public address' };
  if (cloud.state !== 'stopped') return { kind: 'wait', reason: `the instance is ${cloud.state}` };
  if (machine.startAttempts >= limits.maxStartAttempts)
    return machine.resizedFrom
      ? { kind: 'revert-resize', reason: 'no machine of the new type starts: put the old type back' }
      : { kind: 'give-up-start', reason: `no capacity after ${machine.startAttempts} start attempts` };
  if (machine.resizeTo)
    return { kind: 'resize', reason: 'the plan changed: change the stopped instance before starting it' };
  if (lastTry === 'start-failed')
    return { kind: 'retry-later', reason: `start attempt ${machine.startAttempts} failed` };
  if (lastTry === 'not-startable-yet')
    return { kind: 'retry-later', reason: 'still stopping (a quick STOP then START): not a failed attempt' };
  return { kind: 'start', reason: 'the customer asked for it and the instance is stopped' };
}

function decideRunning(input: LifecycleInput, cloud: NonNullable<CloudView>): Decision {
  const { machine, plan, now } = input;
  if (cloud.state === 'stopping' || cloud.state === 'stopped')
    return { kind: 'mark-stopped', reason: 'shut down from inside Windows', stoppedBy: 'shut-down' };
  if (!plan || !planInForce(plan, now))
    return { kind: 'request-stop', reason: 'the plan is not in force', why: 'plan-expired', alerts: [] };
  if (machine.resizeTo)
    return {
      kind: 'request-stop',
      reason: 'the new plan needs another kind of machine: stop it to change it',
      why: 'plan-change',
      alerts: [],
    };
  const used = usageUpTo(machine, plan, now);
  const alerts = hourAlertsReached(plan.hours, used);
  if (hoursExhausted(plan, used))
    return { kind: 'request-stop', reason: "the plan's hours are used up", why: 'out-of-hours', alerts };
  if (cloud.state !== 'running') return { kind: 'wait', reason: `the instance is ${cloud.state}` };
  return {
    kind: 'accrue',
    reason: 'running: count the time since the last count',
    alerts,
    capSeconds: planSeconds(plan.hours),
  };
}

function decideStopping(_input: LifecycleInput, cloud: NonNullable<CloudView>): Decision {
  if (cloud.state === 'stopped')
    return { kind: 'mark-stopped', reason: 'EC2 says stopped', stoppedBy: 'stop' };
  if (cloud.state === 'running')
    return { kind: 'stop', reason: 'a stop was asked for and the instance still runs' };
  return { kind: 'wait', reason: `the instance is ${cloud.state}` };
}

function decideStopped(input: LifecycleInput, cloud: NonNullable<CloudView>): Decision {
  const { machine, plan, now } = input;
  if (cloud.state === 'running' || cloud.state === 'pending')
    return input.lastTry === 'stop-refused'
      ? { kind: 'wait', reason: `the instance is ${cloud.state}: it is stopped once it runs` }
      : { kind: 'alert-unexpected', reason: `the instance is ${cloud.state} but nobody asked for it` };
  // Stopped for a plan change or to move it off retiring hardware (not by the customer, not after
  // a failed start): change it if the plan asks, then start it.
  const restarts = machine.stateReason === 'plan-change' || machine.stateReason === HARDWARE_MOVE_REASON;
  if (restarts && cloud.state === 'stopped' && planInForce(plan, now))
    return machine.resizeTo
      ? { kind: 'resize', reason: 'stopped for the plan change: change the instance, then start it' }
      : { kind: 'request-start', reason: `stopped for ${machine.stateReason}: started again` };
  return { kind: 'nothing', reason: `stopped (EC2: ${cloud.state})` };
}

/** requested → provisioning → running: launch (or claim), adopt, tag, start, password, Remote Desktop, ready. */
function decideProvisioning(input: LifecycleInput): Decision {
  const { machine, cloud, now, plan, lastTry } = input;
  if (!machine.instanceId) {
    if (!planInForce(plan, now)) return { kind: 'nothing', reason: 'the plan is no longer in force' };
    return decideLaunch(input);
  }
  if (cloud === undefined) return { kind: 'observe', reason: 'provisioning: what does EC2 say?' };
  const lost = lostOrWait(cloud, machine.launchedAt, input, 'provisioning');
  if (lost) return lost;
  if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
  // A claimed warm-pool instance carries the pool's tags until ours are written.
  if (machine.source === 'pool' && cloud.vmTag !== machine.id)
    return { kind: 'tag', reason: 'the claimed warm-pool instance still carries the pool tags' };
  if (cloud.state === 'stopped') {
    if (machine.source !== 'pool')
      return {
        kind: 'lost',
        reason: 'the new instance stopped during its first boot',
        during: 'provisioning',
      };
    if (lastTry === 'start-failed')
      return { kind: 'retry-later', reason: 'starting the claimed warm-pool instance failed' };
    if (lastTry === 'not-startable-yet')
      return {
        kind: 'wait',
        reason: 'the claimed warm-pool instance is not startable yet; checking again shortly',
      };
    return { kind: 'start-claimed', reason: 'the claimed warm-pool instance is stopped' };
  }
  if (cloud.state !== 'running') return { kind: 'wait', reason: `the instance is ${cloud.state}` };
  if (!machine.passwordStored) {
    if (lastTry === 'password-not-ready')
      return { kind: 'wait', reason: 'Windows has not finished its first boot' };
    if (lastTry === 'password-undecryptable')
      return { kind: 'wait', reason: 'the Windows password could not be decrypted (an operator is alerted)' };
    return { kind: 'capture-password', reason: 'running: is Windows done with its first boot?' };
  }
  if (!cloud.publicIp) return { kind: 'wait', reason: 'running, waiting for a public address' };
  if (input.remoteDesktop === undefined)
    return { kind: 'probe-remote-desktop', reason: 'password ready: does Remote Desktop answer?' };
  if (input.remoteDesktop === 'closed')
    return { kind: 'note-remote-desktop-wait', reason: 'waiting for Remote Desktop to answer' };
  return (
    nameFirst(input.name, cloud.publicIp, lastTry) ?? {
      kind: 'mark-ready',
      reason: 'running, password stored, Remote Desktop answers',
      publicIp: cloud.publicIp,
    }
  );
}

/**
 * The minute sweep's lane for a machine, from its decision: left alone (no write), counted in
 * the page's one batched UPDATE (its only change is time counted, and every hour notice it
 * reached was already sent), or handed to the executor one by one. So the sweep's work grows
 * with what changed, not with the size of the fleet; both lanes count usage by one rule (the
 * accrue decision's cap).
 */
export type SweepLane = 'unchanged' | 'accrue' | 'step';

export function sweepLane(decision: Decision, noticeSent: (percent: HourAlertPercent) => boolean): SweepLane {
  if (decision.kind === 'nothing' || decision.kind === 'wait') return 'unchanged';
  if (decision.kind === 'accrue') return decision.alerts.every(noticeSent) ? 'accrue' : 'step';
  return 'step';
}

/**
 * After a machine's check: look again in `pollSeconds` while it is in transition (up to a
 * bound; past it the minute sweep carries on), or, once running, at the moment its plan's hours
 * run out when that is within a day (further out, the minute sweep gets there first).
 */
export type FollowUp =
  { kind: 'check-again' } | { kind: 'hours-check'; inSeconds: number } | { kind: 'none' };

export function followUpOf(
  machine: { state: string; usageSeconds: number },
  plan: Pick<PlanFacts, 'hours'> | null,
  checks: { count: number; limit: number },
): FollowUp {
  if (isTransitional(machine.state))
    return checks.count <= checks.limit ? { kind: 'check-again' } : { kind: 'none' };
  if (machine.state !== 'running' || !plan) return { kind: 'none' };
  const left = remainingSeconds(plan.hours, machine.usageSeconds);
  return left > 0 && left < 86_400 ? { kind: 'hours-check', inSeconds: left + 1 } : { kind: 'none' };
}

/** A warm-pool spare is looked at again soon while its first boot or its stop is under way (up to the same bound). */
export function poolFollowUp(state: string, checks: { count: number; limit: number }): FollowUp {
  return (state === 'launching' || state === 'stopping') && checks.count <= checks.limit
    ? { kind: 'check-again' }
    : { kind: 'none' };
}

/**
 * A spare whose Windows has not finished its first boot this long after launch never will (a bad
 * image, a broken first-boot agent): it is failed, so its instance is no longer ours and the
 * reconciler terminates it (with an alert), instead of billing forever in `launching` and holding
 * a place in the pool. A first boot takes minutes; this leaves a wide margin.
 */
export const POOL_FIRST_BOOT_DEADLINE_MS = 45 * 60_000;

function firstBootOverdue(launchedAt: Instant | null, now: Instant): boolean {
  return missingTooLong(launchedAt, now, POOL_FIRST_BOOT_DEADLINE_MS);
}

/** Warm-pool instances: `launching → stopping → ready → claimed`, or `failed`. */
export const POOL_STATES = ['launching', 'stopping', 'ready', 'claimed', 'failed'] as const;
export type PoolState = (typeof POOL_STATES)[number];

export type PoolFacts = {
  state: PoolState;
  /** A hot spare is kept running once ready; the others are kept stopped. */
  hot: boolean;
  instanceId: string | null;
  launchAttempts: number;
  launchedAt: Instant | null;
};

/**
 * - observe: a look; adopt / capture-password / stop: EC2 under the pool row's lock;
 * - discard: the spare never will be usable (first boot overdue, or its password cannot be
 *   decrypted): an operator is alerted, the row failed and the instance terminated at once;
 * - mark-ready / fail: row transitions (a failed row's instance is terminated by the reconciler).
 */
export type PoolDecision =
  | Plain<'nothing' | 'wait' | 'observe' | 'adopt' | 'capture-password' | 'stop' | 'mark-ready' | 'fail'>
  | { kind: 'discard'; reason: string; why: 'first-boot' | 'password-undecryptable' };

export type PoolInput = {
  pool: PoolFacts;
  cloud: CloudView | undefined;
  /** What the previous step of this run came to. */
  lastTry?: Extract<LastTry, 'nothing-adopted' | 'password-not-ready' | 'password-undecryptable'> | undefined;
  /** The capture's words when the password cannot be decrypted. */
  problem?: string | undefined;
  now: Instant;
  limits: Pick<LifecycleLimits, 'missingGraceMs'>;
};

export function poolStepPlace(decision: PoolDecision): StepPlace {
  switch (decision.kind) {
    case 'nothing':
    case 'wait':
      return 'end';
    case 'observe':
      return 'look';
    case 'adopt':
    case 'capture-password':
    case 'stop':
    case 'discard':
      return 'cloud';
    case 'mark-ready':
    case 'fail':
      return 'row';
    default:
      return assertNever(decision);
  }
}

export function decidePoolInstance(input: PoolInput): PoolDecision {
  const { pool, cloud, now, limits, lastTry } = input;
  if (pool.state === 'claimed' || pool.state === 'failed')
    return { kind: 'nothing', reason: `pool instance ${pool.state}` };
  if (!pool.instanceId) {
    if (pool.state !== 'launching' || pool.launchAttempts === 0)
      return { kind: 'wait', reason: 'waiting for its launch' };
    return lastTry === 'nothing-adopted'
      ? { kind: 'wait', reason: 'its launch is not known to EC2; the next replenish launches it' }
      : {
          kind: 'adopt',
          reason: 'a launch was sent but its answer was not recorded: find it by ClientToken',
        };
  }
  if (cloud === undefined) return { kind: 'observe', reason: 'what does EC2 say?' };
  if (cloud === null) {
    return missingTooLong(pool.launchedAt, now, limits.missingGraceMs)
      ? { kind: 'fail', reason: 'EC2 does not know the instance' }
      : { kind: 'wait', reason: 'the instance is not listed yet' };
  }
  if (gone(cloud)) return { kind: 'fail', reason: `the instance is ${cloud.state}` };
  switch (pool.state) {
    case 'launching':
      // Running: the password says whether the first boot is done; never done (or never
      // running) past the deadline: the spare goes.
      if (lastTry === 'password-undecryptable')
        return {
          kind: 'discard',
          reason: input.problem ?? 'the password cannot be decrypted',
          why: 'password-undecryptable',
        };
      if (lastTry === 'password-not-ready')
        return firstBootOverdue(pool.launchedAt, now)
          ? {
              kind: 'discard',
              reason: `first boot not done ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`,
              why: 'first-boot',
            }
          : { kind: 'wait', reason: 'first boot not done' };
      if (cloud.state === 'running')
        return { kind: 'capture-password', reason: 'running: is the first boot done?' };
      return firstBootOverdue(pool.launchedAt, now)
        ? {
            kind: 'fail',
            reason: `still ${cloud.state} ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`,
          }
        : { kind: 'wait', reason: `the instance is ${cloud.state}` };
    case 'stopping':
      if (cloud.state === 'stopped') return { kind: 'mark-ready', reason: 'first boot done and stopped' };
      return cloud.state === 'running'
        ? { kind: 'stop', reason: 'first boot done; a spare waits stopped' }
        : { kind: 'wait', reason: `the instance is ${cloud.state}` };
    case 'ready':
      return cloud.state === 'running' && !pool.hot
        ? { kind: 'stop', reason: 'a ready spare must be stopped (it was started outside us)' }
        : { kind: 'nothing', reason: pool.hot ? `ready, hot (${cloud.state})` : 'ready' };
    default:
      return assertNever(pool.state);
  }
}

/**
 * What a pool launch or a machine launch is made with: the subnet for the attempt (0-based) —
 * the main subnets for the first attempts (rotating), then the fallback subnets (other
 * availability zones), then both in turn. (The image is the plan's: `imageForPlan`, plans.ts.)
 */
export function subnetForAttempt(
  subnets: { subnetIds: string[]; fallbackSubnetIds: string[] },
  attempt: number,
  beforeFallback: number,
): string {
  const main = subnets.subnetIds;
  const fallback = subnets.fallbackSubnetIds;
  if (attempt < beforeFallback || fallback.length === 0) return main[attempt % main.length] ?? main[0] ?? '';
  const later = [...fallback, ...main];
  return later[(attempt - beforeFallback) % later.length] ?? fallback[0] ?? '';
}

/**
 * What a renewal's `vm-provision` does with the machine it keeps. A machine being made is taken
 * on by the executor; one stopped (or stopping) that the customer has not started or stopped
 * since the payment is started, as after a first purchase; a running one with a plan change is
 * handed to the lifecycle (which stops, changes and starts it).
 */
export type ProvisionStep =
  | { kind: 'advance'; reason: string }
  | { kind: 'start'; reason: string }
  | { kind: 'retry-later'; reason: string }
  | { kind: 'change-running'; reason: string }
  | { kind: 'renewed'; reason: string }
  | { kind: 'nothing'; reason: string };

export function provisionStep(input: {
  machine: {
    state: MachineState;
    readyAt: Instant | null;
    startRequestedAt: Instant | null;
    stopRequestedAt: Instant | null;
    subscriptionAttachedAt: Instant;
    resizePending: boolean;
  };
  renewal: boolean;
  plan: PlanFacts | null;
  now: Instant;
}): ProvisionStep {
  const { machine, renewal, plan, now } = input;
  const attachedAt = toEpochMs(machine.subscriptionAttachedAt);
  const after = (at: Instant | null) => at !== null && toEpochMs(at) > attachedAt;
  switch (machine.state) {
    case 'requested':
    case 'provisioning':
      return { kind: 'advance', reason: 'a machine being made: the lifecycle takes it on' };
    case 'stopped':
    case 'stopping': {
      const untouched =
        renewal &&
        machine.readyAt !== null &&
        toEpochMs(machine.readyAt) < attachedAt &&
        !after(machine.startRequestedAt) &&
        !after(machine.stopRequestedAt);
      if (!untouched || !planInForce(plan, now))
        return { kind: 'nothing', reason: 'started or stopped by the customer since the payment' };
      return machine.state === 'stopping'
        ? { kind: 'retry-later', reason: 'the renewed machine is still stopping; starting it once stopped' }
        : { kind: 'start', reason: 'a renewal keeps the same machine and disk; starting it' };
    }
    case 'running':
    case 'starting':
      return machine.resizePending
        ? {
            kind: 'change-running',
            reason: 'plan change keeps the same machine and disk; restarting it changed',
          }
        : { kind: 'renewed', reason: 'the renewed machine is already running' };
    case 'terminating':
    case 'terminated':
    case 'error':
      return renewal
        ? { kind: 'renewed', reason: 'machine already provisioned' }
        : { kind: 'nothing', reason: 'machine already provisioned' };
    default:
      return assertNever(machine.state);
  }
}

/**
 * Which machine serves a newly activated plan: none (the plan is not in force), the one it
 * already has, or the customer's live machine kept — same instance, same disk — changed to the
 * new plan's type and grown to its disk when the plan differs (a disk never shrinks: the
 * customer's files stay). Without a live machine, a new one, from the customer's kept snapshot
 * when there is one.
 */
export type PlanMachineChoice =
  | { kind: 'skip'; reason: string }
  | { kind: 'wait'; reason: string }
  | { kind: 'existing'; reason: string }
  | { kind: 'keep-live'; reason: string; change: PlanChange | null }
  | { kind: 'new'; reason: string; restoreFrom: string | null };

/** What a plan change does to the kept machine: null fields stay as they are. */
export type PlanChange = { planId: string; instanceType: string | null; storageGb: number | null };

/** The change from a machine's kind to a plan's: null when it already is that kind. */
export function planChange(
  machine: { planId: string; instanceType: string; storageGb: number },
  plan: { planId: string; instanceType: string; storageGb: number },
): PlanChange | null {
  const instanceType = machine.instanceType === plan.instanceType ? null : plan.instanceType;
  const storageGb = plan.storageGb > machine.storageGb ? plan.storageGb : null;
  if (machine.planId === plan.planId && instanceType === null && storageGb === null) return null;
  return { planId: plan.planId, instanceType, storageGb };
}

/**
 * A kept snapshot a new machine can be made from: complete and within its window, or still
 * being saved from the customer's old machine (the new one then waits for it: a renewal in the
 * minutes after expiry must not lose the files a fresh machine would not have).
 */
function snapshotWillRestore(
  snapshot: { state: string; keepUntil: Instant } | null | undefined,
  now: Instant,
): boolean {
  return snapshotRestorable(snapshot, now) || snapshot?.state === 'creating';
}

/**
 * Whether a machine being made is late, so its customer is told and an operator alerted
 * (`vm-reaper`): PROVISION_DEADLINE_MINUTES after it could begin. A machine made from a copy of
 * the old disk begins when the copy is complete; while the copy is still being made it waits as
 * the checkout promised, so it is never late then, and its clock starts at the copy's completion.
 * `listLateProvisioning` (core/db/vms.ts) is this rule in SQL; a test proves they agree.
 */
export function provisioningLate(
  machine: { state: string; requestedAt: Instant },
  /** The snapshot the machine is to be made from, if any. */
  restore: { state: string; completedAt: Instant | null } | null,
  now: Instant,
  deadlineMinutes: number,
): boolean {
  if (machine.state !== 'requested' && machine.state !== 'provisioning') return false;
  if (restore?.state === 'creating') return false;
  const since = Math.max(toEpochMs(machine.requestedAt), toEpochMsOrNull(restore?.completedAt) ?? 0);
  return toEpochMs(now) - since > deadlineMinutes * 60_000;
}

/**
 * Whether a paid plan still waits for the machine that serves it, PROVISION_DEADLINE_MINUTES after
 * its purchase (`vm-reaper` then sends its provisioning again, and `machineForPlan` decides as it
 * would have): in force, and no machine attached to it — none created, or, for a renewal or a plan
 * change, the customer's live machine never moved onto it (still attached to the plan it
 * replaced). `listPaidWithoutMachine` (core/db/vms.ts) is this rule in SQL.
 */
export function planAwaitsMachine(
  plan: PlanFacts & { purchasedAt: Instant | null },
  /** Whether any machine row is attached to this plan (whatever its state). */
  hasMachine: boolean,
  now: Instant,
  deadlineMinutes: number,
): boolean {
  if (hasMachine || !planInForce(plan, now) || !plan.purchasedAt) return false;
  return toEpochMs(now) - toEpochMs(plan.purchasedAt) > deadlineMinutes * 60_000;
}

/** A kept snapshot can bring the customer's files back until the end of its window. */
export function snapshotRestorable(
  snapshot: { state: string; keepUntil: Instant } | null | undefined,
  now: Instant,
): boolean {
  return !!snapshot && snapshot.state === 'completed' && toEpochMs(snapshot.keepUntil) > toEpochMs(now);
}

/**
 * What the checkout tells the customer about their machine: the same PC and files (changed to
 * the new plan's kind, the disk never smaller), their files back from a kept copy, or nothing
 * (a first machine). Follows `machineForPlan`, so the promise is what the worker does.
 */
export function checkoutMachineNote(input: {
  plan: { planId: string; name: string; instanceType: string; storageGb: number };
  live: { planId: string; instanceType: string; storageGb: number; state: string } | null;
  kept: { state: string; keepUntil: Instant; completedAt: Instant | null } | null;
  /** As `machineForPlan`'s: the last machine is being deleted and its disk's copy not begun yet. */
  copyNotBegun?: boolean | undefined;
  now: Instant;
}): string | null {
  const { plan, live, kept, now } = input;
  if (live) {
    const change = planChange(live, plan);
    if (!change || (change.instanceType === null && change.storageGb === null))
      return 'You keep the same PC with all your files and programs.';
    const parts = [
      `You keep the same PC with all your files and programs: after payment it restarts as a ${plan.name} machine`,
    ];
    if (change.storageGb !== null)
      parts.push(` and its disk grows from ${live.storageGb} GB to ${change.storageGb} GB`);
    let note = `${parts.join('')}.`;
    if (plan.storageGb < live.storageGb)
      note += ` Your disk stays at ${live.storageGb} GB, more than this plan's ${plan.storageGb} GB, so nothing on it is lost.`;
    if (live.state === 'running' || live.state === 'starting')
      note += ' Save your work first: it restarts within a few minutes of payment.';
    return note;
  }
  if (input.copyNotBegun || kept?.state === 'creating')
    return "Your files come back: a copy of your old PC's disk is being saved right now, and your new PC starts from it once it is complete (this can take up to 20 minutes).";
  if (kept && kept.completedAt && snapshotRestorable(kept, now))
    return `Your files come back: your new PC starts from the copy of your old PC's disk saved on ${formatLongDate(kept.completedAt)}.`;
  return null;
}

export function machineForPlan(input: {
  plan: PlanFacts & { instanceType: string; storageGb: number; planId: string };
  /** The machine already created for this plan, if any. */
  planMachine: { state: string } | null;
  /** The customer's live machine, if any. */
  live: { planId: string; instanceType: string; storageGb: number } | null;
  /** The customer's latest kept snapshot, if any. */
  kept?: { id: string; state: string; keepUntil: Instant } | null | undefined;
  /**
   * The customer's last machine is being deleted with its disk kept, and no copy of that disk
   * is in the making yet (not begun, or the last one failed and the next is not begun).
   */
  copyNotBegun?: boolean | undefined;
  now: Instant;
}): PlanMachineChoice {
  const { plan, planMachine, live, now } = input;
  if (planMachine && isLive(planMachine.state))
    return { kind: 'existing', reason: 'the plan already has its machine' };
  if (!planInForce(plan, now)) return { kind: 'skip', reason: `the plan is ${plan.status}` };
  if (!live && input.copyNotBegun)
    // A fresh machine now would lose the files (or bring back an older copy); the copy is begun
    // within seconds of the deletion, and the new machine is then made from it.
    return {
      kind: 'wait',
      reason: "the customer's last machine is being deleted and the copy of its disk is not begun yet",
    };
  if (!live) {
    return input.kept && snapshotWillRestore(input.kept, now)
      ? {
          kind: 'new',
          reason:
            input.kept.state === 'creating'
              ? 'a new machine from the snapshot of the last one, once it is complete'
              : 'a new machine from the kept snapshot of the last one',
          restoreFrom: input.kept.id,
        }
      : { kind: 'new', reason: 'no machine yet', restoreFrom: null };
  }
  const change = planChange(live, plan);
  return change
    ? { kind: 'keep-live', reason: 'another kind of plan: the same machine and disk, changed', change }
    : {
        kind: 'keep-live',
        reason: 'a renewal of the same kind of machine keeps its instance and disk',
        change: null,
      };
}
