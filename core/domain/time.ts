/**
 * Time as the customer lives it. Our customers are in India, so calendar questions (which
 * day of the plan is it, which financial year, what date to print) are answered in India
 * time whatever zone the server or the browser runs in.
 */

export const INDIA_TIME_ZONE = 'Asia/Kolkata';

export const SECOND_MS = 1000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** A moment as it reaches the domain: a Date, epoch milliseconds, or an ISO string from JSON. */
export type Instant = Date | number | string;

export interface CalendarDate {
  year: number;
  /** 1 = January. */
  month: number;
  day: number;
}

/** Epoch milliseconds of an instant; throws a RangeError for something that is not a moment. */
export function toEpochMs(at: Instant): number {
  const ms = at instanceof Date ? at.getTime() : typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) throw new RangeError(`Not a valid date: ${String(at)}`);
  return ms;
}

/** Like toEpochMs, but a missing or unreadable date is `null` (spec §4: no expiry counts as expired). */
export function toEpochMsOrNull(at: Instant | null | undefined): number | null {
  if (at === null || at === undefined || at === '') return null;
  const ms = at instanceof Date ? at.getTime() : typeof at === 'number' ? at : Date.parse(at);
  return Number.isFinite(ms) ? ms : null;
}

// Built on first use: the landing page imports this module and should not pay for Intl setup.
let indiaPartsFormat: Intl.DateTimeFormat | undefined;
let longDateFormat: Intl.DateTimeFormat | undefined;

/** The calendar date in India at that instant. */
export function indiaDate(at: Instant): CalendarDate {
  indiaPartsFormat ??= new Intl.DateTimeFormat('en-US', {
    timeZone: INDIA_TIME_ZONE,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  });
  const date: CalendarDate = { year: 0, month: 0, day: 0 };
  for (const part of indiaPartsFormat.formatToParts(toEpochMs(at))) {
    if (part.type === 'year' || part.type === 'month' || part.type === 'day') {
      date[part.type] = Number(part.value);
    }
  }
  return date;
}

/** Days since 1 January 1970 of a calendar date; differences between two are whole days. */
export function dayNumber(date: CalendarDate): number {
  return Date.UTC(date.year, date.month - 1, date.day) / DAY_MS;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A date the way the spec prints dates (long en-IN, e.g. "22 December 2026"), in India time. */
export function formatLongDate(at: Instant): string {
  longDateFormat ??= new Intl.DateTimeFormat('en-IN', {
    timeZone: INDIA_TIME_ZONE,
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
  return longDateFormat.format(toEpochMs(at));
}

let indiaClockFormat: Intl.DateTimeFormat | undefined;

/** "7:45 pm IST": a time of day as a customer in India reads it, in notices and mails alike. */
export function formatIndiaClock(at: Instant): string {
  indiaClockFormat ??= new Intl.DateTimeFormat('en-IN', {
    timeZone: INDIA_TIME_ZONE,
    hour: 'numeric',
    minute: '2-digit',
    hour12: true,
  });
  return `${indiaClockFormat.format(new Date(toEpochMs(at)))} IST`;
}

/**
 * "Friday, 12 March 2027 at 7:45 pm IST": an exact moment in the reader's own time zone (the
 * browser's, or India's when none is given), the zone named so it is never ambiguous.
 */
export function formatMomentInZone(at: Instant, timeZone: string = INDIA_TIME_ZONE): string {
  const ms = toEpochMs(at);
  const day = new Intl.DateTimeFormat('en-IN', {
    timeZone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  }).format(ms);
  const clock = new Intl.DateTimeFormat('en-IN', {
    timeZone,
    hour: 'numeric',
    minute: '2-digit',
    hour12: true,
    timeZoneName: 'short',
  }).format(ms);
  return `${day} at ${clock}`;
}
