/**
 * Which machine serves a paid plan, and when: the one it has, the customer's live machine kept
 * (changed to the new plan's kind), or a new one (from the kept copy of the old disk); what a
 * renewal's provisioning does with the machine it keeps; and when a machine or a plan waits too
 * long (the reaper).
 */
import { assertNever } from './assertNever.ts';
import { snapshotRestorable, snapshotWillRestore } from './keptDisk.ts';
import { isLive, type MachineState } from './machineStates.ts';
import { planInForce, type PlanFacts } from './planTime.ts';
import { formatLongDate, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

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
