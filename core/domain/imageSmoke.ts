/**
 * `npm run aws:smoke`: a real machine's verdict on an image, from the signed health report it
 * sends. Pure rules: what each check needs to see, when the run has seen enough to pass or to
 * give up, the line printed per check, and what a run costs. scripts/awsSmoke.ts carries them out.
 */
import { expectedGpuModel, gpuMatchesInstanceType, REQUIRED_DISPLAY_MODES } from './imageChecks.ts';
import type { MachineHealthReport } from './machineHealth.ts';

export const SMOKE_OUTCOMES = ['passed', 'failed', 'interrupted', 'no-report', 'launch-failed'] as const;
export type SmokeOutcome = (typeof SMOKE_OUTCOMES)[number];

/**
 * The longest a run may hold its machine. The orphan sweep leaves an instance to its open run
 * until then (a run killed outright cannot terminate it), and then treats it as any unowned one.
 */
export const SMOKE_RUN_MAX_MINUTES = 180;

/** One line each, in this order. */
export const SMOKE_CHECKS = [
  'password',
  'licence',
  'gpu',
  'display',
  'audio',
  'gamepad',
  'sunshine-api',
  'dcv',
  'remote-desktop',
  'disk',
] as const;
export type SmokeCheck = (typeof SMOKE_CHECKS)[number];

export const SMOKE_CHECK_LABELS: Record<SmokeCheck, string> = {
  password: 'Windows password',
  licence: 'gaming driver licence',
  gpu: 'GPU of the plan',
  display: 'virtual display and its modes',
  audio: 'sound',
  gamepad: 'gamepad (XInput)',
  'sunshine-api': 'Sunshine API',
  dcv: 'Amazon DCV',
  'remote-desktop': 'Remote Desktop',
  disk: 'disk',
};

export type SmokeVerdict = { check: SmokeCheck; ok: boolean; seen: string };

/** What the run knows of the Windows password: EC2's GetPasswordData, decrypted with our key. */
export type PasswordState = { state: 'ready' } | { state: 'pending' } | { state: 'failed'; error: string };

const GB = 1024 ** 3;
const gb = (bytes: number) => `${(bytes / GB).toFixed(1)} GB`;
/** Space a volume keeps outside C: (Windows' recovery and system partitions). */
const RESERVED_PARTITIONS_BYTES = 2 * GB;
/** Unallocated space under this is rounding, not a partition left unextended. */
const UNALLOCATED_TOLERANCE_BYTES = GB;

const NOT_REPORTED = 'not in the report (an image older than this check?)';

/** Each check's verdict on the latest report (null: none yet) and the password. */
export function smokeVerdicts(input: {
  report: MachineHealthReport | null;
  instanceType: string;
  volumeGb: number;
  password: PasswordState;
}): SmokeVerdict[] {
  const { report } = input;
  return SMOKE_CHECKS.map((check) => {
    if (check === 'password') return passwordVerdict(input.password);
    if (!report) return { check, ok: false, seen: 'no health report yet' };
    return reportVerdict(check, report, input);
  });
}

function passwordVerdict(password: PasswordState): SmokeVerdict {
  switch (password.state) {
    case 'ready':
      return {
        check: 'password',
        ok: true,
        seen: 'GetPasswordData answered and it decrypts with our key pair',
      };
    case 'pending':
      return {
        check: 'password',
        ok: false,
        seen: 'GetPasswordData is still empty (EC2Launch’s setAdminAccount has not run)',
      };
    case 'failed':
      return { check: 'password', ok: false, seen: password.error };
  }
}

function reportVerdict(
  check: Exclude<SmokeCheck, 'password'>,
  r: MachineHealthReport,
  input: { instanceType: string; volumeGb: number },
): SmokeVerdict {
  const verdict = (ok: boolean, seen: string): SmokeVerdict => ({ check, ok, seen });
  switch (check) {
    case 'licence':
      if (r.gpu.licensed === true) return verdict(true, `Licensed (driver ${r.gpu.driverVersion ?? '?'})`);
      if (r.gpu.licensed === false)
        return verdict(false, `driver ${r.gpu.driverVersion ?? '?'} reports unlicensed`);
      return verdict(
        false,
        'no licence status (nvidia-smi -q printed no License Status, or no GPU answered)',
      );
    case 'gpu': {
      const model = expectedGpuModel(input.instanceType);
      const matches = gpuMatchesInstanceType(r.gpu.name, input.instanceType);
      if (r.gpu.name === null) return verdict(false, 'no NVIDIA GPU answered nvidia-smi');
      if (matches === null) return verdict(false, `${r.gpu.name}; no GPU known for ${input.instanceType}`);
      return matches
        ? verdict(true, `${r.gpu.name}, as ${input.instanceType} carries`)
        : verdict(false, `${r.gpu.name}, but ${input.instanceType} carries an NVIDIA ${model ?? '?'}`);
    }
    case 'display': {
      const d = r.display;
      if (!d.present) return verdict(false, 'no active display');
      if (d.virtual === undefined || d.virtual === null)
        return verdict(false, `whether it is the virtual display is ${NOT_REPORTED}`);
      if (!d.virtual)
        return verdict(
          false,
          `the active display is not the virtual display (${d.width ?? '?'}×${d.height ?? '?'})`,
        );
      if (!d.modes) return verdict(false, `its modes are ${NOT_REPORTED}`);
      const offered = new Set(d.modes);
      const missing = REQUIRED_DISPLAY_MODES.filter((m) => !offered.has(m));
      if (missing.length > 0)
        return verdict(
          false,
          `missing ${missing.length} of ${REQUIRED_DISPLAY_MODES.length} modes: ${missing.slice(0, 6).join(', ')}${missing.length > 6 ? ', …' : ''}`,
        );
      return verdict(
        true,
        `virtual display at ${d.width}×${d.height}${d.refreshHz ? ` ${d.refreshHz} Hz` : ''}; all ${REQUIRED_DISPLAY_MODES.length} modes offered`,
      );
    }
    case 'audio': {
      if (!r.audio) return verdict(false, `sound is ${NOT_REPORTED}`);
      const service = r.audio.serviceRunning ? 'Windows Audio running' : 'Windows Audio not running';
      if (!r.audio.endpoint) return verdict(false, `no audio endpoint; ${service}`);
      return verdict(r.audio.serviceRunning, `${r.audio.endpoint}; ${service}`);
    }
    case 'gamepad': {
      if (!r.gamepad) return verdict(false, `gamepads are ${NOT_REPORTED}`);
      const bus = r.gamepad.busPresent ? 'ViGEmBus present' : 'ViGEmBus missing';
      const xinput =
        r.gamepad.xinput === null
          ? 'XInput driver unknown'
          : r.gamepad.xinput
            ? 'XInput driver present'
            : 'XInput driver missing';
      return verdict(r.gamepad.busPresent && r.gamepad.xinput === true, `${bus}, ${xinput}`);
    }
    case 'sunshine-api': {
      if (!r.sunshine.running) return verdict(false, 'SunshineService not running');
      if (r.sunshine.apiAnswers === undefined || r.sunshine.apiAnswers === null)
        return verdict(false, `whether its API answers is ${NOT_REPORTED}`);
      if (!r.sunshine.apiAnswers)
        return verdict(false, 'running, but its API refused the machine’s own credentials');
      if (!r.sunshine.certSha256)
        return verdict(false, 'its API answers but no certificate fingerprint was reported');
      return verdict(true, 'running; its API answers the machine’s credentials; certificate reported');
    }
    case 'dcv':
      return verdict(r.dcv.running, r.dcv.running ? 'dcvserver running' : 'dcvserver not running');
    case 'remote-desktop': {
      if (!r.rdp.listening) return verdict(false, 'nothing listens on 3389');
      if (r.rdp.consoleHandoff === undefined || r.rdp.consoleHandoff === null)
        return verdict(false, `the console hand-back task is ${NOT_REPORTED}`);
      return r.rdp.consoleHandoff
        ? verdict(true, 'listening on 3389; the console hand-back task is in place')
        : verdict(false, 'listening on 3389, but the console hand-back task is missing');
    }
    case 'disk': {
      const { totalBytes, freeBytes } = r.disk;
      const unallocated = r.disk.unallocatedBytes;
      const volume = `${input.volumeGb} GB volume`;
      if (unallocated === undefined || unallocated === null)
        return verdict(false, `unallocated space is ${NOT_REPORTED}`);
      const seen = `C: ${gb(totalBytes)} of a ${volume}, ${gb(unallocated)} unallocated, ${gb(freeBytes)} free`;
      const extended =
        unallocated < UNALLOCATED_TOLERANCE_BYTES &&
        totalBytes >= input.volumeGb * GB - RESERVED_PARTITIONS_BYTES;
      return verdict(extended, extended ? seen : `partition not extended: ${seen}`);
    }
  }
}

/** Each check's history in a run: when it first passed (minutes after launch) and what it last showed. */
export type SmokeProgress = Record<SmokeCheck, { firstOkMinutes: number | null; last: SmokeVerdict }>;

export function startSmokeProgress(): SmokeProgress {
  return Object.fromEntries(
    SMOKE_CHECKS.map((check) => [
      check,
      { firstOkMinutes: null, last: { check, ok: false, seen: 'not seen yet' } },
    ]),
  ) as SmokeProgress;
}

export function trackSmoke(
  progress: SmokeProgress,
  verdicts: SmokeVerdict[],
  minutes: number,
): SmokeProgress {
  const next = { ...progress };
  for (const v of verdicts) {
    const before = progress[v.check];
    next[v.check] = { firstOkMinutes: before.firstOkMinutes ?? (v.ok ? minutes : null), last: v };
  }
  return next;
}

export type SmokeDecision =
  { kind: 'pass' } | { kind: 'wait' } | { kind: 'fail'; outcome: 'failed' | 'no-report'; reason: string };

/**
 * Whether the run has seen enough: it passes once every check passes in the latest report (and the
 * password is there); it fails with no report at all by the deadline, or when, `settleMinutes` after
 * the first report (time for the licence and services to settle), some check still fails.
 */
export function smokeDecision(input: {
  progress: SmokeProgress;
  minutesSinceLaunch: number;
  minutesSinceFirstReport: number | null;
  deadlineMinutes: number;
  settleMinutes: number;
}): SmokeDecision {
  const failing = SMOKE_CHECKS.filter((c) => !input.progress[c].last.ok);
  if (failing.length === 0) return { kind: 'pass' };
  if (input.minutesSinceFirstReport === null)
    return input.minutesSinceLaunch >= input.deadlineMinutes
      ? {
          kind: 'fail',
          outcome: 'no-report',
          reason: `no health report within ${input.deadlineMinutes} minutes`,
        }
      : { kind: 'wait' };
  if (
    input.minutesSinceFirstReport >= input.settleMinutes ||
    input.minutesSinceLaunch >= input.deadlineMinutes
  )
    return {
      kind: 'fail',
      outcome: 'failed',
      reason: `${failing.map((c) => SMOKE_CHECK_LABELS[c]).join(', ')} still failing ${input.settleMinutes} minutes after the first report`,
    };
  return { kind: 'wait' };
}

/** The line printed for a check at the end of a run. */
export function smokeLine(check: SmokeCheck, state: SmokeProgress[SmokeCheck]): string {
  const label = SMOKE_CHECK_LABELS[check];
  if (state.last.ok) {
    const took = state.firstOkMinutes === null ? '' : ` (${state.firstOkMinutes.toFixed(1)} min)`;
    return `OK   ${label}${took}: ${state.last.seen}`;
  }
  return `FAIL ${label}: ${state.last.seen}`;
}

/**
 * On-demand list prices per hour, Windows included, ap-south-1, at the time of writing (from a
 * third-party mirror of AWS's list, as README's POOL_HOT row says): re-check on the EC2 pricing page.
 */
export const SMOKE_HOURLY_USD: Readonly<Record<string, number>> = {
  'g4dn.xlarge': 0.76,
  'g4dn.2xlarge': 1.2,
  'g5.xlarge': 1.39,
};

/** What the operator reads before anything is launched. */
export function smokeCostNote(input: {
  instanceType: string;
  planName: string;
  imageId: string;
  region: string;
  volumeGb: number;
  deadlineMinutes: number;
}): string {
  const price = SMOKE_HOURLY_USD[input.instanceType];
  const usd = (hours: number) => `US$${((price ?? 0) * hours).toFixed(2)}`;
  const what = `This launches one ${input.instanceType} (${input.planName}) from ${input.imageId} in ${input.region} with a ${input.volumeGb} GB disk.`;
  const cost =
    price === undefined
      ? `Its hourly price is not in our table: see https://aws.amazon.com/ec2/pricing/on-demand/ (Windows, ${input.region}).`
      : `On demand with Windows it costs about US$${price.toFixed(2)} an hour: a run of 10–25 minutes about ${usd(10 / 60)}–${usd(25 / 60)}, at most ${usd(input.deadlineMinutes / 60)} if it runs to its ${input.deadlineMinutes}-minute deadline, plus a few cents of disk (list prices; re-check).`;
  return `${what} ${cost} It is terminated when the run ends, on Ctrl-C and on any failure.`;
}
