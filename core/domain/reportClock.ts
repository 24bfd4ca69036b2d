/**
 * The clock rule of a machine's health reports: a report's signed time must be within
 * HEALTH_REPORT_WINDOW_SECONDS behind our clock (older: a replay of an old report, or a clock far
 * behind) and at most HEALTH_CLOCK_SKEW_SECONDS ahead of it. Replays are refused by "newer than
 * the last accepted" (core/db/machineHealth.ts `recordHealthReport`); the bound on the future is
 * what makes that rule safe, since a report dated ahead would otherwise outrank every genuine
 * one until our clock caught up with it.
 */
import { toEpochMs, type Instant } from './time.ts';

/** A report signed further than this behind our clock is refused: no replays of old ones. */
export const HEALTH_REPORT_WINDOW_SECONDS = 300;
/** How far a report's signed time may run ahead of our clock (clocks kept by NTP differ by far less). */
export const HEALTH_CLOCK_SKEW_SECONDS = 30;

export type ReportClock = { kind: 'in-time' } | { kind: 'stale' } | { kind: 'ahead'; seconds: number };

/** Where a report signed at `timestampSeconds` (Unix seconds) stands against our clock at `now`. */
export function reportClock(timestampSeconds: number, now: Instant): ReportClock {
  const offset = timestampSeconds - toEpochMs(now) / 1000;
  if (offset > HEALTH_CLOCK_SKEW_SECONDS) return { kind: 'ahead', seconds: Math.round(offset) };
  if (-offset > HEALTH_REPORT_WINDOW_SECONDS) return { kind: 'stale' };
  return { kind: 'in-time' };
}

/** "5 minutes", "45 seconds": how fast a clock runs, for the card. */
function aheadText(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

export const CLOCK_MESSAGES = {
  /** What the machine is answered (its reporter logs it). */
  refused: (seconds: number) =>
    `The report is dated ${seconds} s ahead of our clock: the machine's clock runs fast. Sync it (w32tm /resync) and report again.`,
  /** The card's line while the machine's genuine reports are refused for its clock. */
  headline: (seconds: number) =>
    `Your PC’s clock is ${aheadText(seconds)} fast, so it cannot report its health.`,
  advice:
    'On your PC, open Settings › Time & language › Date & time and choose Sync now. Connecting to your PC still works.',
} as const;
