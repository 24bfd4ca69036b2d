/** Hours used and left, the VM's display state and the hour alerts (spec §2 Dashboard, §4, §9). */
import { formatIndiaClock, SECOND_MS, toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

const SECONDS_PER_HOUR = 3600;

/** The plan's hours in seconds. */
export function planSeconds(durationHours: number): number {
  return Math.round(durationHours * SECONDS_PER_HOUR);
}

/** Seconds of the plan still to use: duration minus time used, never below 0 (spec §9). */
export function remainingSeconds(durationHours: number, usedSeconds: number): number {
  return Math.max(0, planSeconds(durationHours) - Math.floor(usedSeconds));
}

export interface UsageClock {
  /** Usage counted up to `lastStateChange`. */
  usageSeconds: number;
  isRunning: boolean;
  lastStateChange: Instant | null | undefined;
}

/**
 * The usage the dashboard shows, ticking every second while the VM runs (spec §4): stored
 * seconds plus whole seconds since the last state change. Only valid if `usageSeconds` is the
 * usage counted up to that change; a store that accrues usage in between must move the anchor.
 * A clock behind the anchor adds nothing rather than going backwards.
 */
export function liveUsageSeconds(clock: UsageClock, now: Instant): number {
  const stored = Math.max(0, Math.floor(clock.usageSeconds));
  const since = toEpochMsOrNull(clock.lastStateChange);
  if (!clock.isRunning || since === null) return stored;
  return stored + Math.max(0, Math.floor((toEpochMs(now) - since) / SECOND_MS));
}

/**
 * Seconds as the dashboard shows them: hours (unpadded, may exceed 24), then minutes and
 * seconds padded to two digits, e.g. "12h 05m 09s", "0h 00m 00s", "90h 00m 00s".
 * Fractions are dropped and negatives show as zero.
 */
export function formatHms(seconds: number): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const hours = Math.floor(total / SECONDS_PER_HOUR);
  const minutes = Math.floor((total % SECONDS_PER_HOUR) / 60);
  const secs = total % 60;
  return `${hours}h ${String(minutes).padStart(2, '0')}m ${String(secs).padStart(2, '0')}s`;
}

/** Emails go out at these shares of the plan's hours: a warning while there is time to renew, and at the stop. */
export const HOUR_ALERT_PERCENTS = [80, 100] as const;
export type HourAlertPercent = (typeof HOUR_ALERT_PERCENTS)[number];

/** The hour alerts reached so far, e.g. [] then [80] then [80, 100]; the caller remembers which it sent. */
export function hourAlertsReached(durationHours: number, usedSeconds: number): HourAlertPercent[] {
  const plan = planSeconds(durationHours);
  // Compared in whole numbers so 80% of 45 h is exactly 129,600 s, not a float near it.
  return HOUR_ALERT_PERCENTS.filter((percent) => usedSeconds * 100 >= plan * percent);
}

/**
 * How long before the hours run out a running machine's dashboard warns that it will be stopped:
 * enough to save work and close programs.
 */
export const HOURS_RUN_OUT_WARNING_SECONDS = 10 * 60;

/** What the dashboard says about the hour bank, from the usage it already has (no extra query). */
export type HourBankNotice =
  /** Running, and the hours run out within the warning window: the machine stops at `runsOutAt`. */
  | { kind: 'stops-soon'; secondsLeft: number; runsOutAt: number }
  /** Every hour of the plan used (the 100% alert). */
  | { kind: 'used-all' }
  /** At least 80% used (the 80% alert), `secondsLeft` to go. */
  | { kind: 'used-80'; secondsLeft: number };

/**
 * The hour-bank notice for a plan in force, or null: the dashboard's counterpart of the 80% and
 * 100% mails (same thresholds, `hourAlertsReached`), plus a countdown while the machine runs in
 * the last `HOURS_RUN_OUT_WARNING_SECONDS`. `usedSeconds` is the live usage (stored plus time
 * since the last state change while running); `runsOutAt` is `now` plus what is left, since a
 * running machine spends one second of the bank per second.
 */
export function hourBankNotice(input: {
  hours: number | null;
  usedSeconds: number;
  running: boolean;
  planActive: boolean;
  now: Instant;
}): HourBankNotice | null {
  if (!input.planActive || input.hours === null) return null;
  const secondsLeft = remainingSeconds(input.hours, input.usedSeconds);
  if (input.running && secondsLeft <= HOURS_RUN_OUT_WARNING_SECONDS)
    return { kind: 'stops-soon', secondsLeft, runsOutAt: toEpochMs(input.now) + secondsLeft * SECOND_MS };
  const reached = hourAlertsReached(input.hours, input.usedSeconds);
  if (reached.includes(100)) return { kind: 'used-all' };
  if (reached.includes(80)) return { kind: 'used-80', secondsLeft };
  return null;
}

export const USAGE_MESSAGES = {
  outOfHours: 'You have used all the hours of your plan. Renew your plan to start your VM again.',
  stoppedHint: 'After every shut-down, start your VM',
  startFailed: 'Could not start VM. Try again.',
  stoppedTitle: 'Your VM is stopped',
  stoppedBody: 'Start your instance to see usage charts.',
  loading: 'Loading your usage…',
  used80: "You have used 80% of your plan's hours.",
  used80Hint: 'Stop your PC whenever you are not using it, so your hours last.',
  stopsNow: 'Your hours have run out: your PC is being stopped. Save your work now.',
} as const;

/** "Your hours run out at 14:32 (in 8 minutes) — save your work; your PC will stop then." */
export function stopsSoonMessage(runsOutAt: Instant, secondsLeft: number): string {
  const minutes = Math.ceil(secondsLeft / 60);
  const inWords = minutes <= 1 ? 'in under a minute' : `in ${minutes} minutes`;
  return `Your hours run out at ${formatIndiaClock(runsOutAt)} (${inWords}) — save your work; your PC will stop then.`;
}
