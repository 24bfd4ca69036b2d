import { describe, expect, it } from 'vitest';
import {
  decideMachine,
  decidePoolInstance,
  followUpOf,
  nextStep,
  provisionStep,
  restoreProgress,
  stepRule,
  sweepLane,
  type CloudView,
  type Decision,
  type DecisionKind,
  type LifecycleInput,
  type MachineFacts,
  type MachineState,
} from './lifecycle.ts';
import { imageForPlan } from './plans.ts';

/** The decisions the executor used to take itself, now made here: each with its table. */

const NOW = new Date('2026-06-10T12:00:00Z');
const MIN = 60_000;
const DAY = 86_400_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const limits = { missingGraceMs: 5 * MIN, maxStartAttempts: 6, maxLaunchAttempts: 8 };
const inForce = { status: 'active', expiresAt: at(10 * DAY), hours: 30 };
const expired = { status: 'expired', expiresAt: at(-DAY), hours: 30 };
const cloudOf = (state: NonNullable<CloudView>['state'], vmTag: string | null = 'vm-1'): CloudView => ({
  state,
  publicIp: state === 'running' ? '203.0.113.10' : null,
  vmTag,
});

function machine(state: MachineState, overrides: Partial<MachineFacts> = {}): MachineFacts {
  return {
    id: 'vm-1',
    state,
    source: 'launch',
    instanceId: 'i-0123456789abcdef0',
    launchAttempts: 1,
    startAttempts: 0,
    passwordStored: true,
    usageSeconds: 3600,
    usageCountedAt: state === 'running' ? at(-MIN) : null,
    launchedAt: at(-10 * MIN),
    startRequestedAt: at(-10 * MIN),
    stoppedAt: at(-10 * MIN),
    ...overrides,
  };
}

const input = (facts: MachineFacts, extra: Partial<LifecycleInput> = {}): LifecycleInput => ({
  machine: facts,
  plan: inForce,
  cloud: undefined,
  now: NOW,
  limits,
  ...extra,
});

const fresh = (state: 'requested' | 'provisioning', overrides: Partial<MachineFacts> = {}) =>
  machine(state, { instanceId: null, launchAttempts: state === 'requested' ? 0 : 3, ...overrides });

describe('decideMachine: the choices the executor used to make', () => {
  it.each<[string, LifecycleInput, DecisionKind, RegExp]>([
    // Warm pool versus a fresh launch.
    ['requested: a spare is claimed first', input(fresh('requested')), 'claim-pool', /warm-pool spare/],
    [
      'requested, no spare fits: launched',
      input(fresh('requested'), { lastTry: 'no-spare' }),
      'launch',
      /no machine yet/,
    ],
    [
      'requested from a kept disk: launched from it, never a spare',
      input(fresh('requested', { restoresDisk: true }), { restore: { copy: 'completed' } }),
      'launch',
      /no machine yet/,
    ],
    // Adopt, and adopt-not-found → launch again.
    ['provisioning, answer lost: adopted', input(fresh('provisioning')), 'adopt', /ClientToken/],
    [
      'provisioning, nothing to adopt: launched again',
      input(fresh('provisioning'), { lastTry: 'nothing-adopted' }),
      'launch',
      /same token/,
    ],
    // The launch budget.
    [
      'a launch failed within the budget: the job retries',
      input(fresh('provisioning', { launchAttempts: 7 }), { lastTry: 'launch-failed' }),
      'retry-later',
      /launch attempt 7 failed/,
    ],
    [
      'a launch failed at the budget: given up',
      input(fresh('provisioning', { launchAttempts: 8 }), { lastTry: 'launch-failed' }),
      'give-up-launch',
      /8 launch attempts/,
    ],
    // The start budget, and a start that is not a failed attempt.
    [
      'a start failed within the budget: the job retries',
      input(machine('starting', { startAttempts: 2 }), {
        cloud: cloudOf('stopped'),
        lastTry: 'start-failed',
      }),
      'retry-later',
      /start attempt 2 failed/,
    ],
    [
      'a start failed at the budget: given up, not retried',
      input(machine('starting', { startAttempts: 6 }), {
        cloud: cloudOf('stopped'),
        lastTry: 'start-failed',
      }),
      'give-up-start',
      /6 start attempts/,
    ],
    [
      'still stopping when started: retried, not counted',
      input(machine('starting'), { cloud: cloudOf('stopped'), lastTry: 'not-startable-yet' }),
      'retry-later',
      /not a failed attempt/,
    ],
    [
      'a claimed spare not startable yet: looked at again',
      input(machine('provisioning', { source: 'pool' }), {
        cloud: cloudOf('stopped'),
        lastTry: 'not-startable-yet',
      }),
      'wait',
      /not startable yet/,
    ],
    [
      'a claimed spare whose start failed: the job retries',
      input(machine('provisioning', { source: 'pool' }), {
        cloud: cloudOf('stopped'),
        lastTry: 'start-failed',
      }),
      'retry-later',
      /warm-pool/,
    ],
    // Start after a resize.
    [
      'stopped for a plan change and changed: started',
      input(machine('stopped', { stateReason: 'plan-change' }), { cloud: cloudOf('stopped') }),
      'request-start',
      /changed for the new plan/,
    ],
    [
      'stopped for a plan change, plan ended meanwhile: left',
      input(machine('stopped', { stateReason: 'plan-change' }), { cloud: cloudOf('stopped'), plan: expired }),
      'nothing',
      /stopped/,
    ],
    [
      'stopped by the customer: left',
      input(machine('stopped', { stateReason: 'customer' }), { cloud: cloudOf('stopped') }),
      'nothing',
      /stopped/,
    ],
    // A stop of an unexpected start that EC2 refuses while pending.
    [
      'unexpectedly pending, stop refused: waits for it to run',
      input(machine('stopped'), { cloud: cloudOf('pending'), lastTry: 'stop-refused' }),
      'wait',
      /stopped once it runs/,
    ],
    // The password capture's findings.
    [
      'first boot not done',
      input(machine('provisioning', { passwordStored: false }), {
        cloud: cloudOf('running'),
        lastTry: 'password-not-ready',
      }),
      'wait',
      /first boot/,
    ],
    [
      'password undecryptable: waits for an operator',
      input(machine('provisioning', { passwordStored: false }), {
        cloud: cloudOf('running'),
        lastTry: 'password-undecryptable',
      }),
      'wait',
      /could not be decrypted/,
    ],
    // The restore copy, followed when it failed.
    [
      'the copy failed and another is being taken: pointed at it',
      input(fresh('requested', { restoresDisk: true }), {
        restore: { copy: 'failed', retake: { id: 'snap-2', state: 'creating' } },
      }),
      'repoint-restore',
      /copy taken again/,
    ],
    [
      'the copy failed and none is taken yet: waits',
      input(fresh('requested', { restoresDisk: true }), { restore: { copy: 'failed', retake: null } }),
      'wait',
      /still being saved/,
    ],
    // The disk-copy handoff versus the "disk kept" mail.
    [
      'copy complete, a renewed machine waits: handed over',
      input(machine('terminating', { keepDisk: true }), {
        plan: expired,
        cloud: cloudOf('stopped'),
        snapshot: { row: 'creating', cloud: 'completed', newMachineWaits: true },
      }),
      'hand-over-disk',
      /new machine waits/,
    ],
    [
      'copy complete, nobody waits: kept and mailed',
      input(machine('terminating', { keepDisk: true }), {
        plan: expired,
        cloud: cloudOf('stopped'),
        snapshot: { row: 'creating', cloud: 'completed', newMachineWaits: false },
      }),
      'keep-disk',
      /told until when/,
    ],
    [
      'copy in error: recorded as failed (another follows)',
      input(machine('terminating', { keepDisk: true }), {
        plan: expired,
        cloud: cloudOf('stopped'),
        snapshot: { row: 'creating', cloud: 'error' },
      }),
      'snapshot-failed',
      /in error/,
    ],
    [
      'copy unknown to EC2: recorded as failed',
      input(machine('terminating', { keepDisk: true }), {
        plan: expired,
        cloud: cloudOf('stopped'),
        snapshot: { row: 'creating', cloud: 'missing' },
      }),
      'snapshot-failed',
      /does not know/,
    ],
    [
      'copy already given to the new machine: the instance goes',
      input(machine('terminating', { keepDisk: true }), {
        plan: expired,
        cloud: cloudOf('stopped'),
        snapshot: { row: 'restored' },
      }),
      'terminate',
      /to be deleted/,
    ],
  ])('%s', (_name, facts, expected, reason) => {
    const decision = decideMachine(facts);
    expect(decision.kind).toBe(expected);
    expect(decision.reason).toMatch(reason);
  });

  it('carries the plan cap with an accrual, so the sweep and the executor count alike', () => {
    const decision = decideMachine(input(machine('running'), { cloud: cloudOf('running') }));
    expect(decision).toMatchObject({ kind: 'accrue', capSeconds: 30 * 3600 });
  });
});

describe('restoreProgress', () => {
  it.each([
    [{ copy: null }, 'ready'],
    [{ copy: 'creating' }, 'pending'],
    [{ copy: 'completed' }, 'ready'],
    [{ copy: 'restored' }, 'ready'],
    [{ copy: 'failed', retake: null }, 'pending'],
    [{ copy: 'failed', retake: { id: 's2', state: 'completed' } }, { repointTo: 's2' }],
  ])('%j → %j', (view, expected) => {
    expect(restoreProgress(view)).toEqual(expected);
  });
});

describe('stepRule and nextStep: where each step runs, and what a sweep leaves to its job', () => {
  it.each<[Decision, string, boolean, string]>([
    [{ kind: 'nothing', reason: '' }, 'end', true, 'end'],
    [{ kind: 'wait', reason: '' }, 'end', true, 'end'],
    [{ kind: 'observe', reason: '' }, 'look', true, 'go-on'],
    [{ kind: 'observe-snapshot', reason: '' }, 'look', true, 'go-on'],
    [{ kind: 'claim-pool', reason: '' }, 'cloud', false, 'go-on'],
    [{ kind: 'launch', reason: '' }, 'cloud', false, 'go-on'],
    [{ kind: 'stop', reason: '' }, 'cloud', true, 'go-on'],
    [{ kind: 'mark-stopped', reason: '', stoppedBy: 'stop' }, 'row', true, 'go-on'],
    [{ kind: 'keep-disk', reason: '' }, 'row', true, 'go-on'],
    [{ kind: 'mark-running', reason: '', publicIp: 'x' }, 'row', true, 'end'],
    [{ kind: 'request-stop', reason: '', why: 'plan-expired', alerts: [] }, 'row', true, 'end'],
    [{ kind: 'retry-later', reason: '' }, 'retry', false, 'end'],
  ])('%o', (decision, place, sweep, then) => {
    expect(stepRule(decision)).toEqual({ place, sweep, then });
  });

  it('a sweep never launches, retries or starts a customer machine; it may start a claimed spare', () => {
    expect(stepRule({ kind: 'launch', reason: '' }).sweep).toBe(false);
    expect(stepRule({ kind: 'claim-pool', reason: '' }).sweep).toBe(false);
    expect(stepRule({ kind: 'retry-later', reason: '' }).sweep).toBe(false);
    expect(stepRule({ kind: 'start', reason: '' }).sweep).toBe(false);
    expect(stepRule({ kind: 'start-claimed', reason: '' }).sweep).toBe(true);
    const sweep = nextStep(input(fresh('requested')), 'sweep');
    expect(sweep).toMatchObject({ kind: 'wait', reason: expect.stringMatching(/left to its job/) });
    expect(nextStep(input(fresh('requested')), 'job').kind).toBe('claim-pool');
  });

  it('every decision kind has a rule (the switch is exhaustive: a new kind fails to compile)', () => {
    expect(() => stepRule({ kind: 'no-such' } as unknown as Decision)).toThrow(/unexpected/);
  });
});

describe('sweepLane: the sweep batches only what is nothing but time counted', () => {
  const accrue: Decision = { kind: 'accrue', reason: '', alerts: [80], capSeconds: 1 };
  it.each<[string, Decision, boolean, string]>([
    ['nothing', { kind: 'nothing', reason: '' }, true, 'unchanged'],
    ['wait', { kind: 'wait', reason: '' }, true, 'unchanged'],
    ['accrue, notices sent', accrue, true, 'accrue'],
    ['accrue, a notice to send', accrue, false, 'step'],
    ['anything else', { kind: 'mark-stopped', reason: '', stoppedBy: 'stop' }, true, 'step'],
  ])('%s', (_name, decision, sent, lane) => {
    expect(sweepLane(decision, () => sent)).toBe(lane);
  });
});

describe('followUpOf', () => {
  it.each<[string, string, number, number, unknown]>([
    ['in transition, within the bound', 'starting', 0, 3, { kind: 'check-again' }],
    ['in transition, past the bound', 'starting', 0, 31, { kind: 'none' }],
    [
      'running, hours end within a day',
      'running',
      30 * 3600 - 100,
      1,
      { kind: 'hours-check', inSeconds: 101 },
    ],
    ['running, hours end later', 'running', 0, 1, { kind: 'none' }],
    ['running, hours used up', 'running', 30 * 3600, 1, { kind: 'none' }],
    ['stopped', 'stopped', 0, 1, { kind: 'none' }],
  ])('%s', (_name, state, usageSeconds, count, expected) => {
    expect(followUpOf({ state, usageSeconds }, { hours: 30 }, { count, limit: 30 })).toEqual(expected);
  });
});

describe('decidePoolInstance: the first-boot deadline and a bad password', () => {
  const pool = (launchedAt: Date) => ({
    state: 'launching' as const,
    hot: false,
    instanceId: 'i-1',
    launchAttempts: 1,
    launchedAt,
  });
  const base = { cloud: cloudOf('running'), now: NOW, limits };
  it.each<[string, Parameters<typeof decidePoolInstance>[0], string]>([
    ['not ready, in time', { ...base, pool: pool(at(-10 * MIN)), lastTry: 'password-not-ready' }, 'wait'],
    ['not ready, overdue', { ...base, pool: pool(at(-46 * MIN)), lastTry: 'password-not-ready' }, 'discard'],
    ['undecryptable', { ...base, pool: pool(at(-10 * MIN)), lastTry: 'password-undecryptable' }, 'discard'],
    [
      'nothing to adopt',
      { ...base, pool: { ...pool(at(0)), instanceId: null }, lastTry: 'nothing-adopted' },
      'wait',
    ],
  ])('%s', (_name, facts, expected) => {
    expect(decidePoolInstance(facts).kind).toBe(expected);
  });
});

describe('provisionStep: what a renewal does with the machine it keeps', () => {
  const attached = at(-MIN);
  const kept = (state: MachineState, overrides: Record<string, unknown> = {}) => ({
    state,
    readyAt: at(-DAY),
    startRequestedAt: at(-DAY),
    stopRequestedAt: at(-DAY),
    subscriptionAttachedAt: attached,
    resizePending: false,
    ...overrides,
  });
  it.each<[string, ReturnType<typeof kept>, boolean, string]>([
    ['being made', kept('provisioning'), false, 'advance'],
    ['stopped, untouched since the payment', kept('stopped'), true, 'start'],
    ['stopping, untouched', kept('stopping'), true, 'retry-later'],
    ['stopped, started since by the customer', kept('stopped', { startRequestedAt: at(0) }), true, 'nothing'],
    ['stopped, stopped since by the customer', kept('stopped', { stopRequestedAt: at(0) }), true, 'nothing'],
    ['stopped, never ready', kept('stopped', { readyAt: null }), true, 'nothing'],
    ['stopped, not a renewal', kept('stopped'), false, 'nothing'],
    ['running with a plan change', kept('running', { resizePending: true }), true, 'change-running'],
    ['running', kept('running'), true, 'renewed'],
    ['terminated, renewal', kept('terminated'), true, 'renewed'],
    ['terminated', kept('terminated'), false, 'nothing'],
  ])('%s', (_name, facts, renewal, expected) => {
    expect(provisionStep({ machine: facts, renewal, plan: inForce, now: NOW }).kind).toBe(expected);
  });

  it('starts nothing once the plan is no longer in force', () => {
    expect(provisionStep({ machine: kept('stopped'), renewal: true, plan: expired, now: NOW }).kind).toBe(
      'nothing',
    );
  });
});

describe('imageForPlan', () => {
  it("takes the plan's image, the default plan's for an unknown plan", () => {
    const amis = {
      legend: 'ami-1',
      'pro-legend': 'ami-2',
      'ultra-legend': 'ami-3',
      'editor-low': 'ami-4',
      'editor-high': 'ami-5',
    };
    expect(imageForPlan('pro-legend', amis)).toBe('ami-2');
    expect(imageForPlan('gone', amis)).toBe('ami-1');
  });
});
