import { describe, expect, it } from 'vitest';
import { connectedNow, eventAction, eventNotice, replacementFor } from './machineEvents.ts';

const MINUTE = 60_000;
const NOW = Date.parse('2026-05-01T10:00:00Z');
const retirement = { code: 'instance-retirement', notBefore: NOW + 3 * 86_400_000 };

describe('eventAction', () => {
  it.each([
    ['a stopped machine: its next START runs elsewhere', 'stopped', retirement, 'no', NOW, 'nothing'],
    ['running, someone connected: warn and wait', 'running', retirement, 'yes', NOW, 'warn'],
    ['running, not knowing who is connected: warn and wait', 'running', retirement, 'unknown', NOW, 'warn'],
    ['running, nobody connected: move now', 'running', retirement, 'no', NOW, 'move'],
    [
      'running, connected, the deadline near: move',
      'running',
      retirement,
      'yes',
      retirement.notBefore - 30 * MINUTE,
      'move',
    ],
    [
      'a reboot a move does not avoid: warn',
      'running',
      { code: 'instance-reboot', notBefore: NOW + 86_400_000 },
      'no',
      NOW,
      'warn',
    ],
    ['a machine being made: not ours to move', 'provisioning', retirement, 'no', NOW, 'nothing'],
  ] as const)('%s', (_name, machineState, event, connected, now, kind) => {
    expect(eventAction({ machineState, event, connected, now }).kind).toBe(kind);
  });
});

describe('eventNotice', () => {
  it('gives the date, and says it restarts while nobody is connected or at the latest', () => {
    const notice = eventNotice({
      code: 'instance-retirement',
      notBefore: Date.parse('2026-05-04T10:00:00Z'),
    });
    expect(notice).toMatch(/4 May 2026/);
    expect(notice).toMatch(/the next time you are not connected/);
    expect(notice).toMatch(/save your work/);
  });
});

describe('connectedNow', () => {
  const period = (minutesAgo: number, sessions?: number) => ({ at: NOW - minutesAgo * MINUTE, sessions });
  it.each([
    ['nobody in two periods', [period(6, 0), period(11, 0)], 'no'],
    ['someone in one', [period(6, 0), period(11, 1)], 'yes'],
    ['one answer only', [period(6, 0)], 'unknown'],
    ['no answers', [period(6), period(11)], 'unknown'],
    ['older than the window', [period(30, 0), period(40, 0)], 'unknown'],
  ] as const)('%s → %s', (_name, periods, connected) => {
    expect(connectedNow(periods, NOW)).toBe(connected);
  });
});

describe('replacementFor', () => {
  it.each([
    ['a paid plan in force', { inForce: true, isTrial: false }, 0, 'replace'],
    ['a plan no longer in force', { inForce: false, isTrial: false }, 0, 'leave'],
    ['a trial', { inForce: true, isTrial: true }, 0, 'leave'],
    ['a plan that lost three machines already', { inForce: true, isTrial: false }, 3, 'leave'],
    ['no plan', null, 0, 'leave'],
  ] as const)('%s → %s', (_name, plan, replacedSoFar, kind) => {
    expect(replacementFor({ plan, replacedSoFar }).kind).toBe(kind);
  });
});
