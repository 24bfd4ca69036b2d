/**
 * What the dashboard shows of a customer's machine and plan, decided once from their facts: the
 * display state, the clock, the downloads, START and why not, the plain sentence about anything
 * slow or wrong, the kept disk, the plan's end and the setup's progress. `api/presenters/vm.ts`
 * reads the rows into these facts and writes the record; it decides nothing itself.
 */
import { assertNever } from './assertNever.ts';
import { downloadsReady, isGone, type MachineState } from './machineStates.ts';
import { handoverNotice, pendingHandover, type Handover } from './planHandover.ts';
import { planEndView, type PlanEndRecord } from './planEnd.ts';
import { hoursExhausted, keptUntil, planInForce, type PlanFacts } from './planTime.ts';
import { setupPhaseOf, type SetupRecord, type SetupSource } from './setupProgress.ts';
import { toEpochMs, type Instant } from './time.ts';
import { remainingSeconds } from './usage.ts';
import { machineDisplayState, startRefusal, VM_MESSAGES, type VmDisplayState } from './vm.ts';

/** The customer's machine as the dashboard reads it (its row). */
export type ShownMachine = {
  subscriptionId: string;
  state: MachineState;
  source: SetupSource | null;
  instanceId: string | null;
  publicIp: string | null;
  passwordStored: boolean;
  /** What the customer reads about it (a delay's cause, a failure, a move off retiring hardware). */
  problem: string | null;
  /** The reaper told the customer its setup is late. */
  delayed: boolean;
  remoteDesktopWaitingSince: Instant | null;
  /** A plan change still to apply to the instance. */
  resizePending: boolean;
  stateReason: string | null;
  /** A new machine to be made from the copy of an old one's disk. */
  restoresDisk: boolean;
  requestedAt: Instant;
  startedAt: Instant | null;
  stateChangedAt: Instant;
  usageSeconds: number;
  usageCountedAt: Instant | null;
};

/** The plan the dashboard shows (the customer's current subscription). */
export type ShownPlan = PlanFacts & {
  id: string;
  planName: string;
  isTrial: boolean;
  purchasedAt: Instant | null;
};

/** The customer's latest kept disk: being copied, or copied and kept until a date. */
export type ShownKeptDisk = {
  state: 'creating' | 'completed';
  completedAt: Instant | null;
  keepUntil: Instant;
};

export type MachineViewInput = {
  machine: ShownMachine | null;
  plan: ShownPlan | null;
  /** Whether the subscription the machine still serves was a trial (asked only during a handover). */
  earlierPlanWasTrial: boolean;
  keptDisk: ShownKeptDisk | null;
  autopay: { status: string; nextDebitAt: Instant | null } | null;
  graceDays: number;
  now: Instant;
};

export type MachineView = {
  state: VmDisplayState;
  running: boolean;
  planActive: boolean;
  handover: Handover | null;
  /** Usage up to the last state change (the dashboard adds the time since while it runs). */
  usageSeconds: number;
  remainingSeconds: number | null;
  outOfHours: boolean;
  downloads: { rdp: boolean; password: boolean };
  /** When the machine of an ended plan is deleted unless renewed (epoch ms). */
  keptUntil: number | null;
  keptDisk: { saving: boolean; savedOn: Instant | null; keptUntil: Instant; deleting: boolean } | null;
  waitingForDiskCopy: boolean;
  canStart: boolean;
  startBlocked: string | null;
  notice: string | null;
  planEnd: PlanEndRecord | null;
  setup: SetupRecord | null;
  /** Since when it runs (the health line and Moonlight read it); null unless running. */
  runningSince: Instant | null;
};

export function machineView(input: MachineViewInput): MachineView {
  const { machine, plan, now } = input;
  const planActive = planInForce(plan, now);
  // The machine's usage belongs to the subscription it serves; a plan it does not serve yet starts at zero.
  const servesPlan = machine !== null && plan !== null && machine.subscriptionId === plan.id;
  // Paid, the machine not yet handed over to the new plan: neither its old clock nor its address.
  const handover = pendingHandover(
    { inForce: planActive, subscriptionId: plan?.id ?? null },
    machine && { subscriptionId: machine.subscriptionId, state: machine.state },
    input.earlierPlanWasTrial,
  );
  const accrued = machine && servesPlan ? machine.usageSeconds : 0;
  const outOfHours = plan !== null && hoursExhausted(plan, accrued);
  const state = machineDisplayState({
    vm: machine && { state: machine.state, source: machine.source, instanceId: machine.instanceId },
    servesPlan,
    planActive,
    handingOver: handover !== null,
  });
  const gone = !machine || isGone(machine.state);
  const keptDisk = keptDiskShown(input.keptDisk, machine, gone, planActive);
  // A new machine waiting for the copy of the old one's disk to be saved.
  const waitingForDiskCopy =
    planActive &&
    machine?.state === 'requested' &&
    machine.restoresDisk &&
    input.keptDisk?.state === 'creating';
  const refusal =
    machine?.state === 'stopped'
      ? startRefusal(machine, plan && { ...plan, usageSeconds: accrued }, now)
      : null;
  const planEnd = planEndView({
    plan,
    autopay: input.autopay,
    graceDays: input.graceDays,
    machineKept: !gone,
    now,
  });
  return {
    state,
    running: state === 'running',
    planActive,
    handover,
    usageSeconds: machine && servesPlan ? usageAtStateChange(machine) : 0,
    remainingSeconds: plan ? remainingSeconds(plan.hours, accrued) : null,
    outOfHours,
    downloads:
      machine && !handover
        ? downloadsReady({
            state: machine.state,
            publicIp: machine.publicIp,
            passwordStored: machine.passwordStored,
          })
        : { rdp: false, password: false },
    keptUntil: plan && !planActive && !gone ? keptUntil(plan, input.graceDays) : null,
    keptDisk,
    waitingForDiskCopy,
    canStart: machine?.state === 'stopped' && refusal === null && handover === null,
    startBlocked: refusal?.message ?? null,
    // The kept-disk notice says what happened and what a purchase brings back.
    notice: handover
      ? handoverNotice(handover)
      : keptDisk
        ? null
        : machineNotice(machine, state, {
            planActive,
            outOfHours,
            hasPlan: plan !== null,
            restoring: waitingForDiskCopy,
            endBanner: planEnd !== null,
          }),
    planEnd,
    setup: setupShown(plan, machine, { planActive, servesPlan, state, handingOver: handover !== null }),
    runningSince: machine?.state === 'running' ? machine.startedAt : null,
  };
}

/**
 * The copy of a deleted machine's disk, while no machine is being made from it: being saved, or
 * saved and kept until a date (a purchase before then brings the files back); `deleting` while
 * EC2 has not confirmed the PC's deletion.
 */
function keptDiskShown(
  disk: ShownKeptDisk | null,
  machine: ShownMachine | null,
  gone: boolean,
  planActive: boolean,
): MachineView['keptDisk'] {
  if (!disk || !gone || planActive) return null;
  return {
    saving: disk.state === 'creating',
    savedOn: disk.completedAt,
    keptUntil: disk.keepUntil,
    deleting: machine?.state === 'terminating',
  };
}

/**
 * Usage counted up to the last state change. While running, vm-sync moves `usage_counted_at`
 * forward as it accrues; the dashboard adds "now − last change" itself, so what it gets must be
 * the usage at that change, or the time since would be counted twice.
 */
function usageAtStateChange(machine: ShownMachine): number {
  if (machine.state !== 'running' || !machine.usageCountedAt) return machine.usageSeconds;
  const countedSince = Math.max(
    0,
    (toEpochMs(machine.usageCountedAt) - toEpochMs(machine.stateChangedAt)) / 1000,
  );
  return Math.max(0, machine.usageSeconds - countedSince);
}

/**
 * A paid plan's PC on its way (setupProgress.ts): its phase, how it comes and since when, for the
 * payment-success page and the dashboard's progress. Null once it runs, or when nothing is being
 * set up.
 */
function setupShown(
  plan: ShownPlan | null,
  machine: ShownMachine | null,
  shown: { planActive: boolean; servesPlan: boolean; state: VmDisplayState; handingOver: boolean },
): SetupRecord | null {
  if (!shown.planActive || shown.handingOver) return null;
  if (shown.state !== 'provisioning' && shown.state !== 'starting') return null;
  if (!machine || !shown.servesPlan || machine.state === 'terminated') {
    // Paid a moment ago: the provisioning job has not made its machine yet.
    const since = plan?.purchasedAt ?? null;
    return since
      ? { phase: 'preparing', source: null, requestedAt: new Date(toEpochMs(since)).toISOString() }
      : null;
  }
  // A first setup only: a restart of a machine that ran before says "Starting…" on its own.
  if (machine.state !== 'requested' && machine.state !== 'provisioning') return null;
  const phase = setupPhaseOf({
    state: machine.state,
    source: machine.source,
    instanceId: machine.instanceId,
    remoteDesktopWaitingSince: machine.remoteDesktopWaitingSince,
  });
  return phase && phase !== 'ready'
    ? { phase, source: machine.source, requestedAt: new Date(toEpochMs(machine.requestedAt)).toISOString() }
    : null;
}

/** The plain sentence about the machine and its plan: something slow, wrong, or waiting; null when all is well. */
function machineNotice(
  machine: ShownMachine | null,
  state: VmDisplayState,
  plan: {
    planActive: boolean;
    outOfHours: boolean;
    hasPlan: boolean;
    restoring: boolean;
    /** The plan-end banner says the plan ended, and what now: no second notice for it. */
    endBanner: boolean;
  },
): string | null {
  if (!plan.hasPlan) return null;
  if (plan.restoring) return VM_MESSAGES.restoringFiles;
  const first = machine ? noticeBeforePlan(machine, state, plan.planActive) : null;
  if (first !== null) return first;
  if (!plan.planActive) return plan.endBanner ? null : VM_MESSAGES.planExpired;
  if (plan.outOfHours) return VM_MESSAGES.outOfHours;
  return machine ? noticeAfterPlan(machine) : null;
}

/** What the machine's state says before anything about the plan: a failure, a deletion, a delay, a fault. */
function noticeBeforePlan(machine: ShownMachine, state: VmDisplayState, planActive: boolean): string | null {
  switch (machine.state) {
    case 'error':
      return machine.problem ?? VM_MESSAGES.failed;
    case 'terminated':
      if (!planActive) return VM_MESSAGES.terminated;
      return state === 'provisioning' && machine.delayed ? (machine.problem ?? VM_MESSAGES.delayed) : null;
    // The reaper's words for what holds it up (no capacity, the image, the password, a permission).
    case 'requested':
      return state === 'provisioning' && machine.delayed ? (machine.problem ?? VM_MESSAGES.delayed) : null;
    case 'provisioning':
      if (state === 'provisioning' && machine.delayed) return machine.problem ?? VM_MESSAGES.delayed;
      return machine.remoteDesktopWaitingSince ? VM_MESSAGES.waitingForRemoteDesktop : null;
    // A move off hardware EC2 retires: the date, and that it restarts while nobody is connected.
    case 'running':
      return machine.problem;
    case 'starting':
    case 'stopping':
    case 'stopped':
    case 'terminating':
      return null;
    default:
      return assertNever(machine.state);
  }
}

/** What the machine's state says once the plan is in force with hours left: why it is stopped, or being changed. */
function noticeAfterPlan(machine: ShownMachine): string | null {
  const planChange = machine.stateReason === 'plan-change';
  switch (machine.state) {
    case 'stopped':
      if (machine.problem) return machine.problem;
      return planChange ? VM_MESSAGES.planChange : null;
    // Stopping, being changed or starting for a plan of another kind: say why it is not running.
    case 'stopping':
    case 'starting':
      return machine.resizePending || planChange ? VM_MESSAGES.planChange : null;
    case 'requested':
    case 'provisioning':
    case 'running':
    case 'terminating':
    case 'terminated':
    case 'error':
      return null;
    default:
      return assertNever(machine.state);
  }
}
