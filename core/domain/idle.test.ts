import { describe, expect, it } from 'vitest';
import {
  idleDecision,
  idleSavedSeconds,
  projectHourBank,
  withNotice,
  type IdleDecision,
  type IdlePeriod,
  type IdleStopMinutes,
  idleAct,
} from './idle.ts';

const T0 = Date.UTC(2026, 10, 24, 10, 0);
const MIN = 60_000;
const quiet = { cpu: 2, gpu: 1, sessions: 0, networkOutBytes: 60 * 2_000 };

/** Minutes [from, to) of one-minute periods, each with `values`. */
function minutes(from: number, to: number, values: Partial<IdlePeriod> = quiet): IdlePeriod[] {
  const out: IdlePeriod[] = [];
  for (let m = from; m < to; m++) out.push({ at: T0 + m * MIN, ...values });
  return out;
}

function decide(
  periods: IdlePeriod[],
  nowMinute: number,
  options: { minutes?: IdleStopMinutes | null; keptMinute?: number; startMinute?: number } = {},
): IdleDecision {
  return idleDecision({
    minutes: options.minutes === undefined ? 30 : options.minutes,
    periodSeconds: 60,
    periods,
    runningSince: T0 + (options.startMinute ?? -120) * MIN,
    keptAt: options.keptMinute === undefined ? null : T0 + options.keptMinute * MIN,
    now: T0 + nowMinute * MIN,
  });
}

describe('idleDecision', () => {
  const cases: Array<{
    name: string;
    periods: IdlePeriod[];
    now: number;
    options?: Parameters<typeof decide>[2];
    expect: Partial<IdleDecision> & { kind: IdleDecision['kind'] };
  }> = [
    {
      name: 'off never stops',
      periods: minutes(-60, 0),
      now: 0,
      options: { minutes: null },
      expect: { kind: 'keep', reason: 'off' },
    },
    { name: 'quiet for the whole window stops', periods: minutes(-30, 0), now: 0, expect: { kind: 'stop' } },
    {
      name: 'quiet for 20 of 30 minutes warns',
      periods: [...minutes(-40, -20, { ...quiet, cpu: 50 }), ...minutes(-20, 0)],
      now: 0,
      expect: { kind: 'warn' },
    },
    {
      name: 'quiet for 10 of 30 minutes keeps, counting',
      periods: [...minutes(-40, -10, { ...quiet, cpu: 50 }), ...minutes(-10, 0)],
      now: 0,
      expect: { kind: 'keep', reason: 'idle' },
    },
    {
      name: 'a 15-minute window stops after 15',
      periods: minutes(-15, 0),
      now: 0,
      options: { minutes: 15 },
      expect: { kind: 'stop' },
    },
    {
      name: 'a 60-minute window waits',
      periods: minutes(-45, 0),
      now: 0,
      options: { minutes: 60 },
      expect: { kind: 'keep', reason: 'idle' },
    },
    {
      name: 'GPU busy with nobody connected keeps running',
      periods: minutes(-60, 0, { ...quiet, gpu: 95 }),
      now: 0,
      expect: { kind: 'keep', reason: 'busy', busy: ['gpu'] },
    },
    {
      name: 'CPU busy (a CPU render) keeps running',
      periods: minutes(-60, 0, { ...quiet, cpu: 40 }),
      now: 0,
      expect: { kind: 'keep', reason: 'busy', busy: ['cpu'] },
    },
    {
      name: 'connected but idle CPU keeps running',
      periods: minutes(-60, 0, { ...quiet, sessions: 1 }),
      now: 0,
      expect: { kind: 'keep', reason: 'busy', busy: ['session'] },
    },
    {
      name: 'an upload keeps running',
      periods: minutes(-60, 0, { ...quiet, networkOutBytes: 60 * 500_000 }),
      now: 0,
      expect: { kind: 'keep', reason: 'busy', busy: ['network'] },
    },
    {
      name: 'just under every threshold is idle',
      periods: minutes(-30, 0, { cpu: 9.9, gpu: 9.9, sessions: 0, networkOutBytes: 60 * 24_999 }),
      now: 0,
      expect: { kind: 'stop' },
    },
    {
      name: 'no metrics at all keeps running',
      periods: [],
      now: 0,
      expect: { kind: 'keep', reason: 'metrics-missing' },
    },
    {
      name: 'a missing session series keeps running',
      periods: minutes(-60, 0, { ...quiet, sessions: undefined }),
      now: 0,
      expect: { kind: 'keep', reason: 'metrics-missing' },
    },
    {
      name: 'late metrics keep running',
      periods: minutes(-60, -20),
      now: 0,
      expect: { kind: 'keep', reason: 'metrics-late' },
    },
    {
      name: 'a gap inside the window restarts the count',
      periods: [...minutes(-40, -12), ...minutes(-11, 0)],
      now: 0,
      expect: { kind: 'keep', reason: 'idle' },
    },
    {
      name: 'a gap in one series inside the window restarts the count',
      periods: [...minutes(-40, -25), ...minutes(-25, -24, { ...quiet, gpu: undefined }), ...minutes(-24, 0)],
      now: 0,
      expect: { kind: 'warn' },
    },
    {
      name: 'a machine started 20 minutes ago is not stopped',
      periods: minutes(-20, 0),
      now: 0,
      options: { startMinute: -20 },
      expect: { kind: 'warn' },
    },
    {
      name: 'keep it running restarts the window',
      periods: minutes(-60, 0),
      now: 0,
      options: { keptMinute: -5 },
      expect: { kind: 'keep', reason: 'idle' },
    },
    {
      name: 'after keep it running the full window stops again',
      periods: minutes(-60, 0),
      now: 0,
      options: { keptMinute: -30 },
      expect: { kind: 'stop' },
    },
    {
      name: 'the newest period still filling is allowed to be missing',
      periods: minutes(-30, -1),
      now: 0,
      expect: { kind: 'warn' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(decide(c.periods, c.now, c.options)).toMatchObject(c.expect);
    });
  }

  it('warns with the stop time ten minutes ahead at most', () => {
    const decision = decide([...minutes(-40, -20, { ...quiet, cpu: 50 }), ...minutes(-20, 0)], 0);
    expect(decision).toEqual({
      kind: 'warn',
      idleSince: new Date(T0 - 20 * MIN),
      stopAt: new Date(T0 + 10 * MIN),
    });
  });

  it('works with five-minute periods (EC2 basic monitoring)', () => {
    const periods: IdlePeriod[] = [];
    for (let m = -60; m < 0; m += 5)
      periods.push({ at: T0 + m * MIN, ...quiet, networkOutBytes: 300 * 1000 });
    const decision = idleDecision({
      minutes: 30,
      periodSeconds: 300,
      periods,
      runningSince: T0 - 2 * 60 * MIN,
      keptAt: null,
      now: T0 + 2 * MIN,
    });
    expect(decision.kind).toBe('stop');
  });
});

describe('withNotice', () => {
  const stop: IdleDecision = { kind: 'stop', idleSince: new Date(T0 - 40 * MIN) };
  it('a stop without a warning becomes a warning ten minutes ahead', () => {
    expect(withNotice(stop, null, T0)).toEqual({
      kind: 'warn',
      idleSince: stop.idleSince,
      stopAt: new Date(T0 + 10 * MIN),
    });
  });
  it('a stop warned five minutes ago waits for the ten minutes promised', () => {
    expect(withNotice(stop, T0 - 5 * MIN, T0)).toEqual({
      kind: 'warn',
      idleSince: stop.idleSince,
      stopAt: new Date(T0 + 5 * MIN),
    });
  });
  it('a stop warned ten minutes ago stops', () => {
    expect(withNotice(stop, T0 - 10 * MIN, T0)).toBe(stop);
  });
  it('leaves other decisions alone', () => {
    const keep: IdleDecision = { kind: 'keep', reason: 'off' };
    expect(withNotice(keep, null, T0)).toBe(keep);
  });
});

describe('idleSavedSeconds', () => {
  const stop = {
    stoppedAt: T0,
    nextStartAt: null,
    planEndsAt: T0 + 100 * 60 * MIN,
    remainingSeconds: 10 * 3600,
  };
  it.each([
    ['counts until the next start', { nextStartAt: T0 + 90 * MIN }, T0 + 500 * MIN, 90 * 60],
    ['counts until now while still stopped', {}, T0 + 45 * MIN, 45 * 60],
    ['never past the plan end', { remainingSeconds: 1000 * 3600 }, T0 + 200 * 60 * MIN, 100 * 3600],
    ['never more than the hours left', {}, T0 + 50 * 60 * MIN, 10 * 3600],
    ['nothing when nothing was left', { remainingSeconds: 0 }, T0 + 50 * MIN, 0],
  ])('%s', (_name, change, now, expected) => {
    expect(idleSavedSeconds({ ...stop, ...change }, now)).toBe(expected);
  });
});

describe('projectHourBank', () => {
  const day = 24 * 60 * MIN;
  it('projects the day the hours run out at the pace so far', () => {
    const projection = projectHourBank({
      usedSeconds: 10 * 3600,
      remainingSeconds: 20 * 3600,
      purchasedAt: T0 - 5 * day,
      expiresAt: T0 + 25 * day,
      now: T0,
    });
    expect(projection).toEqual({ kind: 'runs-out', at: new Date(T0 + 10 * day), hoursPerDay: 2 });
  });
  it('says the hours last when the plan expires first', () => {
    expect(
      projectHourBank({
        usedSeconds: 3600,
        remainingSeconds: 29 * 3600,
        purchasedAt: T0 - 5 * day,
        expiresAt: T0 + 25 * day,
        now: T0,
      }).kind,
    ).toBe('lasts');
  });
  it('counts at least a day so a first hour does not project round-the-clock use', () => {
    const projection = projectHourBank({
      usedSeconds: 3600,
      remainingSeconds: 29 * 3600,
      purchasedAt: T0 - 60 * MIN,
      expiresAt: null,
      now: T0,
    });
    expect(projection).toEqual({ kind: 'runs-out', at: new Date(T0 + 29 * day), hoursPerDay: 1 });
  });
  it('without use there is nothing to project', () => {
    expect(
      projectHourBank({
        usedSeconds: 0,
        remainingSeconds: 30 * 3600,
        purchasedAt: T0 - day,
        expiresAt: null,
        now: T0,
      }),
    ).toEqual({ kind: 'no-use' });
  });
});

describe('idleAct: what the sweep carries out', () => {
  const at = new Date('2026-06-10T12:00:00Z');
  it('warns, stops, withdraws a pending warning once the machine is in use, and leaves it without evidence', () => {
    expect(idleAct({ kind: 'warn', idleSince: at, stopAt: at }, null)).toEqual({ kind: 'warn', stopAt: at });
    expect(idleAct({ kind: 'stop', idleSince: at }, at)).toEqual({ kind: 'stop', idleSince: at });
    expect(idleAct({ kind: 'keep', reason: 'busy', busy: ['cpu'] }, at)).toEqual({ kind: 'withdraw' });
    expect(idleAct({ kind: 'keep', reason: 'off' }, at)).toEqual({ kind: 'withdraw' });
    expect(idleAct({ kind: 'keep', reason: 'busy', busy: ['cpu'] }, null)).toEqual({ kind: 'nothing' });
    expect(idleAct({ kind: 'keep', reason: 'metrics-late' }, at)).toEqual({ kind: 'nothing' });
    expect(idleAct({ kind: 'keep', reason: 'metrics-missing' }, at)).toEqual({ kind: 'nothing' });
  });
});
