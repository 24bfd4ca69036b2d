import { describe, expect, it } from 'vitest';
import {
  healthHoldCause,
  LAUNCH_BUDGET_WINDOW_MS,
  LAUNCH_LEDGER_RETENTION_MS,
  launchBudgetLeft,
  launchLedgerPrunableBefore,
  launchErrorHoldCause,
  machineLaunchAllowed,
  nextPoolHold,
  poolHoldAlertMessage,
  poolHoldDurationMs,
  poolHoldStatus,
  poolLaunchAllowance,
  type PoolHoldFacts,
} from './launchBudget.ts';

const MINUTE = 60_000;
const T0 = Date.parse('2026-05-01T10:00:00Z');
const at = (minutes: number) => T0 + minutes * MINUTE;

function hold(overrides: Partial<PoolHoldFacts> = {}): PoolHoldFacts {
  return {
    cause: 'password-undecryptable',
    begunAt: at(0),
    until: at(15),
    level: 0,
    acknowledgedAt: null,
    ...overrides,
  };
}

describe('how long a pool hold lasts', () => {
  it.each([
    [0, 15],
    [1, 30],
    [2, 60],
    [3, 120],
    [4, 240],
    [5, 240],
    [40, 240],
  ])('level %i: %i minutes', (level, minutes) => {
    expect(poolHoldDurationMs(level)).toBe(minutes * MINUTE);
  });
});

describe('poolHoldStatus', () => {
  const cases: Array<[string, PoolHoldFacts | null, boolean, number, string]> = [
    ['never held', null, false, at(0), 'open'],
    ['within its backoff', hold(), false, at(14), 'held'],
    ['its backoff over, nothing fixed', hold(), false, at(15), 'probation'],
    ['a spare became ready since', hold(), true, at(5), 'open'],
    ['acknowledged by an operator', hold({ acknowledgedAt: at(3) }), false, at(5), 'open'],
    ['acknowledged before it began (an older hold)', hold({ acknowledgedAt: at(-1) }), false, at(5), 'held'],
  ];
  it.each(cases)('%s', (_name, latest, readySince, now, kind) => {
    expect(poolHoldStatus(latest, readySince, now).kind).toBe(kind);
  });
});

describe('nextPoolHold', () => {
  it('doubles while holds follow each other without a fix, from 15 minutes to 4 hours', () => {
    let latest: PoolHoldFacts | null = null;
    const minutes: number[] = [];
    let now = at(0);
    for (let i = 0; i < 7; i += 1) {
      const next = nextPoolHold(latest, false, 'password-undecryptable', now);
      minutes.push((next.until - now) / MINUTE);
      latest = hold({ begunAt: now, until: next.until, level: next.level });
      now = next.until + 5 * MINUTE;
    }
    expect(minutes).toEqual([15, 30, 60, 120, 240, 240, 240]);
  });

  it('starts again at 15 minutes after a spare got ready or an operator acknowledged', () => {
    const previous = hold({ level: 3, until: at(120) });
    expect(nextPoolHold(previous, true, 'image-fault', at(200)).level).toBe(0);
    expect(nextPoolHold({ ...previous, acknowledgedAt: at(10) }, false, 'image-fault', at(200)).level).toBe(
      0,
    );
    expect(nextPoolHold(previous, false, 'image-fault', at(200))).toEqual({
      cause: 'image-fault',
      level: 4,
      until: at(200) + 240 * MINUTE,
    });
  });
});

describe('launchBudgetLeft', () => {
  it('counts the launches of the last hour only, and says when the next one frees', () => {
    expect(launchBudgetLeft(4, [at(-70), at(-30), at(-10)], at(0))).toEqual({ left: 2, freesAt: null });
    expect(launchBudgetLeft(2, [at(-50), at(-30), at(-10)], at(0))).toEqual({ left: 0, freesAt: at(30) });
    expect(launchBudgetLeft(3, [at(-50), at(-30), at(-10)], at(0))).toEqual({ left: 0, freesAt: at(10) });
    expect(launchBudgetLeft(0, [], at(0))).toEqual({ left: 0, freesAt: null });
  });
});

describe('launchLedgerPrunableBefore', () => {
  it('keeps the ledger well past the budget window', () => {
    expect(LAUNCH_LEDGER_RETENTION_MS).toBeGreaterThan(24 * LAUNCH_BUDGET_WINDOW_MS);
    expect(launchLedgerPrunableBefore(at(0))).toBe(at(0) - LAUNCH_LEDGER_RETENTION_MS);
  });

  it('prunes nothing a budget reads, then or later: the budget is the same without the old rows', () => {
    const cutoff = launchLedgerPrunableBefore(at(0));
    const ledger = [cutoff - 1, cutoff, at(-61), at(-59), at(-30), at(-1)];
    const pruned = ledger.filter((launchedAt) => launchedAt >= cutoff);
    for (const now of [at(0), at(1), at(45)])
      for (const budget of [0, 1, 2, 4])
        expect(launchBudgetLeft(budget, pruned, now)).toEqual(launchBudgetLeft(budget, ledger, now));
  });
});

describe('poolLaunchAllowance', () => {
  const open = { kind: 'open', reason: 'never held' } as const;
  const plenty = { left: 4, freesAt: null };
  it.each([
    ['nothing wanted', 0, open, plenty, 0, 0, null],
    ['open: what is wanted', 3, open, plenty, 0, 3, null],
    ['open: no more than the budget', 3, open, { left: 1, freesAt: at(20) }, 0, 1, 'budget'],
    [
      'held: nothing',
      2,
      { kind: 'held', cause: 'image-fault', until: at(15), reason: 'on hold' },
      plenty,
      0,
      0,
      'hold',
    ],
    [
      'probation: one at a time',
      2,
      { kind: 'probation', cause: 'image-fault', reason: 'r' },
      plenty,
      0,
      1,
      null,
    ],
    [
      'probation with one in flight: none',
      2,
      { kind: 'probation', cause: 'image-fault', reason: 'r' },
      plenty,
      1,
      0,
      null,
    ],
  ] as const)('%s', (_name, wanted, status, budget, inFlight, allowed, refused) => {
    const answer = poolLaunchAllowance({ wanted, status, budget, inFlight });
    expect(answer.allowed).toBe(allowed);
    expect(answer.refused).toBe(refused);
  });
});

describe('machineLaunchAllowed', () => {
  it('lets a launch go while the plan has budget, else waits until it frees', () => {
    expect(machineLaunchAllowed({ left: 1, freesAt: null })).toEqual({ kind: 'launch' });
    expect(machineLaunchAllowed({ left: 0, freesAt: at(12) })).toMatchObject({ kind: 'wait', until: at(12) });
  });
});

describe('launchErrorHoldCause', () => {
  it.each([
    ['UnauthorizedOperation', '', 'permission-denied'],
    [
      'InvalidParameterValue',
      'Value (x) for parameter iamInstanceProfile.name is invalid',
      'permission-denied',
    ],
    ['InvalidAMIID.NotFound', '', 'image-fault'],
    ['InvalidAMIID.Unavailable', '', 'image-fault'],
    ['InsufficientInstanceCapacity', '', null],
    ['RequestLimitExceeded', '', null],
    ['InvalidParameterValue', 'VolumeSize', null],
  ])('%s %s → %s', (code, message, cause) => {
    expect(launchErrorHoldCause(code, message)).toBe(cause);
  });
});

describe('the hold alert', () => {
  it('names the cause, until when, the fix and how to release it', () => {
    const message = poolHoldAlertMessage({
      planName: 'LEGEND',
      cause: 'password-undecryptable',
      detail: 'GetPasswordData i-1: the padding does not check out.',
      until: at(30),
      level: 1,
      keyName: 'legend-prod',
      planEnv: 'EC2_AMI_LEGEND',
    });
    expect(message).toContain('LEGEND on hold for 30 minutes');
    expect(message).toContain('EC2_PRIVATE_KEY_PEM to the private key of key pair legend-prod');
    expect(message).toContain('npm run alerts -- ack');
  });
});

describe('healthHoldCause: a fault of the image on a machine fresh from it', () => {
  const ready = { readyAt: at(0) };
  it.each([
    ['an unlicensed driver within the hour', ['driver-unlicensed'], ready, at(20), 'unhealthy'],
    ['no display within the hour', ['no-display', 'disk-low'], ready, at(59), 'unhealthy'],
    ['a host fault (no GPU): a stop and start cures it', ['no-gpu'], ready, at(20), null],
    ['an image fault on a machine ready for hours', ['driver-unlicensed'], ready, at(120), null],
    ['not ready yet', ['driver-unlicensed'], { readyAt: null }, at(5), null],
  ] as const)('%s', (_name, problems, machine, now, cause) => {
    expect(healthHoldCause(problems, machine, now)).toBe(cause);
  });
});
