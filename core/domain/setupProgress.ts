/**
 * The wait after paying, said honestly: which phase the new PC is in (payment checked, machine
 * being prepared, starting, checking Remote Desktop) and how long it usually takes from there,
 * estimated from the recorded provisions the landing page's time-to-desktop figure comes from
 * (core/db/provisionStats.ts), told apart by how the machine comes: a warm-pool spare only starts
 * (about a minute on AWS), a fresh launch boots Windows for the first time (minutes).
 */
import { MIN_PROVISIONS_FOR_FIGURE } from './content/timeToDesktop.ts';
import { SECOND_MS, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

export const SETUP_PHASES = ['payment', 'preparing', 'starting', 'remote-desktop', 'ready'] as const;
export type SetupPhase = (typeof SETUP_PHASES)[number];

/** The steps as the payment-success page and the dashboard list them. */
export const SETUP_PHASE_LABELS: Record<SetupPhase, string> = {
  payment: 'Payment checked',
  preparing: 'Machine being prepared',
  starting: 'Starting',
  'remote-desktop': 'Checking Remote Desktop',
  ready: 'Ready to connect',
};

/** The steps shown while waiting, in order (`ready` ends the wait). */
export const SETUP_STEPS: readonly SetupPhase[] = ['payment', 'preparing', 'starting', 'remote-desktop'];

/** After this long on the payment-success page it links to the dashboard, which shows the same progress. */
export const SETUP_DASHBOARD_LINK_MS = 20_000;

/** A kind of provision's recorded times: its median and 90th percentile, request to ready. */
export type ProvisionStats = { sampleSize: number; p50Seconds: number; p90Seconds: number };
export type ProvisionDistribution = { pool: ProvisionStats | null; launch: ProvisionStats | null };

/** How the new PC comes: a warm-pool spare (a start) or a fresh launch (a first boot). */
export type SetupSource = 'pool' | 'launch';

/** What the dashboard record says of a PC being set up (`DashboardRecord.setup`). */
export type SetupRecord = {
  phase: SetupPhase;
  source: SetupSource | null;
  /** When the machine was asked for (the payment's activation): the estimate counts from here. */
  requestedAt: string;
};

/**
 * The phase of a paid plan's new machine, from its row: waiting for Remote Desktop once the
 * instance is up; starting for a claimed warm-pool spare; being prepared while a launch boots;
 * ready once it runs. Null when the machine is not being set up.
 */
export function setupPhaseOf(vm: {
  state: string;
  source: SetupSource | null;
  instanceId: string | null;
  remoteDesktopWaitingSince: Instant | null;
}): SetupPhase | null {
  if (vm.state === 'running') return 'ready';
  if (vm.state === 'requested') return 'preparing';
  if (vm.state !== 'provisioning') return null;
  if (vm.remoteDesktopWaitingSince) return 'remote-desktop';
  return vm.source === 'pool' && vm.instanceId ? 'starting' : 'preparing';
}

export type SetupEstimate = {
  /** Whether it comes from enough recorded provisions; otherwise only the safe wording. */
  measured: boolean;
  /** The sentence under the steps. */
  text: string;
};

const minutes = (seconds: number) => Math.max(1, Math.round(seconds / 60));

/** "about 40 seconds" or "about 4 minutes". */
function duration(seconds: number): string {
  if (seconds < 90) return `about ${Math.max(5, Math.round(seconds / 5) * 5)} seconds`;
  const m = minutes(seconds);
  return `about ${m} minute${m === 1 ? '' : 's'}`;
}

/** "110 seconds" or "6 minutes": a bound, so rounded up, never down. */
function upTo(seconds: number): string {
  if (seconds < 90) return `${Math.max(5, Math.ceil(seconds / 5) * 5)} seconds`;
  const m = Math.ceil(seconds / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
}

/**
 * How long is left, from the recorded provisions of this kind (or of both, before the kind is
 * known): the median from request to ready, less the time already waited; past the 90th
 * percentile it says it is slower than usual and that the work goes on. With too few recorded
 * provisions it says only what is true of every kind.
 */
export function setupEstimate(input: {
  distribution: ProvisionDistribution | null;
  source: SetupSource | null;
  requestedAt: Instant | null;
  now: Instant;
}): SetupEstimate {
  const d = input.distribution;
  const stats =
    input.source === 'pool'
      ? d?.pool
      : input.source === 'launch'
        ? d?.launch
        : // Unknown yet: the slower kind, so the estimate is not a promise the launch breaks.
          (d?.launch ?? d?.pool);
  if (!stats || stats.sampleSize < MIN_PROVISIONS_FOR_FIGURE) {
    return {
      measured: false,
      text: 'This usually takes a few minutes. This page updates by itself.',
    };
  }
  const since = toEpochMsOrNull(input.requestedAt);
  const waited = since === null ? 0 : Math.max(0, (toEpochMs(input.now) - since) / SECOND_MS);
  const usual = `Usually ready ${duration(stats.p50Seconds)} after payment.`;
  const most = `9 in 10 are ready within ${upTo(stats.p90Seconds)}.`;
  if (waited > stats.p90Seconds) {
    return {
      measured: true,
      text: `This one is taking longer than usual (${most.replace('.', '')}); we keep going, and this page updates by itself.`,
    };
  }
  // Past the median the remaining time is short but not zero: never "0 seconds to go".
  const left = Math.max(stats.p50Seconds - waited, 5);
  return {
    measured: true,
    text: `${usual} About ${duration(left).replace('about ', '')} to go; ${most}`,
  };
}
