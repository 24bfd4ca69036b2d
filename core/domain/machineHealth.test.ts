import { describe, expect, it } from 'vitest';
import {
  alertingProblems,
  assessHealth,
  FORGERY_OUTCOMES,
  HEALTH_OUTCOMES,
  HEALTH_PROBLEM_WORDS,
  HEALTH_PROBLEMS,
  healthSilent,
  normaliseFingerprint,
  problemsOf,
  refusalStatus,
  operatorProblemMessage,
  signedHealthPayload,
  streamingMode,
  problemGuideHref,
  type MachineHealthReport,
} from './machineHealth.ts';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const minutes = (n: number) => NOW - n * 60_000;

const HEALTHY: MachineHealthReport = {
  instanceId: 'i-0abc',
  gpu: { name: 'NVIDIA T4', driverVersion: '553.24', licensed: true },
  display: { present: true, width: 2560, height: 1440, refreshHz: 120, virtual: true, modes: [] },
  sunshine: { running: true, certSha256: 'ab'.repeat(32), apiAnswers: true },
  dcv: { running: true },
  rdp: { listening: true, consoleHandoff: true },
  disk: { freeBytes: 80 * 1024 ** 3, totalBytes: 115 * 1024 ** 3, unallocatedBytes: 0 },
  audio: { serviceRunning: true, endpoint: 'Steam Streaming Speakers' },
  gamepad: { busPresent: true, xinput: true },
};

/** A report as an image from before sound, gamepads and the virtual display's checks sends it. */
const OLDER_IMAGE: MachineHealthReport = {
  instanceId: 'i-0abc',
  gpu: { name: 'NVIDIA T4', driverVersion: '553.24', licensed: true },
  display: { present: true, width: 2560, height: 1440, refreshHz: 120 },
  sunshine: { running: true, certSha256: 'ab'.repeat(32) },
  dcv: { running: true },
  rdp: { listening: true },
  disk: { freeBytes: 80 * 1024 ** 3, totalBytes: 115 * 1024 ** 3 },
};

const LEGEND = { streamHostUnreachable: false, instanceType: 'g4dn.xlarge' };

function report(change: (r: MachineHealthReport) => void): MachineHealthReport {
  const copy = structuredClone(HEALTHY);
  change(copy);
  return copy;
}

describe('streamingMode', () => {
  it.each([
    [{ present: true, width: 1920, height: 1080, refreshHz: 60 }, '1080p 60 fps'],
    [{ present: true, width: 2560, height: 1440, refreshHz: 120 }, '1440p 120 fps'],
    [{ present: true, width: 3840, height: 2160, refreshHz: 60 }, '4K 60 fps'],
    [{ present: true, width: 1920, height: 1080, refreshHz: 143.9 }, '1080p 144 fps'],
    [{ present: true, width: 1366, height: 768, refreshHz: null }, '768p'],
    [{ present: false, width: null, height: null, refreshHz: null }, null],
  ])('%o reads %s', (display, expected) => {
    expect(streamingMode(display)).toBe(expected);
  });
});

describe('problemsOf', () => {
  it.each<[string, (r: MachineHealthReport) => void, boolean, string[]]>([
    ['a healthy machine', () => {}, false, []],
    ['no GPU', (r) => (r.gpu.name = null), false, ['no-gpu']],
    ['an unlicensed driver', (r) => (r.gpu.licensed = false), false, ['driver-unlicensed']],
    ['a licence nobody checked', (r) => (r.gpu.licensed = null), false, []],
    [
      'no display',
      (r) => (r.display = { present: false, width: null, height: null, refreshHz: null }),
      false,
      ['no-display'],
    ],
    [
      'a display that is not the virtual one',
      (r) => (r.display.virtual = false),
      false,
      ['display-not-capturable'],
    ],
    ['Sunshine down', (r) => (r.sunshine.running = false), false, ['stream-host-down']],
    [
      'Sunshine refusing its own credentials',
      (r) => (r.sunshine.apiAnswers = false),
      false,
      ['stream-host-down'],
    ],
    ['Sunshine unreachable from the worker', () => {}, true, ['stream-host-unreachable']],
    ['down wins over unreachable', (r) => (r.sunshine.running = false), true, ['stream-host-down']],
    [
      'Windows Audio stopped',
      (r) => (r.audio = { serviceRunning: false, endpoint: 'Steam Streaming Speakers' }),
      false,
      ['no-audio'],
    ],
    ['no audio endpoint', (r) => (r.audio = { serviceRunning: true, endpoint: null }), false, ['no-audio']],
    ['no gamepad bus', (r) => (r.gamepad = { busPresent: false, xinput: true }), false, ['no-gamepad']],
    ['no XInput driver', (r) => (r.gamepad = { busPresent: true, xinput: false }), false, ['no-gamepad']],
    ['an A10G on a g4dn', (r) => (r.gpu.name = 'NVIDIA A10G'), false, ['gpu-mismatch']],
    ['DCV down', (r) => (r.dcv.running = false), false, ['dcv-down']],
    ['Remote Desktop down', (r) => (r.rdp.listening = false), false, ['rdp-down']],
    [
      'a low resolution',
      (r) => (r.display = { present: true, width: 1366, height: 768, refreshHz: 60, virtual: true }),
      false,
      ['low-resolution'],
    ],
    ['a full disk', (r) => (r.disk.freeBytes = 2 * 1024 ** 3), false, ['disk-low']],
    [
      'several, most serious first',
      (r) => {
        r.disk.freeBytes = 0;
        r.sunshine.running = false;
        r.gpu.licensed = false;
        r.audio = null;
        r.gamepad = { busPresent: false, xinput: null };
      },
      false,
      ['driver-unlicensed', 'stream-host-down', 'no-gamepad', 'disk-low'],
    ],
  ])('%s', (_name, change, unreachable, expected) => {
    expect(problemsOf(report(change), { ...LEGEND, streamHostUnreachable: unreachable })).toEqual(expected);
  });

  it('finds nothing wrong in what an older image does not report', () => {
    expect(problemsOf(OLDER_IMAGE, LEGEND)).toEqual([]);
  });

  it('compares the GPU only when the instance type is known', () => {
    const a10g = report((r) => (r.gpu.name = 'NVIDIA A10G'));
    expect(problemsOf(a10g, { ...LEGEND, instanceType: 'g5.xlarge' })).toEqual([]);
    expect(problemsOf(a10g, { ...LEGEND, instanceType: null })).toEqual([]);
    expect(problemsOf(a10g, { ...LEGEND, instanceType: 'x9.unknown' })).toEqual([]);
  });

  it('alerts an operator for machine faults, not for what the customer controls', () => {
    expect(HEALTH_PROBLEMS.filter((p) => HEALTH_PROBLEM_WORDS[p].alert)).toEqual([
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
    ]);
    const bad = report((r) => {
      r.gpu.licensed = false;
      r.disk.freeBytes = 0;
      r.display = { present: false, width: null, height: null, refreshHz: null };
    });
    expect(alertingProblems(bad, 'g4dn.xlarge')).toEqual(['driver-unlicensed', 'no-display']);
  });

  it('tells the operator what was seen', () => {
    const a10g = report((r) => (r.gpu.name = 'NVIDIA A10G'));
    expect(operatorProblemMessage('gpu-mismatch', a10g, 'g4dn.xlarge')).toMatch(
      /reports “NVIDIA A10G”; g4dn\.xlarge carries an NVIDIA T4\.$/,
    );
    const silent = report((r) => (r.audio = { serviceRunning: false, endpoint: null }));
    expect(operatorProblemMessage('no-audio', silent, null)).toMatch(
      /Windows Audio not running, endpoint none\.$/,
    );
  });
});

describe('troubleshooting links', () => {
  it('send each problem a gamer can act on to its case on the guides page, and nothing else', () => {
    expect(problemGuideHref('no-audio')).toBe('/guides#no-sound');
    expect(problemGuideHref('no-gamepad')).toBe('/guides#controller-not-detected');
    expect(problemGuideHref('display-not-capturable')).toBe('/guides#black-screen');
    expect(problemGuideHref('no-display')).toBe('/guides#black-screen');
    expect(problemGuideHref('stream-host-unreachable')).toBe('/guides#pairing-refused');
    expect(problemGuideHref('gpu-mismatch')).toBeNull();
    expect(problemGuideHref('disk-low')).toBeNull();
  });
});

describe('healthSilent', () => {
  it.each<[string, { state: string; runningSince: number | null; lastReportAt: number | null }, boolean]>([
    [
      'running 20 min, reported 3 min ago',
      { state: 'running', runningSince: minutes(20), lastReportAt: minutes(3) },
      false,
    ],
    [
      'running 20 min, last report 16 min ago',
      { state: 'running', runningSince: minutes(20), lastReportAt: minutes(16) },
      true,
    ],
    [
      'running 20 min, never reported',
      { state: 'running', runningSince: minutes(20), lastReportAt: null },
      true,
    ],
    [
      'running 14 min, never reported',
      { state: 'running', runningSince: minutes(14), lastReportAt: null },
      false,
    ],
    [
      'running 15 min exactly, never reported',
      { state: 'running', runningSince: minutes(15), lastReportAt: null },
      true,
    ],
    [
      'a report from before this start does not count',
      { state: 'running', runningSince: minutes(10), lastReportAt: minutes(60) },
      false,
    ],
    [
      'stopped machines are not silent',
      { state: 'stopped', runningSince: minutes(60), lastReportAt: null },
      false,
    ],
    [
      'starting machines are not silent',
      { state: 'starting', runningSince: null, lastReportAt: null },
      false,
    ],
  ])('%s', (_name, input, expected) => {
    expect(healthSilent({ ...input, now: NOW })).toBe(expected);
  });
});

describe('assessHealth', () => {
  const running = { state: 'running', runningSince: minutes(30) };
  const fresh = (r: MachineHealthReport, unreachableAt: number | null = null) => ({
    receivedAt: minutes(2),
    report: r,
    streamHostUnreachableAt: unreachableAt,
  });

  it('says what a healthy machine is ready for', () => {
    const view = assessHealth({ machine: running, health: fresh(HEALTHY), now: NOW });
    expect(view).toMatchObject({
      status: 'ready',
      headline: 'Ready for 1440p 120 fps streaming',
      advice: null,
      helpUrl: null,
      problems: [],
      gpu: 'NVIDIA T4',
      driverLicensed: true,
      display: { width: 2560, height: 1440, refreshHz: 120 },
      streamingDisplay: true,
      sound: 'Steam Streaming Speakers',
      controllers: true,
      freeDiskGb: 80,
    });
    expect(view.checkedAt).toBe(new Date(minutes(2)).toISOString());
  });

  it('leads with the most serious problem and what to do', () => {
    const view = assessHealth({
      machine: running,
      health: fresh(report((r) => ((r.gpu.licensed = false), (r.disk.freeBytes = 0)))),
      now: NOW,
    });
    expect(view.status).toBe('attention');
    expect(view.headline).toBe(HEALTH_PROBLEM_WORDS['driver-unlicensed'].headline);
    expect(view.advice).toContain('STOP and START');
    expect(view.problems).toEqual(['driver-unlicensed', 'disk-low']);
  });

  it('names what an older image does not report as unknown', () => {
    const view = assessHealth({ machine: running, health: fresh(OLDER_IMAGE), now: NOW });
    expect(view).toMatchObject({ status: 'ready', streamingDisplay: null, sound: null, controllers: null });
  });

  it('says there is no sound, with the way to the guide, and that the GPU is not the plan’s', () => {
    const silent = assessHealth({
      machine: { ...running, instanceType: 'g4dn.xlarge' },
      health: fresh(report((r) => (r.audio = { serviceRunning: true, endpoint: null }))),
      now: NOW,
    });
    expect(silent).toMatchObject({ status: 'attention', problems: ['no-audio'], sound: false });
    expect(silent.headline).toBe(HEALTH_PROBLEM_WORDS['no-audio'].headline);
    expect(silent.helpUrl).toBe(problemGuideHref('no-audio'));
    const wrongGpu = assessHealth({
      machine: { ...running, instanceType: 'g5.xlarge' },
      health: fresh(HEALTHY),
      now: NOW,
    });
    expect(wrongGpu).toMatchObject({ status: 'attention', problems: ['gpu-mismatch'], helpUrl: null });
  });

  it('is checking while a machine starts or has not reported since it started', () => {
    expect(
      assessHealth({ machine: { state: 'starting', runningSince: null }, health: null, now: NOW }).status,
    ).toBe('checking');
    expect(
      assessHealth({ machine: { state: 'running', runningSince: minutes(3) }, health: null, now: NOW })
        .status,
    ).toBe('checking');
    // Last run's report says nothing about this run.
    const old = { receivedAt: minutes(120), report: HEALTHY, streamHostUnreachableAt: null };
    expect(
      assessHealth({ machine: { state: 'running', runningSince: minutes(3) }, health: old, now: NOW }).status,
    ).toBe('checking');
  });

  it('says a running machine has gone silent after 15 minutes', () => {
    const view = assessHealth({
      machine: running,
      health: { receivedAt: minutes(22), report: HEALTHY, streamHostUnreachableAt: null },
      now: NOW,
    });
    expect(view).toMatchObject({
      status: 'silent',
      headline: 'Your PC has not reported its health for 22 minutes.',
    });
  });

  it('shows a failure to reach Sunshine during this run, not an older one', () => {
    expect(assessHealth({ machine: running, health: fresh(HEALTHY, minutes(1)), now: NOW }).problems).toEqual(
      ['stream-host-unreachable'],
    );
    expect(assessHealth({ machine: running, health: fresh(HEALTHY, minutes(45)), now: NOW }).status).toBe(
      'ready',
    );
  });

  it('says the clock runs fast while proven reports are refused for it, until one is accepted again', () => {
    const refused = { seconds: 280, observedAt: minutes(1) };
    const view = assessHealth({ machine: running, health: fresh(HEALTHY), clockAhead: refused, now: NOW });
    expect(view).toMatchObject({
      status: 'attention',
      headline: 'Your PC’s clock is 5 minutes fast, so it cannot report its health.',
    });
    expect(view.advice).toContain('Sync now');
    // Rather than "silent" or "checking": the clock is why nothing arrives.
    expect(assessHealth({ machine: running, health: null, clockAhead: refused, now: NOW }).status).toBe(
      'attention',
    );
    // A report accepted after it, or a refusal from before this start, says nothing now.
    const earlier = { seconds: 280, observedAt: minutes(3) };
    expect(
      assessHealth({ machine: running, health: fresh(HEALTHY), clockAhead: earlier, now: NOW }).status,
    ).toBe('ready');
    const lastRun = { seconds: 280, observedAt: minutes(45) };
    expect(assessHealth({ machine: running, health: null, clockAhead: lastRun, now: NOW }).status).toBe(
      'silent',
    );
  });

  it('is off while the machine is stopped', () => {
    expect(
      assessHealth({ machine: { state: 'stopped', runningSince: null }, health: fresh(HEALTHY), now: NOW })
        .status,
    ).toBe('off');
  });
});

describe('report refusals', () => {
  it('answer 401 when the sender is not proven, 403 for the wrong address', () => {
    const statuses = Object.fromEntries(
      HEALTH_OUTCOMES.filter((o) => o !== 'accepted').map((o) => [o, refusalStatus(o)]),
    );
    expect(statuses).toEqual({
      malformed: 400,
      unsigned: 401,
      stale: 401,
      'clock-ahead': 401,
      'unknown-machine': 401,
      'bad-signature': 401,
      'not-in-service': 409,
      'wrong-address': 403,
      replayed: 401,
    });
    expect(FORGERY_OUTCOMES).not.toContain('not-in-service');
    expect(FORGERY_OUTCOMES).not.toContain('stale');
    expect(FORGERY_OUTCOMES).not.toContain('clock-ahead');
  });

  it('signs the timestamp and the exact body', () => {
    expect(signedHealthPayload(1_700_000_000, '{"a":1}')).toBe('1700000000.{"a":1}');
  });

  it('reads certificate fingerprints however they are written', () => {
    const hex = 'AB'.repeat(32);
    expect(normaliseFingerprint(hex)).toBe('ab'.repeat(32));
    expect(normaliseFingerprint(hex.match(/../g)!.join(':'))).toBe('ab'.repeat(32));
    expect(normaliseFingerprint('abc')).toBeNull();
  });
});
