/**
 * Idle auto-stop that spares renders. A machine is stopped only when CloudWatch shows, for the
 * customer's whole window, nobody connected (Remote Desktop or browser), CPU and GPU both under
 * 10 % and little network traffic out. A render or training run with nobody connected keeps
 * its CPU or GPU busy, so it keeps running. Evidence, not absence of evidence: a period in which
 * any of the four series has no point breaks the idle run, and metrics that stopped arriving
 * never stop a machine.
 */
import { assertNever } from './assertNever.ts';
import { forecastUsage } from './insights.ts';
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';
export { formatIndiaClock } from './time.ts';

/** The windows the customer may choose; `null` is off. */
export const IDLE_STOP_CHOICES = [15, 30, 60] as const;
export type IdleStopMinutes = (typeof IDLE_STOP_CHOICES)[number];
/** On by default: half an hour of nothing, long enough for a coffee, short enough to matter. */
export const DEFAULT_IDLE_STOP_MINUTES: IdleStopMinutes = 30;
/** The dashboard notice and the email come this long before the stop. */
export const IDLE_WARNING_MS = 10 * 60_000;
export const IDLE_CPU_MAX_PERCENT = 10;
export const IDLE_GPU_MAX_PERCENT = 10;
/**
 * "Network low": under 25 kB/s out on average over a period (about 200 kbit/s). A Remote
 * Desktop or DCV stream, an upload or a game server is far above it; Windows' own chatter is
 * far below.
 */
export const IDLE_NETWORK_MAX_BYTES_PER_SECOND = 25_000;
/**
 * How late the newest complete period may be, beyond one period, before the metrics count as
 * late (CloudWatch publishes EC2 metrics a few minutes behind).
 */
export const IDLE_METRICS_LATENESS_MS = 5 * 60_000;

export function isIdleStopMinutes(value: unknown): value is IdleStopMinutes {
  return (IDLE_STOP_CHOICES as readonly unknown[]).includes(value);
}

/** One CloudWatch period of a machine; a field is undefined when CloudWatch had no point. */
export type IdlePeriod = {
  /** Start of the period, epoch ms (CloudWatch's timestamp). */
  at: number;
  /** Average CPUUtilization, percent. */
  cpu?: number | undefined;
  /** Average GPU utilisation, percent. */
  gpu?: number | undefined;
  /** Most sessions connected at once during the period (Remote Desktop plus browser). */
  sessions?: number | undefined;
  /** Bytes sent during the period (NetworkOut, Sum). */
  networkOutBytes?: number | undefined;
};

export type IdleInput = {
  /** The customer's choice; null is off. */
  minutes: IdleStopMinutes | null;
  periodSeconds: number;
  periods: readonly IdlePeriod[];
  /** When the machine last started: nothing before it counts. */
  runningSince: Instant;
  /** The last "Keep it running": the window starts again from here. */
  keptAt: Instant | null;
  now: Instant;
};

export type IdleBusyReason = 'session' | 'cpu' | 'gpu' | 'network';
export type IdleDecision =
  | { kind: 'keep'; reason: 'off' }
  | { kind: 'keep'; reason: 'metrics-missing' | 'metrics-late' }
  | { kind: 'keep'; reason: 'busy'; busy: IdleBusyReason[] }
  | { kind: 'keep'; reason: 'idle'; idleSince: Date }
  | { kind: 'warn'; idleSince: Date; stopAt: Date }
  | { kind: 'stop'; idleSince: Date };

/** What keeps a period from counting as idle; empty when idle; null when a series has no point. */
function periodBusy(period: IdlePeriod, periodSeconds: number): IdleBusyReason[] | null {
  const { cpu, gpu, sessions, networkOutBytes } = period;
  if (cpu === undefined || gpu === undefined || sessions === undefined || networkOutBytes === undefined)
    return null;
  const busy: IdleBusyReason[] = [];
  if (sessions > 0) busy.push('session');
  if (cpu >= IDLE_CPU_MAX_PERCENT) busy.push('cpu');
  if (gpu >= IDLE_GPU_MAX_PERCENT) busy.push('gpu');
  if (networkOutBytes / periodSeconds >= IDLE_NETWORK_MAX_BYTES_PER_SECOND) busy.push('network');
  return busy;
}

/**
 * keep, warn (stop at T) or stop. The idle run is the unbroken chain of complete, quiet periods
 * ending at the newest complete one; it starts no earlier than the machine's start or the last
 * "Keep it running". Stop when it spans the whole window; warn once it is within ten minutes.
 */
export function idleDecision(input: IdleInput): IdleDecision {
  if (input.minutes === null) return { kind: 'keep', reason: 'off' };
  const now = toEpochMs(input.now);
  const periodMs = input.periodSeconds * 1000;
  const windowMs = input.minutes * 60_000;
  const floor = Math.max(toEpochMs(input.runningSince), toEpochMsOrNull(input.keptAt) ?? -Infinity);

  const byStart = new Map<number, IdlePeriod>();
  for (const period of input.periods) {
    if (period.at % periodMs !== 0 || period.at >= now) continue;
    byStart.set(period.at, period);
  }
  // The newest period for which all four series answered.
  const complete = [...byStart.values()]
    .filter((p) => periodBusy(p, input.periodSeconds) !== null)
    .sort((a, b) => b.at - a.at);
  const newest = complete[0];
  if (!newest) return { kind: 'keep', reason: 'metrics-missing' };
  const evidenceEnd = Math.min(newest.at + periodMs, now);
  if (now - evidenceEnd > periodMs + IDLE_METRICS_LATENESS_MS)
    return { kind: 'keep', reason: 'metrics-late' };

  const newestBusy = periodBusy(newest, input.periodSeconds) ?? [];
  if (newestBusy.length > 0) return { kind: 'keep', reason: 'busy', busy: newestBusy };

  let idleSince = newest.at;
  for (let at = newest.at - periodMs; at >= floor - periodMs; at -= periodMs) {
    const period = byStart.get(at);
    const busy = period ? periodBusy(period, input.periodSeconds) : null;
    if (busy === null || busy.length > 0) break;
    idleSince = at;
  }
  idleSince = Math.max(idleSince, floor);
  const idleMs = evidenceEnd - idleSince;
  if (idleMs >= windowMs) return { kind: 'stop', idleSince: new Date(idleSince) };
  if (idleMs >= windowMs - IDLE_WARNING_MS)
    return { kind: 'warn', idleSince: new Date(idleSince), stopAt: new Date(now + (windowMs - idleMs)) };
  return { kind: 'keep', reason: 'idle', idleSince: new Date(idleSince) };
}

/**
 * The promise of ten minutes' notice, kept even when the evidence reaches the whole window
 * before any warning went out (the first sweep after a deploy, a sweep that failed): a stop
 * needs a warning recorded at least ten minutes ago (less a minute for the sweep's own
 * schedule); otherwise it becomes a warning that stops ten minutes after it was first given.
 */
export function withNotice(decision: IdleDecision, warnedAt: Instant | null, now: Instant): IdleDecision {
  if (decision.kind !== 'stop') return decision;
  const t = toEpochMs(now);
  const warned = toEpochMsOrNull(warnedAt);
  if (warned !== null && t - warned >= IDLE_WARNING_MS - 60_000) return decision;
  const stopAt = (warned ?? t) + IDLE_WARNING_MS;
  return { kind: 'warn', idleSince: decision.idleSince, stopAt: new Date(stopAt) };
}

/** Only a running machine is watched for idleness, warned, stopped, or kept running by the customer. */
export function idleWatched(state: string): boolean {
  return state === 'running';
}

/**
 * What the sweep carries out for a machine: a warning recorded and mailed, the stop, a pending
 * warning withdrawn (the machine is in use again, or auto-stop is off), or nothing — without
 * evidence (metrics missing or late) a warning stays as it was.
 */
export type IdleAct =
  | { kind: 'warn'; stopAt: Date }
  | { kind: 'stop'; idleSince: Date }
  | { kind: 'withdraw' }
  | { kind: 'nothing' };

export function idleAct(decision: IdleDecision, warnedAt: Instant | null): IdleAct {
  switch (decision.kind) {
    case 'warn':
      return { kind: 'warn', stopAt: decision.stopAt };
    case 'stop':
      return { kind: 'stop', idleSince: decision.idleSince };
    case 'keep':
      switch (decision.reason) {
        case 'metrics-missing':
        case 'metrics-late':
          return { kind: 'nothing' };
        case 'off':
        case 'busy':
        case 'idle':
          return warnedAt === null ? { kind: 'nothing' } : { kind: 'withdraw' };
        default:
          return assertNever(decision);
      }
    default:
      return assertNever(decision);
  }
}

/** An auto-stop as recorded, for the hours it saved. */
export type IdleStopRecord = {
  stoppedAt: Instant;
  /** The next start of the same machine, if any. */
  nextStartAt: Instant | null;
  /** When the plan the machine served ended (its expiry). */
  planEndsAt: Instant | null;
  /** Plan hours left at the stop, in seconds: the most the machine could still have billed. */
  remainingSeconds: number;
};

/**
 * Hours an auto-stop saved, defined conservatively: the time from the stop until the machine
 * was next started (until now while it stays stopped), since without the stop it would have
 * kept billing until the customer came back; never past the plan's end and never more than
 * the hours the plan had left at the stop (the bank cannot drain below zero).
 */
export function idleSavedSeconds(stop: IdleStopRecord, now: Instant): number {
  const stoppedAt = toEpochMs(stop.stoppedAt);
  let until = toEpochMsOrNull(stop.nextStartAt) ?? toEpochMs(now);
  const planEnd = toEpochMsOrNull(stop.planEndsAt);
  if (planEnd !== null) until = Math.min(until, planEnd);
  const seconds = Math.max(0, (until - stoppedAt) / 1000);
  return Math.min(seconds, Math.max(0, stop.remainingSeconds));
}

export type HourBankProjection =
  | { kind: 'no-use' }
  | { kind: 'runs-out'; at: Date; hoursPerDay: number }
  | { kind: 'lasts'; hoursPerDay: number };

/**
 * When the plan's hours run out at the current pace: hours used per day since the plan began
 * (at least one day counted, so the first hour of a plan does not project a 24-hours-a-day
 * pace), carried forward. `lasts` when the plan expires first.
 */
export function projectHourBank(input: {
  usedSeconds: number;
  remainingSeconds: number;
  purchasedAt: Instant;
  expiresAt: Instant | null;
  now: Instant;
}): HourBankProjection {
  if (!(input.usedSeconds > 0)) return { kind: 'no-use' };
  // The usage page's Daily Forecast rule (core/domain/insights.ts), so both cards agree.
  const forecast = forecastUsage({
    durationHours: (input.usedSeconds + Math.max(0, input.remainingSeconds)) / 3600,
    usedSeconds: input.usedSeconds,
    purchasedAt: input.purchasedAt,
    expiresAt: input.expiresAt ?? FAR_FUTURE,
    now: input.now,
  });
  const hoursPerDay = forecast.paceHoursPerDay;
  return forecast.runsOutAt
    ? { kind: 'runs-out', at: forecast.runsOutAt, hoursPerDay }
    : { kind: 'lasts', hoursPerDay };
}

/** A plan without an expiry never expires first. */
const FAR_FUTURE = new Date(8.64e15);

export const IDLE_MESSAGES = {
  title: 'Idle auto-stop',
  explain:
    'Stops your cloud PC when nobody is connected and CPU, GPU and network are quiet for the whole time you choose. Renders and downloads keep it running.',
  off: 'Off',
  minutes: (m: number) => `${m} minutes`,
  warning: (time: string) =>
    `Nobody seems to be using your cloud PC. It will stop at ${time} to save your hours.`,
  keepRunning: 'Keep it running',
  kept: 'It keeps running. The idle timer starts again.',
  saved: 'Hours saved by auto-stop',
  projection: 'Your hours at this pace',
  notRunning: 'Your VM is not running.',
  saveFailed: 'Could not save the setting, try again',
  /** Said once a choice of the setting is stored (it saves as soon as it is picked). */
  settingSaved: (minutes: number | null) =>
    minutes === null
      ? 'Saved. Idle auto-stop is off: your PC runs until you stop it.'
      : `Saved. Your PC stops after ${minutes} minutes of no use.`,
} as const;
