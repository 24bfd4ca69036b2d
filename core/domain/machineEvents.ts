/**
 * Machines that vanish, or are about to: a paid machine whose instance was lost is replaced by a
 * new one for the same plan, and EC2's scheduled events (the hardware retired, stopped or
 * rebooted for maintenance, read with DescribeInstanceStatus) are acted on before they happen.
 *
 * Pure: `vm-events` and the lifecycle gather the rows and EC2's events and ask here.
 */
import { formatLongDate, formatIndiaClock, toEpochMs, type Instant } from './time.ts';

/**
 * Events a stop and start avoid (an EBS-backed instance starts on other hardware). An
 * `instance-reboot` is not: it happens wherever the machine runs.
 */
const MOVABLE = new Set(['instance-retirement', 'instance-stop', 'system-maintenance', 'system-reboot']);

/** How long before an event's earliest time a machine is moved whoever is connected. */
export const EVENT_MOVE_MARGIN_MS = 60 * 60_000;

export type ScheduledEvent = {
  code: string;
  notBefore: Instant;
  description?: string | null | undefined;
};

export function isMovable(event: Pick<ScheduledEvent, 'code'>): boolean {
  return MOVABLE.has(event.code);
}

/** Whether someone is connected to the machine, from its session metrics (the idle signal). */
export type Connected = 'yes' | 'no' | 'unknown';

/**
 * What to do about a machine with a scheduled event:
 * - nothing: it is stopped (its next START runs on other hardware), or it is not ours to move;
 * - warn: tell the customer the date on the dashboard, and wait for a moment nobody is connected;
 * - move: stop and start it now (nobody connected, or the deadline is near).
 */
export type EventAction = { kind: 'nothing' | 'warn' | 'move'; reason: string };

export function eventAction(input: {
  machineState: string;
  event: ScheduledEvent;
  connected: Connected;
  now: Instant;
  marginMs?: number;
}): EventAction {
  const { machineState, event, connected } = input;
  if (machineState === 'stopped' || machineState === 'stopping')
    return { kind: 'nothing', reason: 'stopped: its next START runs on other hardware' };
  if (machineState !== 'running') return { kind: 'nothing', reason: `the machine is ${machineState}` };
  if (!isMovable(event)) return { kind: 'warn', reason: `${event.code}: a stop and start does not avoid it` };
  const deadline = toEpochMs(event.notBefore) - (input.marginMs ?? EVENT_MOVE_MARGIN_MS);
  if (toEpochMs(input.now) >= deadline)
    return {
      kind: 'move',
      reason: `${event.code} is due at ${new Date(toEpochMs(event.notBefore)).toISOString()}`,
    };
  if (connected === 'no')
    return { kind: 'move', reason: `${event.code} is scheduled and nobody is connected` };
  return { kind: 'warn', reason: `${event.code} is scheduled; waiting until nobody is connected` };
}

/** Whether who is connected matters to what is done about an event: only a running machine is moved. */
export function movableWhileRunning(machineState: string): boolean {
  return machineState === 'running';
}

/** The operator's line when an event is first seen on one of our machines. */
export function eventAlertWords(input: {
  instanceId: string;
  machineState: string;
  event: ScheduledEvent;
}): string {
  const { event } = input;
  const then = movableWhileRunning(input.machineState)
    ? 'It is moved by a stop and start while nobody is connected, or before then.'
    : 'It is stopped: its next start runs on other hardware.';
  return `EC2 scheduled ${event.code} on machine ${input.instanceId} (${input.machineState}) for ${new Date(toEpochMs(event.notBefore)).toISOString()}: ${event.description ?? ''}. ${then}`;
}

/** The dashboard's line about an event the machine will be moved away from (or cannot be). */
export function eventNotice(event: ScheduledEvent, marginMs = EVENT_MOVE_MARGIN_MS): string {
  const at = toEpochMs(event.notBefore);
  const when = `${formatLongDate(at)} at ${formatIndiaClock(at)}`;
  if (!isMovable(event))
    return `Amazon will restart your PC for maintenance on ${when}. Save your work before then; your files stay.`;
  const latest = at - marginMs;
  return `Amazon is retiring the hardware your PC runs on, on ${when}. We will restart your PC on new hardware (a couple of minutes; your files stay) the next time you are not connected, or on ${formatLongDate(latest)} at ${formatIndiaClock(latest)} at the latest: save your work.`;
}

/** Why a machine is stopped and started by us to move it off hardware an event retires. */
export const HARDWARE_MOVE_REASON = 'hardware-move';

/**
 * A machine whose instance was lost: replaced by a new one for the same plan (from the latest
 * kept copy of its disk, if any), when the plan is paid and in force and the plan has not
 * already lost that many machines (past that, an operator decides).
 */
export const MAX_REPLACEMENTS_PER_PLAN = 3;

export function replacementFor(input: {
  plan: { inForce: boolean; isTrial: boolean } | null;
  replacedSoFar: number;
}): { kind: 'replace'; reason: string } | { kind: 'leave'; reason: string } {
  const { plan } = input;
  if (!plan?.inForce) return { kind: 'leave', reason: 'its plan is not in force' };
  if (plan.isTrial) return { kind: 'leave', reason: 'a trial machine is not replaced' };
  if (input.replacedSoFar >= MAX_REPLACEMENTS_PER_PLAN)
    return {
      kind: 'leave',
      reason: `the plan already lost ${input.replacedSoFar} machines: an operator decides`,
    };
  return { kind: 'replace', reason: 'a paid plan in force lost its machine: a new one is made for it' };
}

/**
 * Whether someone is connected now, from the machine's session counts (Remote Desktop and the
 * browser desktop, the idle rule's signal) of the last 15 minutes: anyone in any period is
 * connected; nobody in at least two periods is not; fewer answers than that is not knowing.
 */
export function connectedNow(
  periods: ReadonlyArray<{ at: number; sessions?: number | undefined }>,
  now: Instant,
  windowMs = 15 * 60_000,
): Connected {
  const since = toEpochMs(now) - windowMs;
  const known = periods.filter((p) => p.at >= since && p.sessions !== undefined);
  if (known.some((p) => (p.sessions ?? 0) > 0)) return 'yes';
  return known.length >= 2 ? 'no' : 'unknown';
}
