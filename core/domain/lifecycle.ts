/**
 * The machine lifecycle as decisions. Given what we know of a machine (its row), the plan it
 * serves, what the cloud says of its instance and the time, `decideMachine` answers the one
 * thing to do next and why. It does no I/O: the worker gathers the inputs, asks, and carries the
 * decision out (`worker/lifecycle.ts`). Every rule the lifecycle depends on is a named
 * predicate here and nowhere else; the SPA and the SQL filters use the same ones (the SQL
 * copies are proven equal by `tests/integration/lifecycle-rules.test.ts`).
 *
 * The row's state is what we want (starting: we want it running; stopping: stopped;
 * terminating: gone); the cloud's state is what is. A decision closes the gap one step.
 */
import { DAY_MS, formatLongDate, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';
import { hourAlertsReached, planSeconds, remainingSeconds, type HourAlertPercent } from './usage.ts';

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
export const TRANSITIONAL_STATES = [
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
export function planEndedAt(plan: PlanFacts): number | null {
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
  const kept = machine.state !== 'error' && machine.state !== 'terminating' && machine.state !== 'terminated';
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
};

/** Where the snapshot of a machine whose disk is kept stands; undefined until looked at. */
export type SnapshotProgress = 'none' | 'pending' | 'completed' | 'failed';

export type LifecycleLimits = {
  /** A just-launched or just-started instance may be missing from DescribeInstances this long. */
  missingGraceMs: number;
  maxStartAttempts: number;
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
  snapshot?: SnapshotProgress | undefined;
  /**
   * For a new machine that brings back a kept disk: 'pending' while that copy is still being
   * saved from the customer's old machine (it cannot be launched from before it is complete).
   */
  restore?: 'pending' | 'ready' | undefined;
  now: Instant;
  limits: LifecycleLimits;
};

export type LostWhile = 'provisioning' | 'use';

/**
 * One step towards what the row wants. `reason` says why in a sentence an operator can read.
 * - observe: describe the instance first (the decision needs the cloud's view).
 * - launch / adopt / start / stop / terminate / capture-password / probe-remote-desktop / tag:
 *   an EC2 (or network) call, made under the row's lease.
 * - mark-*: a conditional row transition; accrue: count usage (with `alerts` reached).
 * - request-stop: running → stopping because the plan's hours or validity ran out.
 * - refuse-start / give-up-start: starting → stopped with a message for the customer.
 * - lost: the instance is gone; the machine ends in error (customer told if it never was ready).
 * - alert-unexpected: the instance runs while we hold it stopped (started outside us): stop it.
 * - resize: a plan change applied to the stopped instance (its type, a bigger disk).
 * - revert-resize: no machine of the new type could be started: the old type back, intact.
 * - observe-snapshot / snapshot: an expired machine's disk is snapshotted before it goes.
 * - nothing / wait: nothing to do now; `wait` means something is under way.
 */
/** A decision that carries nothing but its reason, one member per kind. */
type Plain<K extends string> = K extends string ? { kind: K; reason: string } : never;

export type Decision =
  | Plain<
      | 'nothing'
      | 'wait'
      | 'observe'
      | 'launch'
      | 'adopt'
      | 'start'
      | 'stop'
      | 'terminate'
      | 'tag'
      | 'capture-password'
      | 'probe-remote-desktop'
      | 'mark-terminated'
      | 'give-up-start'
      | 'alert-unexpected'
      | 'resize'
      | 'revert-resize'
      | 'observe-snapshot'
      | 'snapshot'
    >
  | { kind: 'mark-ready'; reason: string; publicIp: string }
  | { kind: 'mark-running'; reason: string; publicIp: string }
  | { kind: 'mark-stopped'; reason: string; stoppedBy: 'stop' | 'shut-down' }
  | { kind: 'accrue'; reason: string; alerts: HourAlertPercent[] }
  | {
      kind: 'request-stop';
      reason: string;
      why: 'out-of-hours' | 'plan-expired' | 'plan-change';
      alerts: HourAlertPercent[];
    }
  | { kind: 'refuse-start'; reason: string; why: 'out-of-hours' | 'plan-expired' }
  | { kind: 'lost'; reason: string; during: LostWhile };

export type DecisionKind = Decision['kind'];

function gone(cloud: CloudView): boolean {
  return cloud === null || cloud.state === 'terminated' || cloud.state === 'shutting-down';
}

/** Missing from EC2 for longer than a fresh instance may be (eventual consistency), or since an unknown time. */
export function missingTooLong(since: Instant | null, now: Instant, graceMs: number): boolean {
  const at = toEpochMsOrNull(since);
  return at === null || toEpochMs(now) - at > graceMs;
}

/** Usage up to `now` if the machine has been running since its last count, capped at the plan. */
export function usageUpTo(machine: MachineFacts, plan: Pick<PlanFacts, 'hours'>, now: Instant): number {
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

/** The next step for a machine. Pure: same input, same decision. */
export function decideMachine(input: LifecycleInput): Decision {
  const { machine, plan, cloud, now } = input;
  switch (machine.state) {
    case 'terminated':
      return { kind: 'nothing', reason: 'the machine is deleted' };
    case 'error':
      return { kind: 'nothing', reason: 'the machine failed; an operator decides what next' };
    case 'requested':
      if (!planInForce(plan, now)) return { kind: 'nothing', reason: 'the plan is no longer in force' };
      return input.restore === 'pending'
        ? {
            kind: 'wait',
            reason:
              "the copy of the customer's old disk is still being saved: it is launched from it once complete",
          }
        : { kind: 'launch', reason: 'a paid plan has no machine yet (a warm-pool one is claimed first)' };
    case 'terminating':
      // Never recorded an instance: terminate whatever was launched under its ClientToken.
      if (!machine.instanceId)
        return machine.launchAttempts > 0
          ? { kind: 'terminate', reason: 'a launch was sent: delete whatever it made' }
          : { kind: 'mark-terminated', reason: 'the machine never had an instance' };
      if (cloud === undefined) return { kind: 'observe', reason: 'terminating: is the instance gone?' };
      if (cloud === null || gone(cloud)) return { kind: 'mark-terminated', reason: 'the instance is gone' };
      if (machine.keepDisk) {
        switch (input.snapshot) {
          case undefined:
            return { kind: 'observe-snapshot', reason: 'its disk is kept: how far is the snapshot?' };
          case 'none':
          case 'failed':
            return { kind: 'snapshot', reason: 'its disk is kept: snapshot it before the instance goes' };
          case 'pending':
            return { kind: 'wait', reason: 'the snapshot of its disk is not complete yet' };
          default:
            break;
        }
      }
      return { kind: 'terminate', reason: `the machine is to be deleted and its instance is ${cloud.state}` };
    default:
      break;
  }
  if (machine.state === 'provisioning') return decideProvisioning(input);
  if (machine.state === 'starting') {
    if (!planInForce(plan, now))
      return { kind: 'refuse-start', reason: 'the plan is not in force', why: 'plan-expired' };
    if (plan && hoursExhausted(plan, machine.usageSeconds))
      return { kind: 'refuse-start', reason: "the plan's hours are used up", why: 'out-of-hours' };
  }
  if (!machine.instanceId) return { kind: 'lost', reason: 'the machine has no instance', during: 'use' };
  if (cloud === undefined) return { kind: 'observe', reason: `${machine.state}: what does EC2 say?` };

  switch (machine.state) {
    case 'starting': {
      const lost = lostOrWait(cloud, machine.startRequestedAt, input, 'use');
      if (lost) return lost;
      if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
      if (cloud.state === 'running')
        return cloud.publicIp
          ? {
              kind: 'mark-running',
              reason: 'EC2 says running with a public address',
              publicIp: cloud.publicIp,
            }
          : { kind: 'wait', reason: 'running, waiting for a public address' };
      if (cloud.state === 'stopped') {
        if (machine.startAttempts >= input.limits.maxStartAttempts)
          return machine.resizedFrom
            ? { kind: 'revert-resize', reason: 'no machine of the new type starts: put the old type back' }
            : { kind: 'give-up-start', reason: `no capacity after ${machine.startAttempts} start attempts` };
        if (machine.resizeTo)
          return {
            kind: 'resize',
            reason: 'the plan changed: change the stopped instance before starting it',
          };
        return { kind: 'start', reason: 'the customer asked for it and the instance is stopped' };
      }
      return { kind: 'wait', reason: `the instance is ${cloud.state}` };
    }
    case 'running': {
      const lost = lostOrWait(cloud, machine.launchedAt, input, 'use');
      if (lost)
        return lost.kind === 'wait'
          ? { kind: 'lost', reason: 'EC2 does not know the instance', during: 'use' }
          : lost;
      if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
      if (cloud.state === 'stopping' || cloud.state === 'stopped')
        return { kind: 'mark-stopped', reason: 'shut down from inside Windows', stoppedBy: 'shut-down' };
      if (!plan || !planInForce(plan, now)) {
        return { kind: 'request-stop', reason: 'the plan is not in force', why: 'plan-expired', alerts: [] };
      }
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
      return { kind: 'accrue', reason: 'running: count the time since the last count', alerts };
    }
    case 'stopping': {
      const lost = lostOrWait(cloud, machine.startRequestedAt ?? machine.launchedAt, input, 'use');
      if (lost)
        return lost.kind === 'wait'
          ? { kind: 'lost', reason: 'EC2 does not know the instance', during: 'use' }
          : lost;
      if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
      if (cloud.state === 'stopped')
        return { kind: 'mark-stopped', reason: 'EC2 says stopped', stoppedBy: 'stop' };
      if (cloud.state === 'running')
        return { kind: 'stop', reason: 'a stop was asked for and the instance still runs' };
      return { kind: 'wait', reason: `the instance is ${cloud.state}` };
    }
    case 'stopped': {
      const lost = lostOrWait(cloud, machine.stoppedAt, input, 'use');
      if (lost) return lost;
      if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
      if (cloud.state === 'running' || cloud.state === 'pending')
        return { kind: 'alert-unexpected', reason: `the instance is ${cloud.state} but nobody asked for it` };
      // Stopped for a plan change (not by the customer, not after a failed start): change and start it.
      if (
        machine.resizeTo &&
        machine.stateReason === 'plan-change' &&
        cloud.state === 'stopped' &&
        planInForce(plan, now)
      )
        return { kind: 'resize', reason: 'stopped for the plan change: change the instance, then start it' };
      return { kind: 'nothing', reason: `stopped (EC2: ${cloud.state})` };
    }
    default:
      return { kind: 'nothing', reason: `no rule for ${machine.state}` };
  }
}

/** requested → provisioning → running: launch (or claim), adopt, tag, start, password, Remote Desktop, ready. */
function decideProvisioning(input: LifecycleInput): Decision {
  const { machine, cloud, now, plan } = input;
  if (!machine.instanceId) {
    if (!planInForce(plan, now)) return { kind: 'nothing', reason: 'the plan is no longer in force' };
    return machine.launchAttempts > 0
      ? { kind: 'adopt', reason: 'a launch was sent but its answer was not recorded: find it by ClientToken' }
      : { kind: 'launch', reason: 'no instance yet' };
  }
  if (cloud === undefined) return { kind: 'observe', reason: 'provisioning: what does EC2 say?' };
  const lost = lostOrWait(cloud, machine.launchedAt, input, 'provisioning');
  if (lost) return lost;
  if (cloud === null) return { kind: 'wait', reason: 'unreachable' };
  // A claimed warm-pool instance carries the pool's tags until ours are written.
  if (machine.source === 'pool' && cloud.vmTag !== machine.id)
    return { kind: 'tag', reason: 'the claimed warm-pool instance still carries the pool tags' };
  if (cloud.state === 'stopped') {
    return machine.source === 'pool'
      ? { kind: 'start', reason: 'the claimed warm-pool instance is stopped' }
      : { kind: 'lost', reason: 'the new instance stopped during its first boot', during: 'provisioning' };
  }
  if (cloud.state !== 'running') return { kind: 'wait', reason: `the instance is ${cloud.state}` };
  if (!machine.passwordStored)
    return { kind: 'capture-password', reason: 'running: is Windows done with its first boot?' };
  if (!cloud.publicIp) return { kind: 'wait', reason: 'running, waiting for a public address' };
  if (input.remoteDesktop === undefined)
    return { kind: 'probe-remote-desktop', reason: 'password ready: does Remote Desktop answer?' };
  if (input.remoteDesktop === 'closed')
    return { kind: 'wait', reason: 'waiting for Remote Desktop to answer' };
  return {
    kind: 'mark-ready',
    reason: 'running, password stored, Remote Desktop answers',
    publicIp: cloud.publicIp,
  };
}

/**
 * A spare whose Windows has not finished its first boot this long after launch never will (a bad
 * image, a broken first-boot agent): it is failed, so its instance is no longer ours and the
 * reconciler terminates it (with an alert), instead of billing forever in `launching` and holding
 * a place in the pool. A first boot takes minutes; this leaves a wide margin.
 */
export const POOL_FIRST_BOOT_DEADLINE_MS = 45 * 60_000;

export function firstBootOverdue(launchedAt: Instant | null, now: Instant): boolean {
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

export type PoolDecision = Plain<
  'nothing' | 'wait' | 'observe' | 'adopt' | 'capture-password' | 'stop' | 'mark-ready' | 'fail'
>;

export function decidePoolInstance(input: {
  pool: PoolFacts;
  cloud: CloudView | undefined;
  now: Instant;
  limits: Pick<LifecycleLimits, 'missingGraceMs'>;
}): PoolDecision {
  const { pool, cloud, now, limits } = input;
  if (pool.state === 'claimed' || pool.state === 'failed')
    return { kind: 'nothing', reason: `pool instance ${pool.state}` };
  if (!pool.instanceId) {
    return pool.state === 'launching' && pool.launchAttempts > 0
      ? { kind: 'adopt', reason: 'a launch was sent but its answer was not recorded: find it by ClientToken' }
      : { kind: 'wait', reason: 'waiting for its launch' };
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
      // Running: the password says whether the first boot is done (the worker fails it there
      // when it is not, past the deadline); never running past the deadline: failed here.
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
      return { kind: 'nothing', reason: 'no rule' };
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
export function snapshotWillRestore(
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
  if (kept && kept.completedAt && snapshotRestorable(kept, now))
    return `Your files come back: your new PC starts from the copy of your old PC's disk saved on ${formatLongDate(kept.completedAt)}.`;
  if (kept && snapshotWillRestore(kept, now))
    return "Your files come back: a copy of your old PC's disk is being saved right now, and your new PC starts from it once it is complete (this can take up to 20 minutes).";
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
  now: Instant;
}): PlanMachineChoice {
  const { plan, planMachine, live, now } = input;
  if (planMachine && isLive(planMachine.state))
    return { kind: 'existing', reason: 'the plan already has its machine' };
  if (!planInForce(plan, now)) return { kind: 'skip', reason: `the plan is ${plan.status}` };
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
