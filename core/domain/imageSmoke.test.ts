import { describe, expect, it } from 'vitest';
import { REQUIRED_DISPLAY_MODES } from './imageChecks.ts';
import {
  SMOKE_CHECKS,
  smokeCostNote,
  smokeDecision,
  smokeLine,
  smokeVerdicts,
  startSmokeProgress,
  trackSmoke,
  type PasswordState,
  type SmokeCheck,
} from './imageSmoke.ts';
import type { MachineHealthReport } from './machineHealth.ts';

const GB = 1024 ** 3;
const HEALTHY: MachineHealthReport = {
  instanceId: 'i-0abc',
  gpu: { name: 'NVIDIA T4', driverVersion: '591.59', licensed: true },
  display: {
    present: true,
    width: 2560,
    height: 1440,
    refreshHz: 120,
    virtual: true,
    modes: [...REQUIRED_DISPLAY_MODES, '1024x768@60'],
  },
  sunshine: { running: true, certSha256: 'ab'.repeat(32), apiAnswers: true },
  dcv: { running: true },
  rdp: { listening: true, consoleHandoff: true },
  disk: { freeBytes: 80 * GB, totalBytes: 114.4 * GB, unallocatedBytes: 0 },
  audio: { serviceRunning: true, endpoint: 'Steam Streaming Speakers' },
  gamepad: { busPresent: true, xinput: true },
};

function verdicts(change: (r: MachineHealthReport) => void, password: PasswordState = { state: 'ready' }) {
  const report = structuredClone(HEALTHY);
  change(report);
  return smokeVerdicts({ report, instanceType: 'g4dn.xlarge', volumeGb: 115, password });
}

const failing = (v: ReturnType<typeof verdicts>) => v.filter((x) => !x.ok).map((x) => x.check);

describe('smokeVerdicts', () => {
  it('passes every check on a healthy machine of the plan', () => {
    expect(failing(verdicts(() => {}))).toEqual([]);
  });

  // Each fault the image can have fails its own line and no other.
  it.each<[string, SmokeCheck, (r: MachineHealthReport) => void, RegExp]>([
    ['an unlicensed driver', 'licence', (r) => (r.gpu.licensed = false), /591\.59 reports unlicensed/],
    ['no licence line', 'licence', (r) => (r.gpu.licensed = null), /no licence status/],
    [
      'another GPU',
      'gpu',
      (r) => (r.gpu.name = 'NVIDIA A10G'),
      /A10G, but g4dn\.xlarge carries an NVIDIA T4/,
    ],
    ['the basic adapter active', 'display', (r) => (r.display.virtual = false), /not the virtual display/],
    [
      'missing modes',
      'display',
      (r) => (r.display.modes = REQUIRED_DISPLAY_MODES.filter((m) => !m.endsWith('@144'))),
      /missing 8 of 32 modes: 1280x720@144/,
    ],
    [
      'Windows Audio stopped',
      'audio',
      (r) => (r.audio = { serviceRunning: false, endpoint: 'Steam Streaming Speakers' }),
      /Windows Audio not running/,
    ],
    [
      'no audio endpoint',
      'audio',
      (r) => (r.audio = { serviceRunning: true, endpoint: null }),
      /no audio endpoint/,
    ],
    ['no ViGEmBus', 'gamepad', (r) => (r.gamepad = { busPresent: false, xinput: true }), /ViGEmBus missing/],
    [
      'no XInput driver',
      'gamepad',
      (r) => (r.gamepad = { busPresent: true, xinput: false }),
      /XInput driver missing/,
    ],
    [
      'Sunshine refusing its credentials',
      'sunshine-api',
      (r) => (r.sunshine.apiAnswers = false),
      /refused the machine’s own credentials/,
    ],
    ['Sunshine stopped', 'sunshine-api', (r) => (r.sunshine.running = false), /not running/],
    ['DCV stopped', 'dcv', (r) => (r.dcv.running = false), /dcvserver not running/],
    [
      'no console hand-back',
      'remote-desktop',
      (r) => (r.rdp.consoleHandoff = false),
      /hand-back task is missing/,
    ],
    ['Remote Desktop closed', 'remote-desktop', (r) => (r.rdp.listening = false), /3389/],
    [
      'a partition left at the image size',
      'disk',
      (r) => (r.disk = { freeBytes: 20 * GB, totalBytes: 59.4 * GB, unallocatedBytes: 55.6 * GB }),
      /partition not extended: C: 59\.4 GB of a 115 GB volume, 55\.6 GB unallocated/,
    ],
  ])('%s fails the %s line', (_name, check, change, seen) => {
    const v = verdicts(change);
    expect(failing(v)).toEqual([check]);
    expect(v.find((x) => x.check === check)?.seen).toMatch(seen);
  });

  it('fails the password line until GetPasswordData answers, and says why it failed', () => {
    expect(failing(verdicts(() => {}, { state: 'pending' }))).toEqual(['password']);
    const v = verdicts(() => {}, {
      state: 'failed',
      error: 'the password does not decrypt with EC2_PRIVATE_KEY_PEM',
    });
    expect(v[0]).toEqual({
      check: 'password',
      ok: false,
      seen: 'the password does not decrypt with EC2_PRIVATE_KEY_PEM',
    });
  });

  it('counts what an older image does not report as a failure, saying so', () => {
    const older = verdicts((r) => {
      delete r.audio;
      delete r.gamepad;
      delete r.display.virtual;
      delete r.sunshine.apiAnswers;
      delete r.rdp.consoleHandoff;
      delete r.disk.unallocatedBytes;
    });
    expect(failing(older)).toEqual(['display', 'audio', 'gamepad', 'sunshine-api', 'remote-desktop', 'disk']);
    for (const v of older.filter((x) => !x.ok)) expect(v.seen).toMatch(/not in the report/);
  });

  it('fails every report line before the first report', () => {
    const v = smokeVerdicts({
      report: null,
      instanceType: 'g4dn.xlarge',
      volumeGb: 115,
      password: { state: 'ready' },
    });
    expect(failing(v)).toEqual(SMOKE_CHECKS.filter((c) => c !== 'password'));
  });
});

describe('a run over time', () => {
  const healthy = verdicts(() => {});
  const unlicensed = verdicts((r) => (r.gpu.licensed = false));

  it('records when each check first passed, and keeps it', () => {
    let progress = trackSmoke(startSmokeProgress(), unlicensed, 4.2);
    progress = trackSmoke(progress, healthy, 6.5);
    progress = trackSmoke(progress, healthy, 7);
    expect(progress.dcv.firstOkMinutes).toBe(4.2);
    expect(progress.licence.firstOkMinutes).toBe(6.5);
    expect(smokeLine('licence', progress.licence)).toBe(
      'OK   gaming driver licence (6.5 min): Licensed (driver 591.59)',
    );
  });

  it('passes when every check passes in the latest report', () => {
    const progress = trackSmoke(startSmokeProgress(), healthy, 5);
    expect(
      smokeDecision({
        progress,
        minutesSinceLaunch: 5,
        minutesSinceFirstReport: 0,
        deadlineMinutes: 40,
        settleMinutes: 10,
      }),
    ).toEqual({ kind: 'pass' });
  });

  it('waits for a failing check to settle, then fails naming it', () => {
    const progress = trackSmoke(startSmokeProgress(), unlicensed, 5);
    const at = (sinceReport: number) =>
      smokeDecision({
        progress,
        minutesSinceLaunch: 5 + sinceReport,
        minutesSinceFirstReport: sinceReport,
        deadlineMinutes: 40,
        settleMinutes: 10,
      });
    expect(at(9.9)).toEqual({ kind: 'wait' });
    expect(at(10)).toEqual({
      kind: 'fail',
      outcome: 'failed',
      reason: 'gaming driver licence still failing 10 minutes after the first report',
    });
    expect(smokeLine('licence', progress.licence)).toBe(
      'FAIL gaming driver licence: driver 591.59 reports unlicensed',
    );
  });

  it('gives up at the deadline when no report came', () => {
    const progress = startSmokeProgress();
    const decide = (minutes: number) =>
      smokeDecision({
        progress,
        minutesSinceLaunch: minutes,
        minutesSinceFirstReport: null,
        deadlineMinutes: 40,
        settleMinutes: 10,
      });
    expect(decide(39)).toEqual({ kind: 'wait' });
    expect(decide(40)).toEqual({
      kind: 'fail',
      outcome: 'no-report',
      reason: 'no health report within 40 minutes',
    });
  });
});

describe('smokeCostNote', () => {
  it('says what is launched, what it costs and that it is terminated', () => {
    const note = smokeCostNote({
      instanceType: 'g4dn.xlarge',
      planName: 'LEGEND',
      imageId: 'ami-0123456789abcdef0',
      region: 'ap-south-1',
      volumeGb: 115,
      deadlineMinutes: 40,
    });
    expect(note).toContain(
      'one g4dn.xlarge (LEGEND) from ami-0123456789abcdef0 in ap-south-1 with a 115 GB disk',
    );
    expect(note).toContain('about US$0.76 an hour');
    expect(note).toContain('at most US$0.51 if it runs to its 40-minute deadline');
    expect(note).toContain('terminated when the run ends, on Ctrl-C and on any failure');
  });

  it('sends the operator to AWS’s price list for a type it does not know', () => {
    const note = smokeCostNote({
      instanceType: 'g5.4xlarge',
      planName: 'EDITOR HIGH',
      imageId: 'ami-0123456789abcdef0',
      region: 'ap-south-1',
      volumeGb: 450,
      deadlineMinutes: 40,
    });
    expect(note).toContain('https://aws.amazon.com/ec2/pricing/on-demand/');
  });
});
