/**
 * What a machine's own health report means: for the customer (the line on the dashboard's card:
 * what it is ready for, or what is wrong and what to do) and for operators (which problems raise
 * an alert, when silence is a problem). Pure rules, shared by the API, the worker and the SPA.
 *
 * The image's reporter (infra/image/scripts/health-report.ps1) posts a report at every boot and
 * every 5 minutes to `POST /api/machine/health`, signed with a secret generated for that machine
 * at launch: HMAC-SHA256 over `<unix seconds>.<body>`, sent as `X-Legend-Signature: v1=<hex>`
 * with the seconds in `X-Legend-Timestamp`.
 */
import { expectedGpuModel, gpuMatchesInstanceType } from './imageChecks.ts';
import { troubleshootingHref, type TroubleshootingKey } from './guides.ts';
import { CLOCK_MESSAGES } from './reportClock.ts';
import { toEpochMs, toEpochMsOrNull, type Instant } from './time.ts';

export const MACHINE_HEALTH_PATH = '/api/machine/health';
export const HEALTH_TIMESTAMP_HEADER = 'x-legend-timestamp';
export const HEALTH_SIGNATURE_HEADER = 'x-legend-signature';
export const HEALTH_SIGNATURE_VERSION = 'v1';
/** How often a running machine reports. */
export const HEALTH_REPORT_INTERVAL_SECONDS = 300;
/** A running machine silent this long is a problem (its reporter, or the machine, is stuck). */
export const HEALTH_SILENCE_MINUTES = 15;
/** A report over 16 kB is not our reporter's. */
export const HEALTH_REPORT_MAX_BYTES = 16 * 1024;
/** Free disk below this is worth telling the customer (games and their updates are large). */
export const LOW_DISK_BYTES = 10 * 1024 ** 3;

/** The bytes a report's signature covers. */
export function signedHealthPayload(timestampSeconds: number, body: string): string {
  return `${timestampSeconds}.${body}`;
}

/**
 * A report, as the API validated it. The fields marked optional came with the image that proves
 * itself (sound, gamepads, the virtual display's modes, …): a machine from an older image does not
 * send them, and what it does not say is unknown, never a fault on the card (aws:smoke, which
 * judges an image, counts it as a failure).
 */
export type MachineHealthReport = {
  instanceId: string;
  gpu: { name: string | null; driverVersion: string | null; licensed: boolean | null };
  display: {
    present: boolean;
    width: number | null;
    height: number | null;
    refreshHz: number | null;
    /** Whether the active display is the virtual display (what Sunshine is set to capture), healthy and on the desktop. */
    virtual?: boolean | null;
    /** The modes the virtual display offers, as `1920x1080@120` (imageChecks.ts `modeKey`). */
    modes?: string[] | null;
  };
  /** Sunshine (Moonlight's host): running, and the SHA-256 of the certificate it serves (pinned by pairing). */
  sunshine: {
    running: boolean;
    certSha256: string | null;
    /** Whether its API answered the machine's own credentials on the machine itself. */
    apiAnswers?: boolean | null;
  };
  dcv: { running: boolean };
  rdp: {
    listening: boolean;
    /** Whether the task that hands the session back to the console after Remote Desktop is in place. */
    consoleHandoff?: boolean | null;
  };
  disk: {
    freeBytes: number;
    totalBytes: number;
    /** Space on the system disk that C: does not use: the partition was not extended to a bigger volume. */
    unallocatedBytes?: number | null;
  };
  /** The Windows Audio service and the audio endpoint Sunshine captures (its name), or null when none. */
  audio?: { serviceRunning: boolean; endpoint: string | null } | null;
  /** The virtual gamepad bus (ViGEmBus) and Windows' Xbox 360 (XInput) driver it needs on Server. */
  gamepad?: { busPresent: boolean; xinput: boolean | null } | null;
};

/** A certificate fingerprint as we store and compare it: lowercase hex, no separators. */
export function normaliseFingerprint(value: string): string | null {
  const hex = value.replace(/[:\s-]/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

/** Why a report was refused (recorded); `accepted` is the one that changes something. */
export const HEALTH_OUTCOMES = [
  'accepted',
  'malformed',
  'unsigned',
  'stale',
  'clock-ahead',
  'unknown-machine',
  'bad-signature',
  'not-in-service',
  'wrong-address',
  'replayed',
] as const;
export type HealthOutcome = (typeof HEALTH_OUTCOMES)[number];

/**
 * Refusals that look like someone other than the machine sending reports: counted towards the
 * forged-reports alert. A machine reporting before its address is known (`not-in-service`), a
 * clock adrift (`stale`, `clock-ahead`) or a broken reporter (`malformed`) are not forgeries.
 */
export const FORGERY_OUTCOMES: readonly HealthOutcome[] = [
  'unsigned',
  'unknown-machine',
  'bad-signature',
  'wrong-address',
  'replayed',
];
/** This many forgery-like refusals from one address (or for one machine) within an hour alert an operator. */
export const FORGERY_ALERT_THRESHOLD = 5;

/** The API's answer to a refusal: 401 when the report did not prove who sent it, else 403/409. */
export function refusalStatus(outcome: Exclude<HealthOutcome, 'accepted'>): 400 | 401 | 403 | 409 {
  switch (outcome) {
    case 'malformed':
      return 400;
    case 'unsigned':
    case 'stale':
    case 'clock-ahead':
    case 'unknown-machine':
    case 'bad-signature':
    case 'replayed':
      return 401;
    case 'wrong-address':
      return 403;
    case 'not-in-service':
      return 409;
  }
}

export const HEALTH_REFUSAL_MESSAGES: Record<Exclude<HealthOutcome, 'accepted'>, string> = {
  malformed: 'The report is not valid.',
  unsigned: 'The report is not signed.',
  stale: 'The report is signed too far from now: check the machine clock.',
  'clock-ahead': 'The report is dated ahead of our clock: the machine’s clock runs fast.',
  'unknown-machine': 'The report is not from a machine we know.',
  'bad-signature': 'The report signature does not match.',
  'not-in-service': 'This machine is not in service at this address yet: report again shortly.',
  'wrong-address': 'Reports are accepted only from the machine’s own address.',
  replayed: 'This report was already received.',
};

/** What can be wrong with a machine, most serious first. */
export const HEALTH_PROBLEMS = [
  'no-gpu',
  'driver-unlicensed',
  'no-display',
  'display-not-capturable',
  'stream-host-down',
  'stream-host-unreachable',
  'no-audio',
  'no-gamepad',
  'dcv-down',
  'rdp-down',
  'gpu-mismatch',
  'low-resolution',
  'disk-low',
] as const;
export type HealthProblem = (typeof HEALTH_PROBLEMS)[number];

/** The guides page's failure case for each problem a gamer can do something about. */
const PROBLEM_GUIDE: Partial<Record<HealthProblem, TroubleshootingKey>> = {
  'no-display': 'blackScreen',
  'display-not-capturable': 'blackScreen',
  'stream-host-down': 'pcNotFound',
  'stream-host-unreachable': 'pairingRefused',
  'no-audio': 'noSound',
  'no-gamepad': 'controllerNotDetected',
};

/** The link for a problem's "What to do" (its case on the guides page), or null when the guide has nothing for it. */
export function problemGuideHref(problem: HealthProblem): string | null {
  const key = PROBLEM_GUIDE[problem];
  return key ? troubleshootingHref(key) : null;
}

type ProblemWords = {
  headline: string;
  advice: string;
  /** Whether it needs a person on our side (an operator alert). */
  alert: boolean;
  /** What the operator reads in the alert: what it is and where to look. */
  operator: string;
};

const RESTART = 'STOP and START your PC: it gets fresh hardware and starts its services again.';

/** What each problem means for the customer, and whether it needs a person on our side. */
export const HEALTH_PROBLEM_WORDS: Record<HealthProblem, ProblemWords> = {
  'no-gpu': {
    headline: 'Your PC’s graphics card is not responding: games and streaming will be slow.',
    advice: `${RESTART} Our team has been alerted.`,
    alert: true,
    operator:
      'no NVIDIA GPU answers nvidia-smi: a bad host or a broken driver install; a stop and start moves the machine to other hardware.',
  },
  'driver-unlicensed': {
    headline: 'Your PC’s graphics driver is not licensed: games may run slowly or at a low resolution.',
    advice: `Our team has been alerted. ${RESTART}`,
    alert: true,
    operator:
      'nvidia-smi -q reports the gaming driver unlicensed: check vGamingMarketplace=2 and GridSwCert.txt on the image (infra/image/scripts/01-nvidia-driver.ps1) and that the instance reaches NVIDIA’s licence service.',
  },
  'no-display': {
    headline: 'Your PC has no display for streaming: Moonlight may show a black screen or a low resolution.',
    advice: `Our team has been alerted. ${RESTART} Remote Desktop and the browser desktop still work.`,
    alert: true,
    operator:
      'no display attached (the virtual display driver is missing or disabled): Sunshine captures nothing; check infra/image/scripts/08-virtual-display.ps1 and Device Manager.',
  },
  'display-not-capturable': {
    headline: 'Moonlight may show a black screen: your PC is not showing its streaming display.',
    advice: `${RESTART} Remote Desktop and the browser desktop still work. Our team has been alerted.`,
    alert: true,
    operator:
      'the active display is not the virtual display (Root\\MttVDD): Sunshine would capture EC2’s basic display adapter or nothing; check the device in Device Manager and output_name in machine-setup.log (infra/image/machine-setup.ps1).',
  },
  'stream-host-down': {
    headline: 'Moonlight cannot connect: the streaming host on your PC is not working.',
    advice: `${RESTART} Meanwhile the browser desktop and Remote Desktop work. Our team has been alerted.`,
    alert: true,
    operator:
      'the SunshineService service is not running, or its API does not answer the machine’s own credentials (machine-setup.ps1 sets them at every boot: see machine-setup.log).',
  },
  'stream-host-unreachable': {
    headline: 'We could not reach the streaming host on your PC, so pairing may fail.',
    advice: `Try again in a minute; if it keeps failing, ${RESTART.charAt(0).toLowerCase()}${RESTART.slice(1)} Our team has been alerted.`,
    alert: true,
    operator:
      'the worker could not reach Sunshine’s API (TCP 47990) on the machine: check the security group allows WORKER_EGRESS_CIDRS and Windows Firewall on the image.',
  },
  'no-audio': {
    headline: 'Games will be silent in Moonlight: your PC has no sound device.',
    advice: `${RESTART} Our team has been alerted.`,
    alert: true,
    operator:
      'the Windows Audio service is not running or there is no audio endpoint (Steam Streaming Speakers) for Sunshine to capture: check Audiosrv and infra/image/scripts/10-audio.ps1.',
  },
  'no-gamepad': {
    headline: 'Controllers will not work through Moonlight: your PC’s virtual gamepad driver is missing.',
    advice: `Keyboard and mouse still work. ${RESTART} Our team has been alerted.`,
    alert: true,
    operator:
      'the ViGEmBus device or Windows’ Xbox 360 (XUSB) driver is missing, so Moonlight’s controllers cannot appear as XInput pads: check infra/image/scripts/11-gamepad.ps1.',
  },
  'dcv-down': {
    headline: 'The browser desktop and the DCV app cannot connect right now.',
    advice: `Use Moonlight or Remote Desktop meanwhile, or ${RESTART.charAt(0).toLowerCase()}${RESTART.slice(1)} Our team has been alerted.`,
    alert: true,
    operator: 'the dcvserver service is not running on the machine.',
  },
  'rdp-down': {
    headline: 'Remote Desktop is not answering on your PC.',
    advice: `Use Moonlight or the browser desktop meanwhile, or ${RESTART.charAt(0).toLowerCase()}${RESTART.slice(1)} Our team has been alerted.`,
    alert: true,
    operator: 'TermService is not listening on 3389 on the machine.',
  },
  'gpu-mismatch': {
    headline: 'Your PC’s graphics card is not the one your plan includes.',
    advice: 'Our team has been alerted. Your PC works meanwhile.',
    alert: true,
    operator:
      'the GPU the machine reports is not the one its instance type carries (core/domain/imageChecks.ts): the instance type or the image is wrong.',
  },
  'low-resolution': {
    headline: 'Your PC’s display is set below 1080p.',
    advice: 'Choose 1080p or higher in Moonlight’s settings (Resolution), or in Windows’ display settings.',
    alert: false,
    operator: 'the display is below 1080p.',
  },
  'disk-low': {
    headline: 'Your PC’s disk is almost full: games may fail to install or update.',
    advice: 'Delete files or games you no longer need.',
    alert: false,
    operator: 'less than 10 GB free on C:.',
  },
};

export const HEALTH_MESSAGES = {
  checking: 'Checking your PC’s streaming setup…',
  checkingAdvice: 'Your PC reports what it is ready for within a few minutes of starting.',
  off: 'Streaming health is checked while your PC runs.',
  readyAt: (mode: string) => `Ready for ${mode} streaming`,
  readyPlain: 'Ready for streaming',
  silent: (minutes: number) => `Your PC has not reported its health for ${minutes} minutes.`,
  silentAdvice: `If you cannot connect, ${RESTART.charAt(0).toLowerCase()}${RESTART.slice(1)} Our team has been alerted.`,
} as const;

/** "1440p 120 fps", "4K 60 fps", "1080p 144 fps" from a display mode; null when unknown. */
export function streamingMode(display: MachineHealthReport['display']): string | null {
  if (!display.present || !display.width || !display.height) return null;
  // Named by its short side, as screens are: 2560×1440 is 1440p, 3840×2160 is 4K.
  const height = Math.min(display.width, display.height);
  const label = height >= 2160 ? '4K' : `${height}p`;
  return display.refreshHz ? `${label} ${Math.round(display.refreshHz)} fps` : label;
}

/** What a report is judged against besides itself. */
export type ProblemContext = {
  /** The worker failed to reach the machine's Sunshine during this run. */
  streamHostUnreachable: boolean;
  /** The machine's instance type (its plan's), whose GPU the report's is compared with; null when unknown. */
  instanceType: string | null;
};

/** Every problem a fresh report shows, most serious first. */
export function problemsOf(report: MachineHealthReport, context: ProblemContext): HealthProblem[] {
  const found = new Set<HealthProblem>();
  if (report.gpu.name === null) found.add('no-gpu');
  if (report.gpu.licensed === false) found.add('driver-unlicensed');
  if (context.instanceType && gpuMatchesInstanceType(report.gpu.name, context.instanceType) === false)
    found.add('gpu-mismatch');
  if (!report.display.present) found.add('no-display');
  else if (report.display.virtual === false) found.add('display-not-capturable');
  if (!report.sunshine.running || report.sunshine.apiAnswers === false) found.add('stream-host-down');
  else if (context.streamHostUnreachable) found.add('stream-host-unreachable');
  if (report.audio && (!report.audio.serviceRunning || report.audio.endpoint === null)) found.add('no-audio');
  if (report.gamepad && (!report.gamepad.busPresent || report.gamepad.xinput === false))
    found.add('no-gamepad');
  if (!report.dcv.running) found.add('dcv-down');
  if (!report.rdp.listening) found.add('rdp-down');
  if (report.display.present && report.display.height !== null && report.display.height < 1080)
    found.add('low-resolution');
  if (report.disk.freeBytes < LOW_DISK_BYTES) found.add('disk-low');
  return HEALTH_PROBLEMS.filter((p) => found.has(p));
}

/** The problems of a report that need a person (each is an operator alert, one per machine and kind). */
export function alertingProblems(report: MachineHealthReport, instanceType: string | null): HealthProblem[] {
  return problemsOf(report, { streamHostUnreachable: false, instanceType }).filter(
    (p) => HEALTH_PROBLEM_WORDS[p].alert,
  );
}

/** The operator's sentence for a problem of this report: what it is, what was seen, where to look. */
export function operatorProblemMessage(
  problem: HealthProblem,
  report: MachineHealthReport,
  instanceType: string | null,
): string {
  const words = HEALTH_PROBLEM_WORDS[problem].operator;
  if (problem === 'gpu-mismatch')
    return `${words} It reports “${report.gpu.name ?? 'no GPU'}”; ${instanceType ?? 'its instance type'} carries an NVIDIA ${instanceType ? (expectedGpuModel(instanceType) ?? '?') : '?'}.`;
  if (problem === 'no-audio' && report.audio)
    return `${words} Seen: Windows Audio ${report.audio.serviceRunning ? 'running' : 'not running'}, endpoint ${report.audio.endpoint ?? 'none'}.`;
  if (problem === 'no-gamepad' && report.gamepad)
    return `${words} Seen: ViGEmBus ${report.gamepad.busPresent ? 'present' : 'missing'}, XInput driver ${report.gamepad.xinput === null ? 'unknown' : report.gamepad.xinput ? 'present' : 'missing'}.`;
  return words;
}

export type HealthStatus = 'ready' | 'attention' | 'checking' | 'silent' | 'off';

/** The dashboard's view of a machine's health (core/domain/vm.ts `DashboardRecord.machineHealth`). */
export type MachineHealthView = {
  status: HealthStatus;
  /** The card's line: "Ready for 1440p 120 fps streaming", or the most serious problem. */
  headline: string;
  /** What the customer can do, or null. */
  advice: string | null;
  /** The troubleshooting guide's section for the problem in the headline, or null. */
  helpUrl: string | null;
  problems: HealthProblem[];
  /** When the last report we accepted arrived (ISO), or null. */
  checkedAt: string | null;
  gpu: string | null;
  driverLicensed: boolean | null;
  display: { width: number; height: number; refreshHz: number | null } | null;
  /** Whether the display Moonlight streams is the virtual one (null: the machine did not say). */
  streamingDisplay: boolean | null;
  /** The sound device Moonlight plays ("Steam Streaming Speakers"), false for none, null when not reported. */
  sound: string | false | null;
  /** Whether Moonlight's controllers can appear as Xbox controllers (null: not reported). */
  controllers: boolean | null;
  /** Whether the report said Sunshine (Moonlight's host) runs; null without a report. */
  streamHostRunning: boolean | null;
  freeDiskGb: number | null;
};

export type HealthInput = {
  /** The machine's state, when it last started running, and its instance type (null when unknown). */
  machine: { state: string; runningSince: Instant | null; instanceType?: string | null };
  /** The last report accepted for this machine, when it arrived, and our own failures to reach it. */
  health: {
    receivedAt: Instant;
    report: MachineHealthReport;
    streamHostUnreachableAt: Instant | null;
  } | null;
  /** The last genuine report refused because the machine's clock ran ahead of ours, if any. */
  clockAhead?: { seconds: number; observedAt: Instant } | null;
  now: Instant;
};

/**
 * A running machine whose last report (or start, when it has reported nothing since) is older
 * than HEALTH_SILENCE_MINUTES. The sweep's SQL (core/db/machineHealth.ts) says the same; the
 * machine-health test proves both agree.
 */
export function healthSilent(input: {
  state: string;
  runningSince: Instant | null;
  lastReportAt: Instant | null;
  now: Instant;
}): boolean {
  if (input.state !== 'running') return false;
  const since = toEpochMsOrNull(input.runningSince);
  if (since === null) return false;
  const last = toEpochMsOrNull(input.lastReportAt);
  const heardFrom = last !== null && last > since ? last : since;
  return toEpochMs(input.now) - heardFrom >= HEALTH_SILENCE_MINUTES * 60_000;
}

/** What the card says about the machine's health, from its state and its last report. */
export function assessHealth(input: HealthInput): MachineHealthView {
  const { machine, health, now } = input;
  const base = {
    problems: [] as HealthProblem[],
    checkedAt: health ? new Date(toEpochMs(health.receivedAt)).toISOString() : null,
    gpu: health?.report.gpu.name ?? null,
    driverLicensed: health?.report.gpu.licensed ?? null,
    display:
      health?.report.display.present && health.report.display.width && health.report.display.height
        ? {
            width: health.report.display.width,
            height: health.report.display.height,
            refreshHz: health.report.display.refreshHz,
          }
        : null,
    streamingDisplay: health?.report.display.virtual ?? null,
    sound: soundOf(health?.report.audio),
    controllers: health?.report.gamepad
      ? health.report.gamepad.busPresent && health.report.gamepad.xinput !== false
      : null,
    streamHostRunning: health?.report.sunshine.running ?? null,
    freeDiskGb: health ? Math.round((health.report.disk.freeBytes / 1024 ** 3) * 10) / 10 : null,
    helpUrl: null,
  };
  if (machine.state === 'provisioning' || machine.state === 'starting' || machine.state === 'requested')
    return {
      ...base,
      status: 'checking',
      headline: HEALTH_MESSAGES.checking,
      advice: HEALTH_MESSAGES.checkingAdvice,
    };
  if (machine.state !== 'running')
    return { ...base, status: 'off', headline: HEALTH_MESSAGES.off, advice: null };

  const since = toEpochMsOrNull(machine.runningSince);
  const received = health ? toEpochMs(health.receivedAt) : null;
  // Its genuine reports are refused for its clock (since it started, and none accepted since):
  // that, not silence or an old report, is what the card says.
  const clockAt = input.clockAhead ? toEpochMs(input.clockAhead.observedAt) : null;
  if (
    input.clockAhead &&
    clockAt !== null &&
    (since === null || clockAt >= since) &&
    (received === null || clockAt > received)
  )
    return {
      ...base,
      status: 'attention',
      headline: CLOCK_MESSAGES.headline(input.clockAhead.seconds),
      advice: CLOCK_MESSAGES.advice,
    };
  // A report from before this start says nothing about the machine as it runs now.
  const current =
    health && received !== null && (since === null || received >= since - 60_000) ? health : null;
  if (
    healthSilent({ state: machine.state, runningSince: since, lastReportAt: current ? received : null, now })
  ) {
    const minutes = Math.floor(
      (toEpochMs(now) - (current && received !== null ? received : (since ?? 0))) / 60_000,
    );
    return {
      ...base,
      status: 'silent',
      headline: HEALTH_MESSAGES.silent(minutes),
      advice: HEALTH_MESSAGES.silentAdvice,
    };
  }
  if (!current)
    return {
      ...base,
      status: 'checking',
      headline: HEALTH_MESSAGES.checking,
      advice: HEALTH_MESSAGES.checkingAdvice,
    };

  // The worker failed to reach Sunshine during this run (it clears the mark when a call succeeds).
  const unreachableAt = toEpochMsOrNull(current.streamHostUnreachableAt);
  const problems = problemsOf(current.report, {
    streamHostUnreachable: unreachableAt !== null && (since === null || unreachableAt >= since),
    instanceType: machine.instanceType ?? null,
  });
  const first = problems[0];
  if (first === undefined) {
    const mode = streamingMode(current.report.display);
    return {
      ...base,
      status: 'ready',
      headline: mode ? HEALTH_MESSAGES.readyAt(mode) : HEALTH_MESSAGES.readyPlain,
      advice: null,
    };
  }
  const words = HEALTH_PROBLEM_WORDS[first];
  return {
    ...base,
    problems,
    status: 'attention',
    headline: words.headline,
    advice: words.advice,
    helpUrl: problemGuideHref(first),
  };
}

function soundOf(audio: MachineHealthReport['audio']): string | false | null {
  if (!audio) return null;
  return audio.serviceRunning && audio.endpoint ? audio.endpoint : false;
}
