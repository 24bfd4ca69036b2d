/**
 * Playing games on the cloud PC: Moonlight through Sunshine on the machine, Amazon DCV's native
 * clients through a `.dcv` file, and the words the dashboard uses for them. Pure rules and words
 * shared by the API, the worker and the dashboard.
 *
 * Facts relied on (docs/streaming.md has the sources): Sunshine's web UI and REST API listen on
 * HTTPS 47990 with basic auth; `POST /api/pin {pin, name}` answers `{"status": true}` when a
 * Moonlight client is waiting for a PIN (the PIN goes to it; whether it was the right one shows
 * only when the client then appears in `GET /api/clients/list`) and `{"status": false}` when none
 * is; `POST /api/clients/unpair {uuid}` removes one. Moonlight waits about two minutes for the PIN.
 */
import { assertNever } from './assertNever.ts';
import { DCV_PORT, DCV_SESSION_ID } from './desktop.ts';
import { desktopReachable } from './machineStates.ts';
import { NAME_MESSAGES, type MachineNameView } from './machineName.ts';
import { isHostAddress } from './rdp.ts';
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

/** Sunshine's web UI and REST API (its base port 47989 + 1), HTTPS with its own certificate. */
export const SUNSHINE_API_PORT = 47990;

/** How long Moonlight waits for the PIN it shows to be typed on the host's side. */
export const MOONLIGHT_PIN_WINDOW_SECONDS = 120;

export type IngressRule = {
  protocol: 'tcp' | 'udp';
  from: number;
  to: number;
  /** Who may connect: customers from anywhere, or only the worker's egress addresses. */
  source: 'anyone' | 'worker';
  purpose: string;
};

/**
 * What the machines' security group must let in (the preflight checks it; infra/README.md
 * creates it). Moonlight needs TCP 47984, 47989, 48010 and UDP 47998–48000, 48010; DCV TCP and
 * UDP 8443 (UDP is QUIC); Remote Desktop 3389. Sunshine's API (47990) is for the worker alone.
 */
export const STREAMING_INGRESS: readonly IngressRule[] = [
  { protocol: 'tcp', from: 47984, to: 47984, source: 'anyone', purpose: 'Moonlight (HTTPS)' },
  { protocol: 'tcp', from: 47989, to: 47989, source: 'anyone', purpose: 'Moonlight (HTTP)' },
  { protocol: 'tcp', from: 48010, to: 48010, source: 'anyone', purpose: 'Moonlight (RTSP)' },
  { protocol: 'udp', from: 47998, to: 48000, source: 'anyone', purpose: 'Moonlight video, control, audio' },
  { protocol: 'udp', from: 48010, to: 48010, source: 'anyone', purpose: 'Moonlight (RTSP)' },
  { protocol: 'tcp', from: DCV_PORT, to: DCV_PORT, source: 'anyone', purpose: 'Amazon DCV' },
  { protocol: 'udp', from: DCV_PORT, to: DCV_PORT, source: 'anyone', purpose: 'Amazon DCV over QUIC' },
  {
    protocol: 'tcp',
    from: SUNSHINE_API_PORT,
    to: SUNSHINE_API_PORT,
    source: 'worker',
    purpose: "Sunshine's pairing API (the worker only)",
  },
];

/** A PIN as Moonlight shows it. */
export const PIN_PATTERN = /^[0-9]{4}$/;
export const DEVICE_NAME_MAX = 40;
/** Letters, digits, spaces and a few marks: the name is sent to Sunshine and shown on the dashboard. */
export const DEVICE_NAME_PATTERN = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} '’._()-]*$/u;

export const STREAMING_MESSAGES = {
  pinFormat: 'Type the 4-digit PIN Moonlight shows, digits only (for example 0417).',
  deviceNameMissing: 'Name the device you are pairing, for example "Living room TV".',
  deviceNameTooLong: `Keep the device name to ${DEVICE_NAME_MAX} characters or fewer.`,
  deviceNameFormat: 'Use letters, digits and spaces in the device name.',
  startFirst: 'Start your PC first: pairing happens on your PC, so it must be running.',
  startFirstToRemove: 'Start your PC first: the device is removed on your PC, so it must be running.',
  hostNotReady:
    'Your PC is still getting its streaming host ready. Wait a minute after it starts, then try again.',
  hostDown:
    'The streaming host on your PC is not running, so it cannot pair. STOP and START your PC, then try again.',
  busy: 'Another device is being paired with (or removed from) your PC right now. Wait for it to finish, then try again.',
  duplicateName: 'A device with this name is already paired. Give this one another name.',
  noDevice: 'That device is not paired with your PC.',
  tooMany: 'Too many pairing attempts. Please try again in a few minutes.',
  stillPairing: 'Still pairing… this page will show the result when your PC answers.',
  removed: 'Device removed. It can no longer stream from your PC.',
  foundOnPc:
    'Paired on your PC, not from this page (for example before your PC was restored from its saved disk).',
  dcvNotRunning: 'Your PC must be running to download its DCV file. Start it first.',
} as const;

/** Reads a device name as typed: trimmed, inner spaces collapsed. Null when nothing is left. */
export function normaliseDeviceName(raw: string): string | null {
  const name = raw.trim().replace(/\s+/g, ' ');
  return name === '' ? null : name;
}

/** Why a device name cannot be used, or null. */
export function deviceNameProblem(name: string | null): string | null {
  if (name === null) return STREAMING_MESSAGES.deviceNameMissing;
  if ([...name].length > DEVICE_NAME_MAX) return STREAMING_MESSAGES.deviceNameTooLong;
  if (!DEVICE_NAME_PATTERN.test(name)) return STREAMING_MESSAGES.deviceNameFormat;
  return null;
}

export const MOONLIGHT_HOME_URL = 'https://moonlight-stream.org/';
/** Amazon DCV's client downloads (Windows, macOS, Linux). */
export const DCV_CLIENT_URL = 'https://www.amazondcv.com/';

/**
 * What a customer does in Moonlight, in order, with what to add: their PC's name (added once: it
 * stays the same at every start) or its address while it runs.
 */
export function moonlightSteps(host: string | null, named = false): string[] {
  const address = host ?? 'your PC’s public IP (shown while it runs)';
  return [
    'Install Moonlight on the device you will play on.',
    named
      ? `In Moonlight, choose “Add host” (the + button) and type ${address}. You add it once: the name stays the same every time your PC starts.`
      : `In Moonlight, choose “Add host” (the + button) and type ${address}.`,
    'Moonlight shows a 4-digit PIN: type it below with a name for the device, within 2 minutes.',
    'Your PC appears in Moonlight: open it and choose Desktop, or a game.',
  ];
}

/** The message that tells the customer how to start a pairing again, with their PC's address. */
export function pairAgainMessage(host: string): string {
  return `Open Moonlight, add host ${host}, then type the PIN it shows within 2 minutes.`;
}

/** Where a pairing or a removal is. The first four are in flight (one at a time per machine). */
export const PAIRING_STATES = [
  'pending',
  'sending',
  'confirming',
  'removing',
  'paired',
  'refused',
  'failed',
  'removed',
] as const;
export type PairingState = (typeof PAIRING_STATES)[number];

/** A device the customer may ask to remove: one paired (or already being removed). */
export function removable(state: PairingState): boolean {
  return state === 'paired' || state === 'removing';
}

/** Where a removal stands: under way, done, or refused (the device is back as paired, with why). */
export function removalOutcome(state: PairingState): 'under-way' | 'removed' | 'kept' {
  switch (state) {
    case 'removing':
      return 'under-way';
    case 'removed':
      return 'removed';
    case 'pending':
    case 'sending':
    case 'confirming':
    case 'paired':
    case 'refused':
    case 'failed':
      return 'kept';
    default:
      return assertNever(state);
  }
}

/** A device the customer asked to remove, which Sunshine knows by its id: `stream-unpair` removes it. */
export function awaitsRemoval(pairing: { state: PairingState; clientUuid: string | null }): boolean {
  return pairing.state === 'removing' && pairing.clientUuid !== null;
}
export const PAIRING_IN_FLIGHT: readonly PairingState[] = ['pending', 'sending', 'confirming', 'removing'];

export function pairingInFlight(state: string): boolean {
  return (PAIRING_IN_FLIGHT as readonly string[]).includes(state);
}

/** What a pairing attempt ended in; each has the answer the customer gets and whether we are alerted. */
export const PAIRING_OUTCOMES = [
  'paired',
  'no-moonlight-waiting',
  'not-confirmed',
  'unreachable',
  'untrusted',
  'credentials-refused',
  'host-refused',
  'machine-changed',
  'expired',
] as const;
export type PairingOutcome = (typeof PAIRING_OUTCOMES)[number];

export type PairingAnswer = {
  /** The pairing row's final state. */
  state: 'paired' | 'refused' | 'failed';
  /** The API's answer: 200 when paired, a 4xx whose message says what to do otherwise. */
  status: 200 | 409 | 422;
  message: string;
  /** Something on our side needs a person (an operator alert), not only the customer. */
  alert: boolean;
};

/** The answer for each outcome, with the PC's address the customer types into Moonlight. */
export function pairingAnswer(outcome: PairingOutcome, host: string, deviceName: string): PairingAnswer {
  switch (outcome) {
    case 'paired':
      return {
        state: 'paired',
        status: 200,
        message: `${deviceName} is paired. Open your PC in Moonlight to play.`,
        alert: false,
      };
    case 'no-moonlight-waiting':
      return {
        state: 'refused',
        status: 422,
        message: `Your PC is not waiting for a PIN. ${pairAgainMessage(host)}`,
        alert: false,
      };
    case 'not-confirmed':
      return {
        state: 'refused',
        status: 422,
        message: `Moonlight did not confirm the pairing: the PIN may not match the one it shows. ${pairAgainMessage(host)}`,
        alert: false,
      };
    case 'unreachable':
      return {
        state: 'failed',
        status: 409,
        message:
          'We could not reach the streaming host on your PC. If it has just started, wait a minute and try again; if this keeps happening, STOP and START your PC. Our team has been alerted.',
        alert: true,
      };
    case 'untrusted':
      return {
        state: 'failed',
        status: 409,
        message:
          'The streaming host on your PC did not present the certificate your PC reported, so the PIN was not sent. Our team has been alerted; STOP and START your PC, then try again.',
        alert: true,
      };
    case 'credentials-refused':
      return {
        state: 'failed',
        status: 409,
        message:
          'The streaming host on your PC refused our sign-in (was its web password changed?). STOP and START your PC: it sets it again as it starts. Our team has been alerted.',
        alert: true,
      };
    case 'host-refused':
      return {
        state: 'failed',
        status: 409,
        message:
          'The streaming host on your PC refused the pairing request. Our team has been alerted; please try again later.',
        alert: true,
      };
    case 'machine-changed':
      return {
        state: 'failed',
        status: 409,
        message: 'Your PC stopped or restarted while pairing. Start it, then pair again.',
        alert: false,
      };
    case 'expired':
      return {
        state: 'failed',
        status: 409,
        message: `Pairing took too long and was cancelled. ${pairAgainMessage(host)}`,
        alert: false,
      };
  }
}

/** What went wrong talking to Sunshine, as the provider classifies it. */
export type SunshineFailure =
  'timeout' | 'unreachable' | 'untrusted' | 'unauthorized' | 'forbidden' | 'bad-response';

/** The outcome a Sunshine failure ends a pairing in. `timeout`/`unreachable` only after the retry. */
export function outcomeOfFailure(failure: SunshineFailure): PairingOutcome {
  switch (failure) {
    case 'timeout':
    case 'unreachable':
      return 'unreachable';
    case 'untrusted':
      return 'untrusted';
    case 'unauthorized':
      return 'credentials-refused';
    case 'forbidden':
    case 'bad-response':
      return 'host-refused';
  }
}

/** Failures worth one more try a moment later (the machine may be busy booting or on a bad link). */
export function failureRetryable(failure: SunshineFailure): boolean {
  return failure === 'timeout' || failure === 'unreachable';
}

/**
 * The client a PIN paired, from Sunshine's client list before and after: a client that was not
 * there before, preferring the name we gave. Null while it has not appeared (the handshake
 * takes a moment after the PIN, and never completes when the PIN was wrong).
 */
export function newlyPairedClient(
  before: ReadonlyArray<{ uuid: string; name: string }>,
  after: ReadonlyArray<{ uuid: string; name: string }>,
  deviceName: string,
): { uuid: string; name: string } | null {
  const known = new Set(before.map((c) => c.uuid));
  const fresh = after.filter((c) => !known.has(c.uuid));
  return fresh.find((c) => c.name === deviceName) ?? null;
}

/**
 * Why pairing (or removing a device) cannot start on the customer's machine now; null: go ahead.
 * The machine must run (Sunshine is on it) and have reported its streaming host, whose
 * certificate the worker pins.
 */
export function pairingRefusal(
  machine: { state: string; publicIp: string | null },
  host: { reported: boolean; sunshineRunning: boolean | null; certificatePinned: boolean },
  purpose: 'pair' | 'remove',
): { status: 409; message: string } | null {
  if (!desktopReachable(machine))
    return {
      status: 409,
      message: purpose === 'pair' ? STREAMING_MESSAGES.startFirst : STREAMING_MESSAGES.startFirstToRemove,
    };
  if (!host.reported || !host.certificatePinned)
    return { status: 409, message: STREAMING_MESSAGES.hostNotReady };
  if (host.sunshineRunning === false) return { status: 409, message: STREAMING_MESSAGES.hostDown };
  return null;
}

/** What a device found paired on the PC is called when Sunshine has no name for it. */
export const UNNAMED_DEVICE = 'Unnamed device';

/**
 * The dashboard's paired devices brought in line with Sunshine's own client list on the PC,
 * read at `readAt`:
 * - found: clients Sunshine knows that no row of ours names (paired in Sunshine's own page, or
 *   on a disk brought back from a kept copy): listed, so they can be removed;
 * - gone: devices we list as paired (since before the read) that Sunshine no longer knows
 *   (removed in Sunshine's page, or a fresh disk): no longer listed.
 * Nothing while a pairing or removal is in flight: the list may be between two states.
 */
export function reconcileClients(
  rows: ReadonlyArray<{
    id: string;
    state: PairingState;
    clientUuid: string | null;
    pairedAt: Instant | null;
  }>,
  clients: ReadonlyArray<{ uuid: string; name: string }>,
  readAt: Instant,
): { found: Array<{ uuid: string; name: string }>; gone: string[] } {
  if (rows.some((row) => pairingInFlight(row.state))) return { found: [], gone: [] };
  const listed = rows.filter((row) => row.state === 'paired' && row.clientUuid !== null);
  const ours = new Set(listed.map((row) => row.clientUuid));
  const theirs = new Set(clients.map((client) => client.uuid));
  const seen = new Set<string>();
  const found = clients
    .filter(
      (client) =>
        client.uuid !== '' && !ours.has(client.uuid) && !seen.has(client.uuid) && seen.add(client.uuid),
    )
    .map((client) => ({
      uuid: client.uuid,
      name: normaliseDeviceName(client.name)?.slice(0, DEVICE_NAME_MAX) ?? UNNAMED_DEVICE,
    }));
  const before = toEpochMs(readAt);
  const gone = listed
    .filter((row) => !theirs.has(row.clientUuid as string) && (toEpochMsOrNull(row.pairedAt) ?? 0) < before)
    .map((row) => row.id);
  return { found, gone };
}

/** A pairing nobody finished within this long is given up (Moonlight has stopped waiting by then). */
export const PAIRING_STALE_SECONDS = MOONLIGHT_PIN_WINDOW_SECONDS + 30;
/** How long `POST /api/vm/stream-pair` waits for the worker's answer before saying "still pairing". */
export const PAIRING_WAIT_SECONDS = 45;
/** How long the worker watches Sunshine's client list for the new device after the PIN. */
export const PAIRING_CONFIRM_SECONDS = 20;

/**
 * Amazon DCV's connection file (its native clients open it straight into the session): the
 * machine's name (or address), its port, the console session, and a one-time token our
 * authenticator accepts.
 */
export function dcvFile(host: string, token: string): string {
  if (!isHostAddress(host)) throw new Error('not an IPv4 address or a host name');
  if (!/^[A-Za-z0-9_-]{16,512}$/.test(token)) throw new Error('not a token');
  const lines = [
    '[version]',
    'format=1.0',
    '',
    '[connect]',
    `host=${host}`,
    `port=${DCV_PORT}`,
    `sessionid=${DCV_SESSION_ID}`,
    `authtoken=${token}`,
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export const DCV_FILE_NAME = 'LegendCloud-PC.dcv';
/** The media type DCV's clients are registered for (the extension is what opens them). */
export const DCV_FILE_TYPE = 'application/x-dcv';

/** A pairing as the dashboard record carries it (core/db/dashboard.ts reads them). */
export type PairingFacts = {
  id: string;
  name: string;
  state: PairingState;
  /** For a paired device, `paired`; after a removal that failed, why (its message says it). */
  outcome: string | null;
  message: string | null;
  createdAt: string;
  pairedAt: string | null;
  finishedAt: string | null;
  /** When a removal of it was asked for (null: never). */
  removedAt?: string | null | undefined;
  /** `machine`: found in Sunshine's client list on the PC, not paired from the dashboard. */
  origin?: 'dashboard' | 'machine' | undefined;
};

/** The dashboard record's `streaming`: everything the "how to connect" card needs. */
export type StreamingView = {
  /**
   * What to add in Moonlight: the PC's name once it leads to the PC, else its public IP while it
   * runs; null while neither can be used.
   */
  host: string | null;
  /** Whether `host` is the PC's stable name (added once) rather than an address that changes. */
  named: boolean;
  /**
   * One sentence about the address: the name stays; the name is being updated (use the IP
   * meanwhile); or, without names, that the address changes at every start and what to do.
   */
  addressNote: string;
  /** For paired devices after a start: what to open in Moonlight. Null with nothing paired. */
  pairedNote: string | null;
  moonlightSteps: string[];
  /** Whether a pairing can be sent now, and if not, why (a sentence), else null. */
  canPair: boolean;
  pairBlockedBecause: string | null;
  pairedDevices: Array<{
    id: string;
    name: string;
    pairedAt: string | null;
    removing: boolean;
    problem: string | null;
    /** Found paired on the PC, not paired from the dashboard. */
    foundOnPc: boolean;
  }>;
  /** The latest pairing attempt while it runs and for a few minutes after it ended. */
  pairing: {
    id: string;
    name: string;
    state: PairingState;
    message: string | null;
    startedAt: string;
  } | null;
  /** Amazon DCV's connection file for the native clients, while the machine runs. */
  dcvFileUrl: string | null;
};

export const DCV_FILE_PATH = '/api/vm/dcv-file';
/** How long a finished pairing's answer stays on the dashboard. */
const PAIRING_SHOWN_AFTER_MS = 10 * 60_000;

/**
 * Which attempt's answer the card still shows: the newest one while it runs; once finished, for a
 * few minutes, but never one from before the PC's current start (a refusal at the old address is
 * stale) nor one from before a device was removed since (its words no longer hold). A paired
 * attempt is shown only while its device is still paired: removed rows are never the newest.
 */
function shownAttempt(
  pairings: readonly PairingFacts[],
  now: Instant,
  runningSince: Instant | null,
): PairingFacts | null {
  const newest = pairings.find((p) => p.state !== 'removing' && p.state !== 'removed');
  if (!newest) return null;
  if (pairingInFlight(newest.state)) return newest;
  const finished = toEpochMsOrNull(newest.finishedAt) ?? 0;
  const lastRemoval = Math.max(0, ...pairings.map((p) => toEpochMsOrNull(p.removedAt ?? null) ?? 0));
  const since = toEpochMsOrNull(runningSince) ?? 0;
  return finished >= toEpochMs(now) - PAIRING_SHOWN_AFTER_MS && finished >= lastRemoval && finished >= since
    ? newest
    : null;
}

/** The record's `streaming` from the machine, its name, what its host last reported and its pairings. */
export function streamingView(input: {
  machine: { state: string; publicIp: string | null };
  host: { reported: boolean; sunshineRunning: boolean | null; certificatePinned: boolean };
  /** Newest first. */
  pairings: readonly PairingFacts[];
  now: Instant;
  /** The PC's DNS name (null: none, or no zone). */
  name?: MachineNameView | null | undefined;
  /** Whether machines have names here (a zone is configured). */
  namesEnabled?: boolean | undefined;
  /** When the PC's current run began (its last start), or null. */
  runningSince?: Instant | null | undefined;
}): StreamingView {
  const { machine, host, pairings } = input;
  const name = input.name ?? null;
  const running = desktopReachable(machine);
  const refusal = pairingRefusal(machine, host, 'pair');
  const latest = shownAttempt(pairings, input.now, input.runningSince ?? null);
  // The name once it leads to the PC; the IP while it runs otherwise (and while the name is updated).
  const named = name !== null && name.current !== false;
  const shownHost = named ? name.host : running ? machine.publicIp : null;
  const paired = pairings.filter((p) => p.state === 'paired' || p.state === 'removing');
  // Running with no name where names are on: its name is still on the way (the customer's name
  // waits for their previous machine to be gone), so the IP is what to use meanwhile.
  const addressNote = !input.namesEnabled
    ? NAME_MESSAGES.unsetMoonlight
    : name?.current === false || (name === null && running)
      ? NAME_MESSAGES.updating
      : NAME_MESSAGES.keeps;
  const pairedNote =
    paired.length === 0 || shownHost === null
      ? null
      : named
        ? `Your paired devices stay paired when your PC restarts: in Moonlight, open ${shownHost}.`
        : `Your paired devices stay paired when your PC restarts, but its address is new: in Moonlight, add host ${shownHost} (no new PIN needed).`;
  return {
    host: shownHost,
    named,
    addressNote,
    pairedNote,
    moonlightSteps: moonlightSteps(shownHost, named),
    canPair: refusal === null,
    pairBlockedBecause: refusal?.message ?? null,
    pairedDevices: paired.map((p) => ({
      id: p.id,
      name: p.name,
      pairedAt: p.pairedAt,
      removing: p.state === 'removing',
      problem:
        p.state === 'paired' && p.outcome !== 'paired' && p.outcome !== 'found-on-pc' ? p.message : null,
      foundOnPc: p.origin === 'machine',
    })),
    pairing: latest && {
      id: latest.id,
      name: latest.name,
      state: latest.state,
      message: latest.message,
      startedAt: latest.createdAt,
    },
    dcvFileUrl: running ? DCV_FILE_PATH : null,
  };
}

/** An inbound rule as a security group holds it: a protocol (`-1`: all), a port range, sources. */
export type IngressPermission = { protocol: string; from: number | null; to: number | null; cidrs: string[] };

type Cidr4 = { base: number; prefix: number };

/** An IPv4 CIDR (`a.b.c.d/n`, or a bare address), or null. */
export function parseCidr4(text: string): Cidr4 | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const octets = match.slice(1, 5).map(Number);
  const prefix = match[5] === undefined ? 32 : Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return null;
  const address = octets.reduce((n, o) => n * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  return { base: address - (address % size), prefix };
}

/** Whether every address of `inner` is in `outer`. */
function cidrWithin(inner: Cidr4, outer: Cidr4): boolean {
  if (outer.prefix > inner.prefix) return false;
  const size = 2 ** (32 - outer.prefix);
  return inner.base - (inner.base % size) === outer.base;
}

function covers(permission: IngressPermission, protocol: 'tcp' | 'udp', from: number, to: number): boolean {
  const all = permission.protocol === '-1' || permission.protocol === 'all';
  const same = permission.protocol === protocol || permission.protocol === (protocol === 'tcp' ? '6' : '17');
  if (!all && !same) return false;
  const low = all ? 0 : (permission.from ?? 0);
  const high = all ? 65535 : (permission.to ?? 65535);
  return low <= from && to <= high && permission.cidrs.length > 0;
}

export type IngressResult = { check: string; ok: boolean; detail: string; fix?: string };

const describeRule = (r: IngressRule) =>
  `${r.protocol.toUpperCase()} ${r.from === r.to ? r.from : `${r.from}–${r.to}`}`;

/**
 * What the preflight says of the machines' security group for game streaming: Moonlight's ports
 * and DCV's QUIC open to customers, and Sunshine's API (47990) open to the worker's egress
 * addresses and to nothing else.
 */
export function streamingIngressResults(
  permissions: readonly IngressPermission[],
  workerCidrs: readonly string[],
): IngressResult[] {
  const results: IngressResult[] = [];
  const open = (rule: IngressRule) => permissions.some((p) => covers(p, rule.protocol, rule.from, rule.to));
  const moonlight = STREAMING_INGRESS.filter((r) => r.purpose.startsWith('Moonlight'));
  const missing = moonlight.filter((r) => !open(r));
  results.push(
    missing.length === 0
      ? { check: 'security group allows Moonlight', ok: true, detail: moonlight.map(describeRule).join(', ') }
      : {
          check: 'security group allows Moonlight',
          ok: false,
          detail: `no inbound ${missing.map(describeRule).join(', ')}: Moonlight cannot reach Sunshine`,
          fix: `add inbound rules ${missing.map(describeRule).join(', ')} from the customers' addresses (0.0.0.0/0)`,
        },
  );
  const quic = STREAMING_INGRESS.find((r) => r.protocol === 'udp' && r.from === DCV_PORT) as IngressRule;
  results.push(
    open(quic)
      ? {
          check: `security group allows UDP ${DCV_PORT} (DCV over QUIC)`,
          ok: true,
          detail: describeRule(quic),
        }
      : {
          check: `security group allows UDP ${DCV_PORT} (DCV over QUIC)`,
          ok: false,
          detail: `no inbound UDP ${DCV_PORT}: DCV's clients fall back to TCP (slower for games)`,
          fix: `add an inbound rule UDP ${DCV_PORT} from the customers' addresses`,
        },
  );

  const check = `security group keeps ${SUNSHINE_API_PORT} (Sunshine API) to WORKER_EGRESS_CIDRS`;
  if (workerCidrs.length === 0) {
    results.push({
      check,
      ok: false,
      detail: 'WORKER_EGRESS_CIDRS is not set: pairing cannot be reached, or would be open to everyone',
      fix: "set WORKER_EGRESS_CIDRS to the worker's public egress addresses (its NAT gateway's, as a.b.c.d/32)",
    });
    return results;
  }
  const worker = workerCidrs.map((text) => ({ text, cidr: parseCidr4(text) }));
  const onApi = permissions.filter((p) => covers(p, 'tcp', SUNSHINE_API_PORT, SUNSHINE_API_PORT));
  const strangers = [
    ...new Set(
      onApi.flatMap((p) =>
        p.cidrs.filter((source) => {
          const parsed = parseCidr4(source);
          return !worker.some((w) => (parsed && w.cidr ? cidrWithin(parsed, w.cidr) : w.text === source));
        }),
      ),
    ),
  ];
  const unreached = worker.filter(
    (w) =>
      !onApi.some((p) =>
        p.cidrs.some((source) => {
          const parsed = parseCidr4(source);
          return parsed && w.cidr ? cidrWithin(w.cidr, parsed) : source === w.text;
        }),
      ),
  );
  if (strangers.length > 0) {
    results.push({
      check,
      ok: false,
      detail: `TCP ${SUNSHINE_API_PORT} is open to ${strangers.join(', ')}: anyone there can try every machine's Sunshine password`,
      fix: `allow TCP ${SUNSHINE_API_PORT} only from WORKER_EGRESS_CIDRS (${workerCidrs.join(', ')})`,
    });
  } else if (unreached.length > 0) {
    results.push({
      check,
      ok: false,
      detail: `no inbound TCP ${SUNSHINE_API_PORT} from ${unreached.map((w) => w.text).join(', ')}: the worker cannot pair devices`,
      fix: `add an inbound rule TCP ${SUNSHINE_API_PORT} from ${unreached.map((w) => w.text).join(', ')}`,
    });
  } else {
    results.push({ check, ok: true, detail: `only from ${workerCidrs.join(', ')}` });
  }
  return results;
}
