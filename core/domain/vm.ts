/**
 * Cloud PC rules and words shared by the API and the dashboard (spec §2 Dashboard, §4, §8;
 * architecture deviation 5). Strings the spec gives are kept verbatim; the rest say plainly
 * what is happening, including when something is slow or went wrong.
 */
import { assertNever } from './assertNever.ts';
import type { MachineState } from './machineStates.ts';
import { hoursExhausted, planInForce } from './planTime.ts';
import { USAGE_MESSAGES } from './usage.ts';
import type { Handover } from './planHandover.ts';
import type { Instant } from './time.ts';
import type { DailyUsage, HourlyUsageEntry } from './usageBuckets.ts';
import type { MachineHealthView } from './machineHealth.ts';
import type { StreamingView } from './streaming.ts';
import type { MachineNameView } from './machineName.ts';
import type { AutoRenewRecord } from './autopay.ts';
import type { PlanEndRecord } from './planEnd.ts';
import type { SetupRecord } from './setupProgress.ts';

/** The states a VM shows (spec §3 vmLastState: running or stopped, plus honest transitions). */
export const VM_DISPLAY_STATES = [
  'none',
  'provisioning',
  'starting',
  'running',
  'stopping',
  'stopped',
  'error',
  'terminated',
] as const;
export type VmDisplayState = (typeof VM_DISPLAY_STATES)[number];

export const VM_MESSAGES = {
  loading: 'Loading your dashboard…',
  fetching: 'Fetching…',
  generating: 'Generating…',
  // The spec says "after every logout"; the address changes on every start (README "Deviations").
  rdpHint: 'Download this file again after every start: your PC gets a new address every time it starts.',
  stoppedHint: USAGE_MESSAGES.stoppedHint,
  startFailed: USAGE_MESSAGES.startFailed,
  outOfHours: USAGE_MESSAGES.outOfHours,
  planExpired: 'Your plan has expired. Renew your plan to start your VM again.',
  provisioning: 'Setting up your PC (first boot takes a few minutes)…',
  waitingForDiskCopy: 'Waiting for your disk copy…',
  waitingForRemoteDesktop:
    'Your PC is up; waiting for Windows to accept Remote Desktop. This usually takes under a minute.',
  starting: 'Starting…',
  notAvailable: 'Not available',
  planChange:
    'Your PC is being changed to your new plan: it stops, gets the new hardware and starts again with all your files. This takes a few minutes.',
  restoringFiles:
    "Your files are coming back: a copy of your old PC's disk is being saved right now, and your new PC starts from it once it is complete. This can take up to 20 minutes; your hours have not started.",
  diskSaving:
    'Your plan ended and was not renewed, so your PC is being deleted. We are saving a copy of its disk first; the dates it is kept until appear here once it is saved.',
  diskSavedDeleting: 'Your PC is being deleted; your files are saved.',
  stopping: 'Stopping…',
  stopConfirm:
    'Stop your VM? Save your work first: open programs will be closed. Your hours stop counting once it stops.',
  stopFailed: 'Could not stop VM. Try again.',
  // The reaper words the cause (core/domain/provisionDelay.ts); this is the line until it has.
  delayed:
    'Setting up your PC is taking longer than usual. We keep at it and will email you as soon as it is ready. Your hours have not started.',
  failed:
    'We could not set up your PC. Our team has been alerted and will contact you. Your hours have not started.',
  startGaveUp:
    'Your PC could not be started: there is no free machine of this kind right now. Please try again in a few minutes. No hours were used.',
  lost: 'Your PC is not reachable. Our team has been alerted and will contact you.',
  terminated: 'Your PC was deleted after your plan ended. Choose a plan to get a new one.',
  noPlan: 'You have no plan yet. Choose a plan to get your cloud PC.',
  alreadyStopping: 'Your VM is stopping. Start it again once it has stopped.',
  stillProvisioning: 'Your PC is still being set up.',
  notStoppable: 'Your VM can be stopped once it is running.',
  noVm: 'You have no cloud PC yet.',
  passwordNotReady: 'Your password is not ready yet.',
  rdpNotReady: 'Your desktop file is not ready yet: your PC has an address only while it is running.',
  // Without SETUP_VIDEO_URL the setup row points to the step-by-step guides (How to connect).
  setupGuides: 'See the step-by-step guides',
  rdpWhenRunning: 'Available while your PC is running',
  ipWhenStopped: 'Assigned when it starts',
  provisioningHint: 'Your hours start only when it is ready. This page updates by itself.',
  startingHint: 'Usually about a minute. Your hours start when it is running.',
  stoppingHint: 'Your hours have stopped counting.',
  runningHint: 'Stop it when you finish: your hours count only while it runs.',
} as const;

/** What the Status block says for each state. */
export const VM_STATUS_LABELS: Record<VmDisplayState, string> = {
  none: 'Not set up yet',
  provisioning: VM_MESSAGES.provisioning,
  starting: VM_MESSAGES.starting,
  running: 'Running',
  stopping: VM_MESSAGES.stopping,
  stopped: 'Stopped',
  error: 'Not available',
  terminated: 'Deleted',
};

export function isVmDisplayState(value: unknown): value is VmDisplayState {
  return (VM_DISPLAY_STATES as readonly unknown[]).includes(value);
}

/** A machine row's state as words can name it (a requested VM is already being set up). */
export function displayStateOf(state: string | null | undefined): VmDisplayState {
  if (!state) return 'none';
  if (state === 'requested') return 'provisioning';
  if (state === 'terminating') return 'stopping';
  return isVmDisplayState(state) ? state : 'none';
}

/**
 * The one display state of a customer's machine: computed once, on the server, and sent once, as
 * the dashboard record's `vmLastState` (the spec's field), which the SPA renders as is. A
 * requested machine is already being set up; a terminating one is stopping; a claimed warm-pool
 * machine only needs a start (about a minute), not a first boot; a paid plan whose machine the
 * provisioning job has not created yet is being set up; a machine being handed over from a
 * trial to the plan paid during it is starting (Upgrading…), never its old trial state.
 */
export function machineDisplayState(input: {
  vm: { state: string; source: 'launch' | 'pool' | null; instanceId: string | null } | null;
  /** The machine serves the plan shown (a plan it does not serve yet has no machine of its own). */
  servesPlan: boolean;
  planActive: boolean;
  /** The machine is being handed over to a plan paid while it served an earlier one. */
  handingOver?: boolean;
}): VmDisplayState {
  const { vm, servesPlan, planActive } = input;
  if (input.handingOver) return 'starting';
  const shown = displayStateOf(vm?.state);
  if (shown === 'provisioning' && vm?.source === 'pool' && vm.instanceId) return 'starting';
  if ((shown === 'none' || shown === 'terminated') && planActive && (!vm || !servesPlan))
    return 'provisioning';
  return shown;
}

export type StartRefusal = { status: 409 | 404; message: string };

/**
 * Whether START may go ahead (architecture deviation 5: no start once hours are used up or the
 * plan has expired; one action at a time). Null means: start it (or it is already starting or
 * running, and the record says so).
 */
export function startRefusal(
  vm: { state: MachineState } | null,
  plan: { hours: number; usageSeconds: number; status: string; expiresAt: Instant | null } | null,
  now: Instant,
): StartRefusal | null {
  if (!vm) return { status: 404, message: VM_MESSAGES.noVm };
  const ofPlan: StartRefusal | null =
    !plan || !planInForce(plan, now)
      ? { status: 409, message: VM_MESSAGES.planExpired }
      : hoursExhausted(plan, plan.usageSeconds)
        ? { status: 409, message: VM_MESSAGES.outOfHours }
        : null;
  switch (vm.state) {
    case 'terminating':
    case 'terminated':
      return { status: 404, message: VM_MESSAGES.noVm };
    case 'stopped':
    case 'starting':
    case 'running':
      return ofPlan;
    case 'stopping':
      return ofPlan ?? { status: 409, message: VM_MESSAGES.alreadyStopping };
    case 'requested':
    case 'provisioning':
      return ofPlan ?? { status: 409, message: VM_MESSAGES.stillProvisioning };
    case 'error':
      return ofPlan ?? { status: 409, message: VM_MESSAGES.failed };
    default:
      return assertNever(vm.state);
  }
}

/**
 * Whether STOP may go ahead (architecture deviation 5). Null means: stop it, or it is already
 * stopping or stopped (asking twice is harmless: the record says so). Without a live machine:
 * 404; in any other state it can be stopped once it runs: 409.
 */
export function stopRefusal(vm: { state: MachineState } | null): StartRefusal | null {
  if (!vm) return { status: 404, message: VM_MESSAGES.noVm };
  switch (vm.state) {
    case 'running':
    case 'stopping':
    case 'stopped':
      return null;
    case 'requested':
    case 'provisioning':
    case 'starting':
    case 'terminating':
    case 'terminated':
    case 'error':
      return { status: 409, message: VM_MESSAGES.notStoppable };
    default:
      return assertNever(vm.state);
  }
}

/**
 * The VM dashboard record (spec §3), field by field, plus what the dashboard needs to be
 * honest about the machine (transitions, delays, failures, hours). Never a raw row: the
 * password, instance id and anything else not listed stay on the server.
 */
export type DashboardRecord = {
  email: string;
  name: string;
  purchaseDate: string | null;
  expiryDate: string | null;
  /** Empty when the user has no plan (spec §3). */
  selectedPlan: string;
  selectedDuration: number | null;
  selectedStorage: string | null;
  /** Rupees per month. */
  selectedPrice: number | null;
  /** Usage counted up to `vmLastStateChange`; while running the dashboard adds the time since. */
  vmUsageSeconds: number;
  /**
   * What the dashboard shows of the machine (`machineDisplayState`), under the spec's name: the
   * spec's running or stopped, plus honest transitions. The SPA renders it as is.
   */
  vmLastState: VmDisplayState;
  vmLastStateChange: string | null;
  /** Our authenticated downloads; null until there is something to download. */
  rdpUrl: string | null;
  pwdUrl: string | null;
  isRunning: boolean;
  /** Known only while the machine runs (a new one after every start). */
  vmPublicIp: string | null;
  /**
   * The PC's DNS name, the same at every start (core/domain/machineName.ts); null without a zone
   * or before it has one. `current: false` while its record is being updated: use the IP meanwhile.
   */
  machineName: MachineNameView | null;
  /** Whether machines have names here (MACHINE_DNS_ZONE_ID is set). */
  namesEnabled: boolean;
  // Beyond the spec's record:
  planActive: boolean;
  remainingSeconds: number | null;
  outOfHours: boolean;
  canStart: boolean;
  canStop: boolean;
  /** A plain sentence about something slow or wrong, or null. */
  notice: string | null;
  /** When a lapsed plan's machine is deleted unless renewed. */
  keptUntil: string | null;
  /**
   * The copy of an expired machine's disk: being saved, or saved on `savedOn` and kept until
   * `keptUntil` (a purchase before then brings the files back). Null when there is none, or
   * while a machine of the customer's is live.
   */
  keptDisk: {
    saving: boolean;
    savedOn: string | null;
    keptUntil: string;
    /** The copy is saved but EC2 has not confirmed the PC's deletion yet: it is "being deleted". */
    deleting: boolean;
  } | null;
  /**
   * A new machine waiting for the copy of the old one's disk to be saved (it is made from it,
   * up to 20 minutes): the dashboard says so, and asks less often than in a transition.
   */
  waitingForDiskCopy: boolean;
  /**
   * A plan just paid whose machine still serves the earlier one (a replaced trial, a renewal):
   * shown as "Upgrading…" with no address, files or clock until it is handed over
   * (core/domain/planHandover.ts). Null otherwise.
   */
  handover: Handover | null;
  streamingClientUrl: string;
  setupVideoUrl: string | null;
  /** What the machine's own health report says (core/domain/machineHealth.ts); null without a machine. */
  machineHealth: MachineHealthView | null;
  /** How to connect and play: Moonlight, its paired devices, DCV's file (core/domain/streaming.ts). */
  streaming: StreamingView | null;
  /** Automatic renewal (AutoPay): null when the customer never turned it on. */
  autoRenew: AutoRenewRecord | null;
  // How the plan ends (core/domain/planEnd.ts): the last days' banner, the ended state.
  /** The plan's end: when, what happens then, what the plans page offers after; null for a trial or no plan. */
  planEnd: PlanEndRecord | null;
  /** Why START would be refused now (`startRefusal`), for a stopped machine; null when it may start. */
  startBlocked: string | null;
  /** A paid plan's PC on its way: its phase and since when (core/domain/setupProgress.ts); null otherwise. */
  setup: SetupRecord | null;
  /** For a trial, the plan whose machine it runs on ("PRO LEGEND"); null for a bought plan. */
  trialMachine: string | null;
};

/**
 * What the usage page reads (spec §3: the dashboard record's usage fields, "also reads daily
 * (list of day and usage in hours) and hourly (list of hour and usage)"; §2 Progress page). The
 * state and clock fields are the dashboard's own, so both pages always agree on whether the
 * machine runs and how much of the plan is used.
 */
export type UsageRecord = Pick<
  DashboardRecord,
  | 'email'
  | 'selectedPlan'
  | 'selectedDuration'
  | 'selectedPrice'
  | 'purchaseDate'
  | 'expiryDate'
  | 'vmUsageSeconds'
  | 'vmLastState'
  | 'vmLastStateChange'
  | 'isRunning'
  | 'planActive'
> & {
  /** When the server computed this (ISO). */
  now: string;
  /** The last 7 India-time days, oldest first; hours. */
  daily: DailyUsage[];
  /** Today's 24 India-time hours; hours. */
  hourly: HourlyUsageEntry[];
  /** The machine's average CPU per period over the last hour (percent), oldest first. */
  cpu: Array<{ at: string; value: number }>;
  /** Likewise the GPU, when the machine reports it. */
  gpu: Array<{ at: string; value: number }>;
};
