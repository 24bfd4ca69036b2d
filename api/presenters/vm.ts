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
import { isGone } from '../../core/domain/machineStates.ts';
import { machineView, type ShownMachine } from '../../core/domain/machineView.ts';
import { isTrialPlanName } from '../../core/domain/trial.ts';
import { findPlan } from '../../core/domain/plans.ts';
import type { DashboardRecord } from '../../core/domain/vm.ts';
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
  const disk = input.keptDisk ?? null;
  const autopay = input.autopay ?? null;
  // What to show is core/domain/machineView.ts's; this only reads the rows and writes the record.
  const view = machineView({
    machine: vm && shownMachine(vm),
    plan: subscription && {
      id: subscription.id,
      status: subscription.status,
      expiresAt: subscription.expires_at,
      hours: subscription.hours,
      cancelledAt: subscription.cancelled_at,
      planName: subscription.plan_name,
      isTrial: isTrialPlanName(subscription.plan_name),
      purchasedAt: subscription.purchased_at,
    },
    earlierPlanWasTrial: input.earlierPlanWasTrial ?? false,
    keptDisk: disk && { state: disk.state, completedAt: disk.completed_at, keepUntil: disk.keep_until },
    autopay: autopay && { status: autopay.status, nextDebitAt: autopay.next_debit_at },
    graceDays: vmConfig.graceDays,
    now,
  });
  // Session-identified addresses: no email in links, history or logs (the spec's /:email forms
  // still answer). `v` changes on every start, so a browser never reuses an old address's file.
  const version = vm?.started_at ? vm.started_at.getTime() : 0;
  return {
    email: user.email,
    name: user.name,
    purchaseDate: subscription?.purchased_at?.toISOString() ?? null,
    expiryDate: subscription?.expires_at?.toISOString() ?? null,
    selectedPlan: subscription?.plan_name ?? '',
    selectedDuration: subscription?.hours ?? null,
    selectedStorage: subscription ? `${subscription.storage_gb} GB` : null,
    selectedPrice: subscription ? subscription.price_paise / 100 : null,
    vmUsageSeconds: Math.floor(view.usageSeconds),
    vmLastState: view.state,
    vmLastStateChange: vm?.state_changed_at.toISOString() ?? null,
    rdpUrl: view.downloads.rdp ? `/api/vm/rdp?v=${version}` : null,
    pwdUrl: view.downloads.password ? '/api/vm/password' : null,
    isRunning: view.running,
    vmPublicIp: view.running ? (vm?.public_ip ?? null) : null,
    planActive: view.planActive,
    remainingSeconds: view.remainingSeconds,
    outOfHours: view.outOfHours,
    canStart: view.canStart,
    canStop: view.running,
    notice: view.notice,
    keptUntil: view.keptUntil === null ? null : new Date(view.keptUntil).toISOString(),
    keptDisk: view.keptDisk && {
      saving: view.keptDisk.saving,
      savedOn: isoOrNull(view.keptDisk.savedOn),
      keptUntil: new Date(view.keptDisk.keptUntil).toISOString(),
      deleting: view.keptDisk.deleting,
    },
    waitingForDiskCopy: view.waitingForDiskCopy,
    handover: view.handover,
    streamingClientUrl: vmConfig.streamingClientUrl,
    setupVideoUrl: vmConfig.setupVideoUrl,
    machineName: view.handover ? null : nameOf(vm, input),
    namesEnabled: Boolean(input.nameSuffix),
    ...streamingFields(vm, view.runningSince, input, now),
    autoRenew: autoRenewOf(autopay),
    planEnd: view.planEnd,
    startBlocked: view.startBlocked,
    setup: view.setup,
    trialMachine:
      subscription && isTrialPlanName(subscription.plan_name)
        ? (findPlan(subscription.plan_id)?.displayName ?? null)
        : null,
  };
}

/** The machine's row as the dashboard's rules read it. */
function shownMachine(vm: DashboardVm): ShownMachine {
  return {
    subscriptionId: vm.subscription_id,
    state: vm.state,
    source: vm.source,
    instanceId: vm.instance_id,
    publicIp: vm.public_ip,
    passwordStored: vm.password_encrypted !== null,
    problem: vm.problem,
    delayed: vm.delayed_at !== null,
    remoteDesktopWaitingSince: vm.remote_desktop_waiting_since,
    resizePending: vm.resize_to_type !== null || vm.resize_to_gb !== null,
    stateReason: vm.state_reason,
    restoresDisk: vm.restore_snapshot_id !== null,
    requestedAt: vm.requested_at,
    startedAt: vm.started_at,
    stateChangedAt: vm.state_changed_at,
    usageSeconds: vm.usage_seconds,
    usageCountedAt: vm.usage_counted_at,
  };
}

function isoOrNull(at: Date | string | number | null): string | null {
  return at === null ? null : new Date(at).toISOString();
}

/**
 * The machine's health line and how to play on it: `machineHealth` and `streaming`, both null
 * while there is no live machine, or one launched before machines reported their own health.
 */
// The poll's statement reads the health report and pairings only when this shows them (STREAMING_SHOWN).
function streamingFields(
  vm: DashboardVm | null,
  runningSince: Date | string | number | null,
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
      machine: { state: vm.state, runningSince, instanceType: vm.instance_type },
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
      runningSince,
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
