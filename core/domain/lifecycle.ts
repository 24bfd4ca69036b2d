/**
 * The machine lifecycle as decisions. Given what we know of a machine (its row), the plan it
 * serves, what the cloud says of its instance and the time, `decideMachine` answers the one
 * thing to do next and why. It does no I/O: the worker gathers the inputs, asks, and carries the
 * decision out (`worker/lifecycle/advance.ts`), one step at a time, never choosing.
 *
 * The row's state is what we want (starting: we want it running; stopping: stopped;
 * terminating: gone); the cloud's state is what is. A decision closes the gap one step. The
 * vocabulary is machineDecision.ts; a machine being made is machineProvisioning.ts; its kept
 * disk keptDisk.ts.
 */
import { assertNever } from './assertNever.ts';
import { decideKeptDisk } from './keptDisk.ts';
import {
  instanceFate,
  stepRule,
  type Decision,
  type LiveCloud,
  type LifecycleInput,
  type MachineFacts,
  type Mode,
} from './machineDecision.ts';
import { HARDWARE_MOVE_REASON } from './machineEvents.ts';
import { nameAwayFirst, nameFirst } from './machineName.ts';
import { decideProvisioning, decideRequested } from './machineProvisioning.ts';
import { isTransitional } from './machineStates.ts';
import { hoursExhausted, planInForce, type PlanFacts } from './planTime.ts';
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';
import { hourAlertsReached, planSeconds, remainingSeconds, type HourAlertPercent } from './usage.ts';

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

/** Usage up to `now` if the machine has been running since its last count, capped at the plan. */
function usageUpTo(machine: MachineFacts, plan: Pick<PlanFacts, 'hours'>, now: Instant): number {
  const counted = toEpochMsOrNull(machine.usageCountedAt);
  const extra = counted === null ? 0 : Math.max(0, (toEpochMs(now) - counted) / 1000);
  return Math.min(planSeconds(plan.hours), machine.usageSeconds + extra);
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
      return inUse(input, { since: machine.startRequestedAt }, decideStarting);
    case 'running':
      return inUse(input, 'at-once', decideRunning);
    case 'stopping':
      return inUse(input, 'at-once', decideStopping);
    case 'stopped':
      return inUse(input, { since: machine.stoppedAt }, decideStopped);
    default:
      return assertNever(machine.state);
  }
}

/**
 * A machine that has (had) an instance: lost without one; observed before anything else; lost
 * when EC2 no longer has it (`at-once` for one that was running or stopping; else only once
 * missing for longer than a fresh instance may be, counted from `since`); else decided on what
 * EC2 says of the instance that is there.
 */
function inUse(
  input: LifecycleInput,
  missing: { since: Instant | null } | 'at-once',
  decide: (input: LifecycleInput, cloud: LiveCloud) => Decision,
): Decision {
  const { machine, cloud } = input;
  if (!machine.instanceId) return { kind: 'lost', reason: 'the machine has no instance', during: 'use' };
  if (cloud === undefined) return { kind: 'observe', reason: `${machine.state}: what does EC2 say?` };
  const fate = instanceFate(cloud, input, 'use', missing);
  return fate.kind === 'there' ? decide(input, fate.cloud) : fate.decision;
}

function decideStarting(input: LifecycleInput, cloud: LiveCloud): Decision {
  const { machine, limits, lastTry } = input;
  switch (cloud.state) {
    case 'running':
      return cloud.publicIp
        ? (nameFirst(input.name, cloud.publicIp, lastTry) ?? {
            kind: 'mark-running',
            reason: 'EC2 says running with a public address',
            publicIp: cloud.publicIp,
          })
        : { kind: 'wait', reason: 'running, waiting for a public address' };
    case 'pending':
    case 'stopping':
      return { kind: 'wait', reason: `the instance is ${cloud.state}` };
    case 'stopped':
      break;
    default:
      return assertNever(cloud.state);
  }
  if (machine.startAttempts >= limits.maxStartAttempts)
    return machine.resizedFrom
      ? { kind: 'revert-resize', reason: 'no machine of the new type starts: put the old type back' }
      : { kind: 'give-up-start', reason: `no capacity after ${machine.startAttempts} start attempts` };
  if (machine.resizeTo)
    return { kind: 'resize', reason: 'the plan changed: change the stopped instance before starting it' };
  switch (lastTry) {
    case 'start-failed':
      return { kind: 'retry-later', reason: `start attempt ${machine.startAttempts} failed` };
    case 'not-startable-yet':
      return {
        kind: 'retry-later',
        reason: 'still stopping (a quick STOP then START): not a failed attempt',
      };
    case undefined:
    case 'no-spare':
    case 'nothing-adopted':
    case 'launch-failed':
    case 'stop-refused':
    case 'password-not-ready':
    case 'password-undecryptable':
    case 'name-failed':
    case 'instance-not-found':
      return { kind: 'start', reason: 'the customer asked for it and the instance is stopped' };
    default:
      return assertNever(lastTry);
  }
}

function decideRunning(input: LifecycleInput, cloud: LiveCloud): Decision {
  const { machine, plan, now } = input;
  switch (cloud.state) {
    case 'stopping':
    case 'stopped':
      return { kind: 'mark-stopped', reason: 'shut down from inside Windows', stoppedBy: 'shut-down' };
    case 'pending':
    case 'running':
      break;
    default:
      return assertNever(cloud.state);
  }
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
  // Pending: its time is counted once EC2 says it runs.
  if (cloud.state === 'pending') return { kind: 'wait', reason: 'the instance is pending' };
  return {
    kind: 'accrue',
    reason: 'running: count the time since the last count',
    alerts,
    capSeconds: planSeconds(plan.hours),
  };
}

function decideStopping(input: LifecycleInput, cloud: LiveCloud): Decision {
  switch (cloud.state) {
    case 'stopped':
      return { kind: 'mark-stopped', reason: 'EC2 says stopped', stoppedBy: 'stop' };
    case 'running':
      return (
        nameAwayFirst(input.name, input.lastTry) ?? {
          kind: 'stop',
          reason: 'a stop was asked for and the instance still runs',
        }
      );
    case 'pending':
    case 'stopping':
      return { kind: 'wait', reason: `the instance is ${cloud.state}` };
    default:
      return assertNever(cloud.state);
  }
}

function decideStopped(input: LifecycleInput, cloud: LiveCloud): Decision {
  const { machine, plan, now } = input;
  const away = nameAwayFirst(input.name, input.lastTry);
  if (away) return away;
  switch (cloud.state) {
    case 'running':
    case 'pending':
      return unexpectedStart(input, cloud.state);
    case 'stopping':
      return { kind: 'nothing', reason: `stopped (EC2: ${cloud.state})` };
    case 'stopped':
      break;
    default:
      return assertNever(cloud.state);
  }
  // Stopped for a plan change or to move it off retiring hardware (not by the customer, not after
  // a failed start): change it if the plan asks, then start it.
  const restarts = machine.stateReason === 'plan-change' || machine.stateReason === HARDWARE_MOVE_REASON;
  if (restarts && planInForce(plan, now))
    return machine.resizeTo
      ? { kind: 'resize', reason: 'stopped for the plan change: change the instance, then start it' }
      : { kind: 'request-start', reason: `stopped for ${machine.stateReason}: started again` };
  return { kind: 'nothing', reason: `stopped (EC2: ${cloud.state})` };
}

/** A machine held stopped whose instance runs (started outside us): stopped, with an alert, once it can be. */
function unexpectedStart(input: LifecycleInput, state: 'running' | 'pending'): Decision {
  switch (input.lastTry) {
    case 'stop-refused':
      return { kind: 'wait', reason: `the instance is ${state}: it is stopped once it runs` };
    case undefined:
    case 'no-spare':
    case 'nothing-adopted':
    case 'launch-failed':
    case 'start-failed':
    case 'not-startable-yet':
    case 'password-not-ready':
    case 'password-undecryptable':
    case 'name-failed':
    case 'instance-not-found':
      return { kind: 'alert-unexpected', reason: `the instance is ${state} but nobody asked for it` };
    default:
      return assertNever(input.lastTry);
  }
}

/** Terminating: whatever was launched is deleted, its disk snapshotted first when it is kept. */
function decideTerminating(input: LifecycleInput): Decision {
  const { machine, cloud } = input;
  // Never recorded an instance: terminate whatever was launched under its ClientToken, then it is gone.
  if (!machine.instanceId) {
    if (machine.launchAttempts === 0)
      return { kind: 'mark-terminated', reason: 'the machine never had an instance' };
    return cloud === undefined
      ? { kind: 'terminate', reason: 'a launch was sent: delete whatever it made' }
      : { kind: 'mark-terminated', reason: 'whatever its launch made is deleted' };
  }
  if (cloud === undefined) return { kind: 'observe', reason: 'terminating: is the instance gone?' };
  if (cloud === null) return { kind: 'mark-terminated', reason: 'EC2 confirms the instance is gone' };
  switch (cloud.state) {
    case 'terminated':
      return { kind: 'mark-terminated', reason: 'EC2 confirms the instance is gone' };
    // Deleted only once EC2 says so: until then the customer reads "being deleted".
    case 'shutting-down':
      return { kind: 'check-later', reason: 'EC2 is deleting the instance (shutting-down)' };
    case 'pending':
    case 'running':
    case 'stopping':
    case 'stopped': {
      const kept = machine.keepDisk ? decideKeptDisk(input.snapshot, input.now, input.limits) : null;
      return (
        nameAwayFirst(input.name, input.lastTry) ??
        kept ?? {
          kind: 'terminate',
          reason: `the machine is to be deleted and its instance is ${cloud.state}`,
        }
      );
    }
    default:
      return assertNever(cloud.state);
  }
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
