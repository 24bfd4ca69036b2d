import { isTransitional } from './machineStates.ts';
import { pairingInFlight } from './streaming.ts';
import type { DashboardRecord } from './vm.ts';

/**
 * When the dashboard asks the server again. Every poll is a request through the session and a
 * database read, so the page asks only while something can change on its own:
 *
 * - a machine on its way somewhere (provisioning, starting, stopping): every 2 s, so the IP,
 *   the files and the buttons appear as soon as they are ready;
 * - a Moonlight pairing or removal under way (game streaming): every 2 s, so its steps show;
 * - a new machine waiting for the copy of the old one's disk (up to 20 minutes, nothing to show
 *   on the way): every 15 s;
 * - a running machine: once a minute (the worker may stop it at the end of the hours or the
 *   plan, or the customer may stop it from another device); the usage clock ticks locally;
 * - a plan in its last days (its end banner shows): once a minute, whatever the machine does,
 *   so a renewal or a refund that moves the end shows without a reload;
 * - anything at rest (stopped, no machine, failed, terminated): never; focusing the tab or
 *   reconnecting still refreshes it, and START/STOP put their answer in the cache at once.
 *
 * This replaces spec §9's flat 5-second refresh (docs/deviations.md).
 */
export const DASHBOARD_POLL_MS = {
  transition: 2_000,
  diskCopy: 15_000,
  running: 60_000,
  planEnding: 60_000,
} as const;

export function dashboardPollMs(
  record:
    | (Pick<DashboardRecord, 'vmLastState' | 'waitingForDiskCopy'> &
        Partial<Pick<DashboardRecord, 'streaming' | 'planEnd'>>)
    | undefined,
): number {
  if (!record) return 0;
  const streaming = record.streaming;
  if (
    (streaming?.pairing && pairingInFlight(streaming.pairing.state)) ||
    streaming?.pairedDevices.some((d) => d.removing)
  )
    return DASHBOARD_POLL_MS.transition;
  if (record.waitingForDiskCopy) return DASHBOARD_POLL_MS.diskCopy;
  if (isTransitional(record.vmLastState)) return DASHBOARD_POLL_MS.transition;
  if (record.vmLastState === 'running') return DASHBOARD_POLL_MS.running;
  if (record.planEnd?.phase === 'ending') return DASHBOARD_POLL_MS.planEnding;
  return 0;
}
