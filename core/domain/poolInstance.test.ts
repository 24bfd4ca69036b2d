import { describe, expect, it } from 'vitest';
import type { CloudView } from './machineDecision.ts';
import { nextPoolStep, POOL_FIRST_BOOT_DEADLINE_MS, poolFollowUp, type PoolInput } from './poolInstance.ts';

const NOW = new Date('2026-06-10T12:00:00Z');
const MIN = 60_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const limits = { missingGraceMs: 5 * MIN, maxStartAttempts: 6, maxLaunchAttempts: 8 };

const CLOUD: Record<string, CloudView | undefined> = {
  unseen: undefined,
  missing: null,
  pending: { state: 'pending', publicIp: null, vmTag: 'vm-1' },
  running: { state: 'running', publicIp: '203.0.113.10', vmTag: 'vm-1' },
  stopping: { state: 'stopping', publicIp: null, vmTag: 'vm-1' },
  stopped: { state: 'stopped', publicIp: null, vmTag: 'vm-1' },
  shuttingDown: { state: 'shutting-down', publicIp: null, vmTag: 'vm-1' },
  terminated: { state: 'terminated', publicIp: null, vmTag: 'vm-1' },
};

const cloudOf = (state: NonNullable<CloudView>['state'], vmTag: string | null = 'vm-1'): CloudView => ({
  state,
  publicIp: state === 'running' ? '203.0.113.10' : null,
  vmTag,
});

describe('nextPoolStep in a sweep', () => {
  const pool = (
    state: 'launching' | 'stopping' | 'ready' | 'claimed' | 'failed',
    instanceId: string | null = 'i-1',
    launchAttempts = 1,
    hot = false,
  ) => ({
    state,
    hot,
    instanceId,
    launchAttempts,
    launchedAt: at(-10 * MIN),
  });
  it.each([
    ['launching, answer lost', pool('launching', null, 1), 'unseen', 'adopt'],
    ['launching, not sent', pool('launching', null, 0), 'unseen', 'wait'],
    ['launching, pending', pool('launching'), 'pending', 'wait'],
    ['launching, running', pool('launching'), 'running', 'capture-password'],
    ['launching, missing for long', pool('launching'), 'missing', 'fail'],
    ['launching, terminated', pool('launching'), 'terminated', 'fail'],
    [
      'launching, running past the deadline: the password decides',
      { ...pool('launching'), launchedAt: at(-POOL_FIRST_BOOT_DEADLINE_MS - MIN) },
      'running',
      'capture-password',
    ],
    [
      'launching, pending for ever',
      { ...pool('launching'), launchedAt: at(-POOL_FIRST_BOOT_DEADLINE_MS - MIN) },
      'pending',
      'fail',
    ],
    ['stopping, running', pool('stopping'), 'running', 'stop'],
    ['stopping, stopping', pool('stopping'), 'stopping', 'wait'],
    ['stopping, stopped', pool('stopping'), 'stopped', 'mark-ready'],
    ['ready, stopped', pool('ready'), 'stopped', 'nothing'],
    ['ready, started outside', pool('ready'), 'running', 'stop'],
    ['ready, not looked at', pool('ready'), 'unseen', 'observe'],
    ['claimed', pool('claimed'), 'running', 'nothing'],
    ['failed', pool('failed'), 'running', 'nothing'],
    ['hot, launching, running', pool('launching', 'i-1', 1, true), 'running', 'capture-password'],
    ['hot, ready and running', pool('ready', 'i-1', 1, true), 'running', 'nothing'],
    ['hot, ready but stopped outside', pool('ready', 'i-1', 1, true), 'stopped', 'nothing'],
  ] as const)('%s → %s', (_name, facts, cloud, expected) => {
    expect(nextPoolStep({ pool: facts, cloud: CLOUD[cloud], now: NOW, limits }, 'sweep').kind).toBe(expected);
  });
});

describe('nextPoolStep: the first-boot deadline and a bad password', () => {
  const pool = (launchedAt: Date) => ({
    state: 'launching' as const,
    hot: false,
    instanceId: 'i-1',
    launchAttempts: 1,
    launchedAt,
  });
  const base = { cloud: cloudOf('running'), now: NOW, limits };
  it.each<[string, PoolInput, string]>([
    ['not ready, in time', { ...base, pool: pool(at(-10 * MIN)), lastTry: 'password-not-ready' }, 'wait'],
    ['not ready, overdue', { ...base, pool: pool(at(-46 * MIN)), lastTry: 'password-not-ready' }, 'discard'],
    ['undecryptable', { ...base, pool: pool(at(-10 * MIN)), lastTry: 'password-undecryptable' }, 'discard'],
    [
      'nothing to adopt',
      { ...base, pool: { ...pool(at(0)), instanceId: null }, lastTry: 'nothing-adopted' },
      'wait',
    ],
  ])('%s', (_name, facts, expected) => {
    expect(nextPoolStep(facts, 'sweep').kind).toBe(expected);
  });
});

describe('poolFollowUp', () => {
  it.each<[string, number, string]>([
    ['launching', 1, 'check-again'],
    ['stopping', 30, 'check-again'],
    ['stopping', 31, 'none'],
    ['ready', 1, 'none'],
    ['failed', 1, 'none'],
  ])('%s after %i checks', (state, count, expected) => {
    expect(poolFollowUp(state, { count, limit: 30 }).kind).toBe(expected);
  });
});

describe('nextPoolStep for pool-replenish: the one launcher, and what a failed launch means', () => {
  const spare = (launchAttempts: number) => ({
    state: 'launching' as const,
    hot: false,
    instanceId: null,
    launchAttempts,
    launchedAt: null,
  });
  const base = { cloud: undefined, now: NOW, limits };
  it.each<[string, PoolInput, string, RegExp]>([
    ['a new spare is launched', { ...base, pool: spare(0) }, 'launch', /new spare/],
    ['a launch whose answer was lost is adopted first', { ...base, pool: spare(1) }, 'adopt', /ClientToken/],
    [
      'nothing to adopt: launched again under the same token',
      { ...base, pool: spare(1), lastTry: 'nothing-adopted' },
      'launch',
      /same ClientToken/,
    ],
    [
      'refused for a permission: the plan’s pool is held',
      {
        ...base,
        pool: spare(1),
        lastTry: 'launch-failed',
        launchFault: { code: 'UnauthorizedOperation', message: 'not authorized' },
      },
      'hold',
      /permission-denied/,
    ],
    [
      'refused for the image: the plan’s pool is held',
      {
        ...base,
        pool: spare(1),
        lastTry: 'launch-failed',
        launchFault: { code: 'InvalidAMIID.NotFound', message: 'no such image' },
      },
      'hold',
      /image-fault/,
    ],
    [
      'no capacity within the budget: left to the next replenish',
      {
        ...base,
        pool: spare(3),
        lastTry: 'launch-failed',
        launchFault: { code: 'InsufficientInstanceCapacity', message: '' },
      },
      'launch-later',
      /attempt 3 failed/,
    ],
    [
      'no capacity at the budget: given up',
      {
        ...base,
        pool: spare(8),
        lastTry: 'launch-failed',
        launchFault: { code: 'InsufficientInstanceCapacity', message: '' },
      },
      'give-up-launch',
      /8 launch attempts/,
    ],
  ])('%s', (_name, facts, expected, reason) => {
    const decision = nextPoolStep(facts, 'job');
    expect(decision.kind).toBe(expected);
    expect(decision.reason).toMatch(reason);
  });

  it('a sweep never launches: it leaves the launch to pool-replenish', () => {
    expect(nextPoolStep({ ...base, pool: spare(0) }, 'sweep')).toMatchObject({
      kind: 'wait',
      reason: /left to pool-replenish/,
    });
    expect(nextPoolStep({ ...base, pool: spare(1) }, 'sweep').kind).toBe('adopt');
  });
});
