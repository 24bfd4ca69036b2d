import type {
  DashboardAutopay,
  DashboardHealth,
  DashboardKeptDisk,
  DashboardPairing,
  DashboardState,
  DashboardSubscription,
  DashboardVm,
} from '../../core/db/dashboard.ts';
import { autoRenewRecord } from '../../core/domain/autopay.ts';
import { assessHealth, normaliseFingerprint } from '../../core/domain/machineHealth.ts';
import { streamingView } from '../../core/domain/streaming.ts';
import { machineNameView, type MachineNameView } from '../../core/domain/machineName.ts';
import { downloadsReady } from '../../core/domain/machineStates.ts';
import { hoursExhausted, keptUntil as keptUntilOf, planInForce } from '../../core/domain/planTime.ts';
import { isGone } from '../../core/domain/machineStates.ts';
import { handoverNotice, pendingHandover } from '../../core/domain/planHandover.ts';
import { planEndView } from '../../core/domain/planEnd.ts';
import { setupPhaseOf } from '../../core/domain/setupProgress.ts';
import { isTrialPlanName } from '../../core/domain/trial.ts';
import { findPlan } from '../../core/domain/plans.ts';
import { remainingSeconds } from '../../core/domain/usage.ts';
import {
  machineDisplayState,
  startRefusal,
  VM_MESSAGES,
  type DashboardRecord,
  type VmDisplayState,
} from '../../core/domain/vm.ts';
import type { VmConfig } from '../../core/config/vmConfig.ts';

/** What GET /api/vm/dashboard/{email} answers: the record both sides share (core/domain/vm.ts). */
export type DashboardBody = DashboardRecord;

export function dashboardBody(input: {
  user: { email: string; name: string };
  subscription: DashboardSubscription | null;
  vm: DashboardVm | null;
  keptDisk?: DashboardKeptDisk | null;
  /** The machine's own health report and Moonlight pairings (game streaming). */
  reportsHealth?: boolean;
  health?: DashboardHealth | null;
  clockAhead?: DashboardState['clockAhead'];
  pairings?: DashboardPairing[];
  /** Whether the subscription the machine still serves was a trial (asked only during a handover). */
  earlierPlanWasTrial?: boolean;
  autopay?: DashboardAutopay | null;
  /** The machine's DNS name row, and the zone's suffix (null: no zone, so no names). */
  name?: DashboardState['name'];
  nameSuffix?: string | null;
  vmConfig: VmConfig;
  now: Date;
}): DashboardBody {
  const { user, subscription, vm, vmConfig, now } = input;
  const plan = subscription && {
    status: subscription.status,
    expiresAt: subscription.expires_at,
    hours: subscription.hours,
    cancelledAt: subscription.cancelled_at,
  };
  const planActive = planInForce(plan, now);
  // The VM's usage belongs to the subscription it serves; a plan it does not serve yet starts at zero.
  const servesPlan = vm !== null && subscription !== null && vm.subscription_id === subscription.id;
  // Paid, the machine not yet handed over to the new plan: neither its old clock nor its address.
  const handover = pendingHandover(
    { inForce: planActive, subscriptionId: subscription?.id ?? null },
    vm && { subscriptionId: vm.subscription_id, state: vm.state },
    input.earlierPlanWasTrial ?? false,
  );
  const usageSeconds = vm && servesPlan ? usageAtStateChange(vm) : 0;
  const accruedNow = vm && servesPlan ? vm.usage_seconds : 0;
  const outOfHours = plan !== null && hoursExhausted(plan, accruedNow);

  const state = machineDisplayState({
    vm: vm && { state: vm.state, source: vm.source, instanceId: vm.instance_id },
    servesPlan,
    planActive,
    handingOver: handover !== null,
  });
  // Running as shown: a machine being handed over to a new plan shows as starting.
  const running = state === 'running';

  // Session-identified addresses: no email in links, history or logs (the spec's /:email forms
  // still answer). `v` changes on every start, so a browser never reuses an old address's file.
  const version = vm?.started_at ? vm.started_at.getTime() : 0;
  const ready =
    vm && !handover
      ? downloadsReady({
          state: vm.state,
          publicIp: vm.public_ip,
          passwordStored: vm.password_encrypted !== null,
        })
      : { rdp: false, password: false };
  const rdpUrl = ready.rdp ? `/api/vm/rdp?v=${version}` : null;
  const pwdUrl = ready.password ? '/api/vm/password' : null;
  const kept =
    plan && !planActive && vm && vm.state !== 'terminated' && vm.state !== 'terminating'
      ? keptUntilOf(plan, vmConfig.graceDays)
      : null;
  const keptUntil = kept === null ? null : new Date(kept).toISOString();
  // The copy of a deleted machine's disk, while no machine is being made from it. (The poll's
  // statement reads the kept disk only when one of these two uses can show it: KEPT_DISK_SHOWN.)
  const disk = input.keptDisk;
  const machineGone = !vm || isGone(vm.state);
  const keptDisk =
    disk && machineGone && !planActive
      ? {
          saving: disk.state === 'creating',
          savedOn: disk.completed_at?.toISOString() ?? null,
          keptUntil: disk.keep_until.toISOString(),
          deleting: vm?.state === 'terminating',
        }
      : null;

  // A new machine waiting for the copy of the old one's disk to be saved.
  const waitingForDiskCopy =
    planActive && vm?.state === 'requested' && vm.restore_snapshot_id !== null && disk?.state === 'creating';

  const ending = planEndFields(subscription, vm, input.autopay ?? null, vmConfig, now);
  return {
    email: user.email,
    name: user.name,
    purchaseDate: subscription?.purchased_at?.toISOString() ?? null,
    expiryDate: subscription?.expires_at?.toISOString() ?? null,
    selectedPlan: subscription?.plan_name ?? '',
    selectedDuration: subscription?.hours ?? null,
    selectedStorage: subscription ? `${subscription.storage_gb} GB` : null,
    selectedPrice: subscription ? subscription.price_paise / 100 : null,
    vmUsageSeconds: Math.floor(usageSeconds),
    vmLastState: state,
    vmLastStateChange: vm?.state_changed_at.toISOString() ?? null,
    rdpUrl,
    pwdUrl,
    isRunning: running,
    vmPublicIp: running ? (vm?.public_ip ?? null) : null,
    planActive,
    remainingSeconds: subscription ? remainingSeconds(subscription.hours, accruedNow) : null,
    outOfHours,
    canStart: vm?.state === 'stopped' && planActive && !outOfHours && handover === null,
    canStop: running,
    // The kept-disk notice says what happened and what a purchase brings back.
    notice: handover
      ? handoverNotice(handover)
      : keptDisk
        ? null
        : noticeFor(vm, state, {
            planActive,
            outOfHours,
            hasPlan: subscription !== null,
            restoring: waitingForDiskCopy,
            endBanner: ending.planEnd !== null,
          }),
    keptUntil,
    keptDisk,
    waitingForDiskCopy,
    handover,
    streamingClientUrl: vmConfig.streamingClientUrl,
    setupVideoUrl: vmConfig.setupVideoUrl,
    machineName: handover ? null : nameOf(vm, input),
    namesEnabled: Boolean(input.nameSuffix),
    ...streamingFields(vm, input, now),
    autoRenew: autoRenewOf(input.autopay ?? null),
    ...ending,
    setup: setupOf(subscription, vm, { planActive, servesPlan, state, handingOver: handover !== null }),
    trialMachine:
      subscription && isTrialPlanName(subscription.plan_name)
        ? (findPlan(subscription.plan_id)?.displayName ?? null)
        : null,
  };
}

/**
 * A paid plan's PC on its way (core/domain/setupProgress.ts): its phase, how it comes and since
 * when, for the payment-success page and the dashboard's progress. Null once it runs, or when
 * nothing is being set up.
 */
function setupOf(
  subscription: DashboardSubscription | null,
  vm: DashboardVm | null,
  shown: { planActive: boolean; servesPlan: boolean; state: VmDisplayState; handingOver: boolean },
): DashboardBody['setup'] {
  if (!shown.planActive || shown.handingOver) return null;
  if (shown.state !== 'provisioning' && shown.state !== 'starting') return null;
  if (!vm || !shown.servesPlan || vm.state === 'terminated') {
    // Paid a moment ago: the provisioning job has not made its machine yet.
    const since = subscription?.purchased_at ?? null;
    return since ? { phase: 'preparing', source: null, requestedAt: since.toISOString() } : null;
  }
  // A first setup only: a restart of a machine that ran before says "Starting…" on its own.
  if (vm.state !== 'requested' && vm.state !== 'provisioning') return null;
  const phase = setupPhaseOf({
    state: vm.state,
    source: vm.source,
    instanceId: vm.instance_id,
    remoteDesktopWaitingSince: vm.remote_desktop_waiting_since,
  });
  return phase && phase !== 'ready'
    ? { phase, source: vm.source, requestedAt: vm.requested_at.toISOString() }
    : null;
}

/**
 * The plan's end (core/domain/planEnd.ts) and whether START would be refused: the banner of the
 * last days, the ended state, the renewal the plans page offers. A poll after a renewal or a
 * refund answers from the new record, so the banner follows a moved end.
 */
function planEndFields(
  subscription: DashboardSubscription | null,
  vm: DashboardVm | null,
  autopay: DashboardAutopay | null,
  vmConfig: VmConfig,
  now: Date,
): Pick<DashboardBody, 'planEnd' | 'startBlocked'> {
  const plan = subscription && {
    status: subscription.status,
    expiresAt: subscription.expires_at,
    hours: subscription.hours,
    cancelledAt: subscription.cancelled_at,
    planName: subscription.plan_name,
    isTrial: isTrialPlanName(subscription.plan_name),
  };
  const usage = vm && subscription && vm.subscription_id === subscription.id ? vm.usage_seconds : 0;
  const refusal =
    vm?.state === 'stopped' ? startRefusal(vm, plan && { ...plan, usageSeconds: usage }, now) : null;
  return {
    planEnd: planEndView({
      plan,
      autopay: autopay && { status: autopay.status, nextDebitAt: autopay.next_debit_at },
      graceDays: vmConfig.graceDays,
      machineKept:
        vm !== null && vm.state !== 'terminating' && vm.state !== 'terminated' && vm.state !== 'error',
      now,
    }),
    startBlocked: refusal?.message ?? null,
  };
}

/**
 * The machine's health line and how to play on it: `machineHealth` and `streaming`, both null
 * while there is no live machine, or one launched before machines reported their own health.
 */
// The poll's statement reads the health report and pairings only when this shows them (STREAMING_SHOWN).
function streamingFields(
  vm: DashboardVm | null,
  input: {
    reportsHealth?: boolean;
    health?: DashboardHealth | null;
    clockAhead?: DashboardState['clockAhead'];
    pairings?: DashboardPairing[];
    name?: DashboardState['name'];
    nameSuffix?: string | null;
  },
  now: Date,
): Pick<DashboardBody, 'machineHealth' | 'streaming'> {
  if (!vm || !input.reportsHealth || isGone(vm.state)) return { machineHealth: null, streaming: null };
  const health = input.health ?? null;
  const report = health?.report ?? null;
  return {
    machineHealth: assessHealth({
      machine: {
        state: vm.state,
        runningSince: vm.state === 'running' ? vm.started_at : null,
        instanceType: vm.instance_type,
      },
      health,
      clockAhead: input.clockAhead ?? null,
      now,
    }),
    streaming: streamingView({
      machine: { state: vm.state, publicIp: vm.public_ip },
      host: {
        reported: report !== null,
        sunshineRunning: report?.sunshine.running ?? null,
        certificatePinned: normaliseFingerprint(report?.sunshine.certSha256 ?? '') !== null,
      },
      pairings: input.pairings ?? [],
      now,
      name: nameOf(vm, input),
      namesEnabled: Boolean(input.nameSuffix),
      runningSince: vm.state === 'running' ? vm.started_at : null,
    }),
  };
}

/** The machine's DNS name as the dashboard shows it (core/domain/machineName.ts). */
function nameOf(
  vm: DashboardVm | null,
  input: { name?: DashboardState['name']; nameSuffix?: string | null },
): MachineNameView | null {
  if (!vm) return null;
  return machineNameView(input.name ?? null, input.nameSuffix ?? null, {
    state: vm.state,
    publicIp: vm.public_ip,
  });
}

function autoRenewOf(a: DashboardAutopay | null) {
  return autoRenewRecord(
    a && {
      status: a.status,
      amountPaise: a.amount_paise,
      method: a.method,
      nextDebitAt: a.next_debit_at,
      problem: a.problem,
    },
    a?.renewal_state && a.debit_at && a.renewal_at
      ? {
          state: a.renewal_state,
          noticeSentAt: a.notice_sent_at,
          debitAt: a.debit_at,
          nextAttemptAt: a.next_attempt_at,
          failureReason: a.failure_reason,
          renewalAt: a.renewal_at,
        }
      : null,
  );
}

/**
 * Usage counted up to the last state change. While running, vm-sync moves `usage_counted_at`
 * forward as it accrues; the dashboard adds "now − last change" itself, so what it gets must be
 * the usage at that change, or the time since would be counted twice.
 */
function usageAtStateChange(vm: DashboardVm): number {
  if (vm.state !== 'running' || !vm.usage_counted_at) return vm.usage_seconds;
  const countedSince = Math.max(0, (vm.usage_counted_at.getTime() - vm.state_changed_at.getTime()) / 1000);
  return Math.max(0, vm.usage_seconds - countedSince);
}

function noticeFor(
  vm: DashboardVm | null,
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
  if (vm?.state === 'error') return vm.problem ?? VM_MESSAGES.failed;
  if (vm?.state === 'terminated' && !plan.planActive) return VM_MESSAGES.terminated;
  // The reaper's words for what holds it up (no capacity, the image, the password, a permission).
  if (state === 'provisioning' && vm?.delayed_at) return vm.problem ?? VM_MESSAGES.delayed;
  // A move off hardware EC2 retires: the date, and that it restarts while nobody is connected.
  if (vm?.state === 'running' && vm.problem) return vm.problem;
  if (vm?.state === 'provisioning' && vm.remote_desktop_waiting_since)
    return VM_MESSAGES.waitingForRemoteDesktop;
  if (!plan.planActive) return plan.endBanner ? null : VM_MESSAGES.planExpired;
  if (plan.outOfHours) return VM_MESSAGES.outOfHours;
  if (vm?.state === 'stopped' && vm.problem) return vm.problem;
  // Stopping, being changed or starting for a plan of another kind: say why it is not running.
  if (
    vm &&
    (vm.resize_to_type !== null || vm.resize_to_gb !== null || vm.state_reason === 'plan-change') &&
    (vm.state === 'stopping' ||
      vm.state === 'starting' ||
      (vm.state === 'stopped' && vm.state_reason === 'plan-change'))
  )
    return VM_MESSAGES.planChange;
  return null;
}
