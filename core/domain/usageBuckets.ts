/**
 * The usage page's history (spec §2 Progress page, §3 "daily (list of day and usage in hours)
 * and hourly (list of hour and usage)"): stretches of running time split into India-time days
 * and hours.
 *
 * India has kept UTC+05:30 all year since 1945 (no daylight saving), so a fixed offset gives
 * exactly the calendar Intl would, without Intl's cost on a page polled every second.
 */
import { DAY_MS, HOUR_MS, toEpochMs, type Instant } from './time.ts';

/** Asia/Kolkata's offset from UTC. */
export const INDIA_OFFSET_MS = 5.5 * HOUR_MS;

/** Days the "last 7 days" chart shows, today included. */
export const USAGE_HISTORY_DAYS = 7;

/** A stretch of running time. An open one (still running) ends at `now`. */
export interface RunInterval {
  start: Instant;
  end: Instant | null;
}

export interface DailyUsage {
  /** The India-time calendar date, YYYY-MM-DD. */
  day: string;
  /** Hours used that day. */
  usage: number;
}

export interface HourlyUsageEntry {
  /** Hour of the India-time day, 0–23. */
  hour: number;
  usage: number;
}

/** Epoch ms of the India-time midnight that starts the day containing `at`. */
export function indiaDayStart(at: Instant): number {
  const ms = toEpochMs(at);
  return Math.floor((ms + INDIA_OFFSET_MS) / DAY_MS) * DAY_MS - INDIA_OFFSET_MS;
}

/** "2026-03-09" for any instant of 9 March 2026 in India. */
export function indiaDayKey(at: Instant): string {
  const local = new Date(toEpochMs(at) + INDIA_OFFSET_MS);
  const y = local.getUTCFullYear();
  const m = String(local.getUTCMonth() + 1).padStart(2, '0');
  const d = String(local.getUTCDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

/** The hour (0–23) of the India-time day at `at`. */
export function indiaHour(at: Instant): number {
  return Math.floor((toEpochMs(at) - indiaDayStart(at)) / HOUR_MS);
}

/** Hours rounded to 4 decimals (0.36 s): enough for charts, stable in JSON. */
function roundHours(hours: number): number {
  return Math.round(hours * 10_000) / 10_000;
}

/**
 * The intervals as sorted, non-overlapping [start, end) pairs in epoch ms, clipped to
 * [from, to). Open intervals end at `to`; overlapping ones (two machines of one account, a
 * replayed segment) are merged so no time is counted twice and no day exceeds 24 hours.
 */
export function normaliseIntervals(
  intervals: readonly RunInterval[],
  from: number,
  to: number,
): Array<[number, number]> {
  const clipped: Array<[number, number]> = [];
  for (const interval of intervals) {
    const start = Math.max(toEpochMs(interval.start), from);
    const end = Math.min(interval.end === null ? to : toEpochMs(interval.end), to);
    if (end > start) clipped.push([start, end]);
  }
  clipped.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of clipped) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Milliseconds of the merged intervals inside each consecutive bucket of `size` ms from `from`. */
function bucketise(
  merged: ReadonlyArray<[number, number]>,
  from: number,
  size: number,
  count: number,
): number[] {
  const totals = new Array<number>(count).fill(0);
  for (const [start, end] of merged) {
    // Walk the buckets the interval touches, splitting it exactly at each boundary.
    let cursor = start;
    while (cursor < end) {
      const index = Math.floor((cursor - from) / size);
      const bucketEnd = from + (index + 1) * size;
      const pieceEnd = Math.min(end, bucketEnd);
      if (index >= 0 && index < count) totals[index] = (totals[index] ?? 0) + (pieceEnd - cursor);
      cursor = pieceEnd;
    }
  }
  return totals;
}

/**
 * Hours used on each of the last `days` India-time days, oldest first, today last (today
 * counts up to `now`). Days without use are listed with 0 so the chart has no gaps.
 */
export function dailyUsage(
  intervals: readonly RunInterval[],
  now: Instant,
  days: number = USAGE_HISTORY_DAYS,
): DailyUsage[] {
  const nowMs = toEpochMs(now);
  const from = indiaDayStart(nowMs) - (days - 1) * DAY_MS;
  const totals = bucketise(normaliseIntervals(intervals, from, nowMs), from, DAY_MS, days);
  return totals.map((ms, i) => ({ day: indiaDayKey(from + i * DAY_MS), usage: roundHours(ms / HOUR_MS) }));
}

/** Hours used in each hour (0–23) of today in India, up to `now`; later hours are 0. */
export function hourlyUsage(intervals: readonly RunInterval[], now: Instant): HourlyUsageEntry[] {
  const nowMs = toEpochMs(now);
  const from = indiaDayStart(nowMs);
  const totals = bucketise(normaliseIntervals(intervals, from, nowMs), from, HOUR_MS, 24);
  return totals.map((ms, hour) => ({ hour, usage: roundHours(ms / HOUR_MS) }));
}

/** Where the history the usage page needs begins: India midnight `days − 1` days ago. */
export function usageHistoryStart(now: Instant, days: number = USAGE_HISTORY_DAYS): Date {
  return new Date(indiaDayStart(now) - (days - 1) * DAY_MS);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/**
 * A day key as the chart's axis prints it: "Mon 9". It names a calendar date, so it is read
 * as one (in UTC), never shifted by the browser's zone.
 */
export function shortDayLabel(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return `${WEEKDAYS[date.getUTCDay()]} ${date.getUTCDate()}`;
}

/** "9 Mar" for the accessible tables, where a weekday alone is ambiguous. */
export function dayMonthLabel(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return `${WEEKDAYS[date.getUTCDay()]} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
}

/** Hours as people read them on the usage page: "1 h 05 min", "12 min", "under 1 min", "0 min". */
export function formatHoursMinutes(hours: number): string {
  const totalMinutes = Number.isFinite(hours) ? Math.max(0, Math.round(hours * 60)) : 0;
  // A few seconds of use is use: "0 min" would read as none.
  if (totalMinutes === 0 && hours > 0) return 'under 1 min';
  const h = Math.floor(totalMinutes / 60);
  const m = totalMinutes % 60;
  if (h === 0) return `${m} min`;
  return `${h} h ${String(m).padStart(2, '0')} min`;
}
