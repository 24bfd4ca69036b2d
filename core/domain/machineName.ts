/**
 * The PC keeps its name: every customer machine gets a DNS name in a zone the operator owns
 * (MACHINE_DNS_ZONE_ID, MACHINE_DNS_SUFFIX), an A record pointed at the machine's public address
 * whenever it gets one, before it is shown as running, and deleted once the machine is gone. Moonlight,
 * the Remote Desktop and DCV files and the browser desktop then name the PC, not an address that
 * changes at every start. The name follows the customer's PC: their next machine (a renewal, a
 * restore from the kept disk, a replacement) takes it over once the one holding it is gone.
 *
 * Pure rules: what the name is, which name a new machine takes, when its record is written,
 * corrected, deleted, and when an operator is told. The worker carries them out through Route 53 (worker/machineName.ts); the
 * lifecycle asks `nameFirst` before it marks a machine running.
 */
import { assertNever } from './assertNever.ts';
import type { LastTry } from './lastTry.ts';
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

/**
 * Seconds resolvers may keep an answer. Short, because an address cached from before a stop is
 * wrong after the start: at most this long after the record changes, every resolver has the new one.
 */
export const MACHINE_NAME_TTL_SECONDS = 30;

/** A name still not pointing where it should this long after the first failed write is an operator alert. */
export const NAME_ALERT_AFTER_MS = 10 * 60_000;

/**
 * Crockford's base32 letters, lowercase (no i, l, o, u): a name read aloud or typed into a TV's
 * Moonlight is not misread.
 */
const LABEL_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** 8 letters of 32: 40 random bits, a trillion names, none derived from the customer. */
export const LABEL_LENGTH = 8;

/**
 * A new label from random bytes (at least LABEL_LENGTH of them; 5 bits of each are used). It
 * says nothing of the customer's email or id, and the database refuses one given out before.
 */
export function machineLabel(random: Uint8Array): string {
  if (random.length < LABEL_LENGTH) throw new RangeError(`machineLabel needs ${LABEL_LENGTH} random bytes`);
  let label = 'pc-';
  for (let i = 0; i < LABEL_LENGTH; i++) label += LABEL_ALPHABET[(random[i] as number) & 31];
  return label;
}

/** A zone's suffix as configured: lowercase, no leading or trailing dot. */
export function normaliseSuffix(suffix: string): string {
  return suffix
    .trim()
    .toLowerCase()
    .replace(/^\.+|\.+$/g, '');
}

/** Letters, digits and hyphens in labels of 1–63, at least two of them, 253 characters in all. */
export function isDnsSuffix(suffix: string): boolean {
  const name = normaliseSuffix(suffix);
  if (name.length === 0 || name.length > 200) return false;
  const labels = name.split('.');
  return labels.length >= 2 && labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label));
}

/** The machine's full name: `pc-7k2m9q4x.play.legendcloud.in`. */
export function machineHostName(label: string, suffix: string): string {
  return `${label}.${normaliseSuffix(suffix)}`;
}

/** What we know of a machine's name (its row in machine_names). */
export type NameFacts = {
  label: string;
  /** The address our last successful write pointed the record at; null: none written, or deleted. */
  pointsTo: string | null;
  /** Since when writing it has failed (null: the last try succeeded). */
  failingSince: Instant | null;
  /** When an operator was told it keeps failing (once per failing spell). */
  alertedAt: Instant | null;
  /**
   * The record is deleted and the machine gone: nothing is pointed until the same customer's next
   * machine takes the name over (`claimName`); it is never given to anyone else.
   */
  released: boolean;
};

/** What Route 53 holds for the name: undefined until looked at, null when there is no record. */
export type RecordView = { ip: string; ttl: number } | null;

/** The machine as its name needs it: an address to point at while it runs; gone once it is. */
export type NamedMachine = { state: string; publicIp: string | null };

/** Whether the machine's name should no longer resolve: its instance is gone or given up on. */
export function nameMustGo(state: string): boolean {
  return state === 'terminated' || state === 'error';
}

/**
 * One step for a machine's name. `reason` is a sentence an operator can read.
 * - observe: read the record (no write);
 * - upsert: point it at `ip`; `drift` names the address someone else pointed it at (an operator is told);
 * - delete: the machine is gone; `record` is what to delete (Route 53 deletes only an exact match);
 * - forget: there is no record left: the name is released for good;
 * - confirm: the record already points where it should: remember so;
 * - alert: writing it has failed for NAME_ALERT_AFTER_MS: an operator is told (once per spell);
 * - settle: it was failing, but the machine stopped: nothing to point until it starts again (the
 *   start points it), so the failure and its alert are over;
 * - nothing.
 */
export type NameDecision =
  | { kind: 'nothing' | 'observe' | 'forget' | 'alert' | 'settle'; reason: string }
  | { kind: 'confirm'; reason: string; ip: string }
  | { kind: 'upsert'; reason: string; ip: string; drift: string | null }
  | { kind: 'delete'; reason: string; record: NonNullable<RecordView> };

export type NameInput = {
  /** Whether a zone is configured; without one there is nothing to do. */
  zone: boolean;
  machine: NamedMachine;
  /** Null: the machine has no name (yet). */
  name: NameFacts | null;
  record: RecordView | undefined;
  now: Instant;
};

/** Writing the name has failed for long enough that a person must look (and none was told yet). */
export function nameAlertDue(name: Pick<NameFacts, 'failingSince' | 'alertedAt'>, now: Instant): boolean {
  const since = toEpochMsOrNull(name.failingSince);
  if (since === null || name.alertedAt !== null) return false;
  return toEpochMs(now) - since >= NAME_ALERT_AFTER_MS;
}

/** The next step for a machine's name. Pure: same input, same decision. */
export function decideName(input: NameInput): NameDecision {
  const { machine, name, record, now } = input;
  if (!input.zone || !name) return { kind: 'nothing', reason: 'no name to look after' };
  if (name.released) return { kind: 'nothing', reason: 'the name was released with its machine' };
  const ip = machine.state === 'running' ? machine.publicIp : null;
  if (ip === null && !nameMustGo(machine.state))
    return name.failingSince !== null
      ? { kind: 'settle', reason: `${machine.state}: nothing to point until it starts, which points it` }
      : { kind: 'nothing', reason: `${machine.state}: the name keeps its last address` };
  // Told before anything is tried again: the operator hears of an outage while it lasts.
  if (nameAlertDue(name, now))
    return { kind: 'alert', reason: 'the name has not been updated for 10 minutes' };
  if (nameMustGo(machine.state)) {
    if (record === undefined)
      return { kind: 'observe', reason: 'the machine is gone: is its record still there?' };
    if (record === null) return { kind: 'forget', reason: 'the machine is gone and so is its record' };
    return {
      kind: 'delete',
      reason: 'the machine is gone: its name must not point at an address we gave back',
      record,
    };
  }
  if (ip === null) return { kind: 'nothing', reason: 'no address to point at' };
  if (name.pointsTo === ip && name.failingSince === null)
    return { kind: 'nothing', reason: 'the name points at the machine' };
  if (record === undefined)
    return { kind: 'observe', reason: `the name must point at ${ip}: what does it now?` };
  if (record?.ip === ip) return { kind: 'confirm', reason: `the record already points at ${ip}`, ip };
  // Our own last address (before a stop) is expected; any other was written by someone else.
  const drift = record !== null && record.ip !== name.pointsTo ? record.ip : null;
  return {
    kind: 'upsert',
    reason: drift
      ? `the record points at ${drift}, which we never wrote: corrected to ${ip}`
      : `the machine's address is ${ip}`,
    ip,
    drift,
  };
}

/**
 * The name the customer's previous machine holds (the latest of theirs but this one), as a new
 * machine's claim needs it: whose it is, whether it was released, and the state of the machine
 * holding it.
 */
export type PreviousName = { label: string; userId: string; released: boolean; holderState: string };

/**
 * How a machine with no name yet gets one.
 * - fresh: a new random label (the customer never had a name);
 * - take-over: the customer's previous name passes to this machine: its machine is gone
 *   (terminated or given up) or the name was released with it. The record is then pointed here
 *   (a record still left from the old machine is overwritten, not deleted and made again, so no
 *   resolver caches "no such name" meanwhile);
 * - wait: the previous machine is not gone yet (its termination lags behind the renewal): the
 *   name stays with it, and this machine is shown with its address until the old one is gone
 *   and the name passes here. Never a fresh label meanwhile: that would be the new name the
 *   customer must add again.
 */
export type NameClaim =
  { kind: 'fresh'; reason: string } | { kind: 'take-over' | 'wait'; reason: string; label: string };

/**
 * The name follows the customer's PC across renewal, a restore from the kept disk and a
 * replacement: a machine with no name takes its owner's previous one once the machine holding
 * it is gone, so Moonlight's saved host, the Remote Desktop and DCV files keep working. One
 * machine behind a name at a time (the handover waits for the old one), and a name never passes
 * to another customer.
 */
export function claimName(machine: { userId: string }, previous: PreviousName | null): NameClaim {
  if (previous === null || previous.userId !== machine.userId)
    return { kind: 'fresh', reason: 'the customer has no name yet: a new one' };
  if (previous.released || nameMustGo(previous.holderState))
    return {
      kind: 'take-over',
      reason: `the customer's previous machine is gone: ${previous.label} is this one's now`,
      label: previous.label,
    };
  return {
    kind: 'wait',
    reason: `${previous.label} is still its previous machine's (${previous.holderState}): it passes here once that one is gone`,
    label: previous.label,
  };
}

/** What the lifecycle knows of the name (undefined: no zone is configured). */
export type NameView = { pointsTo: string | null };

/** The lifecycle's one step for the name, on the way to running. */
export type PointNameDecision = { kind: 'point-name'; reason: string; publicIp: string };

/**
 * Before a machine is shown running at `publicIp`, its name is pointed there, so the name the
 * dashboard and the files carry already leads to it. One try: if Route 53 fails (`name-failed`),
 * the machine is shown all the same, with its address and a note, and the name's own job keeps
 * trying. Null: go on.
 */
export function nameFirst(
  name: NameView | undefined,
  publicIp: string,
  lastTry: LastTry | undefined,
): PointNameDecision | null {
  if (name === undefined || name.pointsTo === publicIp || triedAlready(lastTry)) return null;
  return {
    kind: 'point-name',
    reason: `its name is pointed at ${publicIp} before it is shown running`,
    publicIp,
  };
}

/** This run's try at the name failed (Route 53): the machine is shown all the same, the name's job retries. */
function triedAlready(lastTry: LastTry | undefined): boolean {
  switch (lastTry) {
    case 'name-failed':
      return true;
    case undefined:
    case 'no-spare':
    case 'nothing-adopted':
    case 'launch-failed':
    case 'start-failed':
    case 'not-startable-yet':
    case 'stop-refused':
    case 'password-not-ready':
    case 'password-undecryptable':
    case 'instance-not-found':
      return false;
    default:
      return assertNever(lastTry);
  }
}

/** What the dashboard shows of the name. */
export type MachineNameView = {
  /** `pc-7k2m9q4x.play.legendcloud.in`. */
  host: string;
  /**
   * The name leads to the PC now (its record points at the address the PC has); false while it is
   * being updated: use the address meanwhile. Null while the PC has no address (stopped).
   */
  current: boolean | null;
};

export const NAME_MESSAGES = {
  updating: 'Your PC’s name is being updated. Until it is, connect with the IP address shown.',
  keeps:
    'This name stays the same every time your PC starts: add it once in Moonlight, and your files keep working.',
  unsetMoonlight:
    'Your PC gets a new IP address every time it starts. After each START, add the new address in Moonlight (Add host, +): your paired devices stay paired, no new PIN needed.',
  rdpHintNamed: 'This file names your PC, so it keeps working after every start.',
} as const;

/**
 * The dashboard's view of the name: null without a zone or a name yet. `current` compares the
 * address our last write set with the one the machine has now.
 */
export function machineNameView(
  name: { label: string; pointsTo: string | null; released: boolean } | null,
  suffix: string | null,
  machine: NamedMachine,
): MachineNameView | null {
  if (!name || !suffix || name.released || nameMustGo(machine.state)) return null;
  const ip = machine.state === 'running' ? machine.publicIp : null;
  return { host: machineHostName(name.label, suffix), current: ip === null ? null : name.pointsTo === ip };
}

/**
 * The address a customer connects to: the name once it leads to the PC, else the IP (null while
 * the PC has none). What Moonlight is told, and what the RDP and DCV files and the browser desktop name.
 */
export function connectAddress(view: MachineNameView | null, publicIp: string | null): string | null {
  if (publicIp === null) return null;
  return view?.current ? view.host : publicIp;
}
