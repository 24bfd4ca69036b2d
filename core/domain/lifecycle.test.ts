import { describe, expect, it } from 'vitest';
import { snapshotRestorable, restoreProgress } from './keptDisk.ts';
import { decideMachine, followUpOf, nextStep, sweepLane } from './lifecycle.ts';
import {
  type CloudView,
  type Decision,
  type DecisionKind,
  type LifecycleInput,
  type MachineFacts,
  stepRule,
} from './machineDecision.ts';
import { downloadsReady, isTransitional, type MachineState } from './machineStates.ts';
import {
  checkoutMachineNote,
  machineForPlan,
  planChange,
  planAwaitsMachine,
  provisioningLate,
  provisionStep,
} from './planMachine.ts';
import { hoursExhausted, keptUntil, pastGrace, planEnded, planInForce, type PlanFacts } from './planTime.ts';
import { imageForPlan } from './plans.ts';

const NOW = new Date('2026-06-10T12:00:00Z');
const MIN = 60_000;
const DAY = 86_400_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const limits = { missingGraceMs: 5 * MIN, maxStartAttempts: 6, maxLaunchAttempts: 8 };

const PLANS = {
  inForce: { status: 'active', expiresAt: at(10 * DAY), hours: 30 },
  expiredByClock: { status: 'active', expiresAt: at(-MIN), hours: 30 },
  expired: { status: 'expired', expiresAt: at(-DAY), hours: 30 },
  cancelled: { status: 'cancelled', expiresAt: at(10 * DAY), hours: 30, cancelledAt: at(-DAY) },
  unpaid: { status: 'pending_payment', expiresAt: null, hours: 30 },
  none: null,
} satisfies Record<string, PlanFacts | null>;
type PlanCase = keyof typeof PLANS;

const CLOUD: Record<string, CloudView | undefined> = {
  unseen: undefined,
  missing: null,
  pending: { state: 'pending', publicIp: null, vmTag: 'vm-1' },
  runningNoIp: { state: 'running', publicIp: null, vmTag: 'vm-1' },
  running: { state: 'running', publicIp: '203.0.113.10', vmTag: 'vm-1' },
  runningPoolTags: { state: 'running', publicIp: '203.0.113.10', vmTag: null },
  stopping: { state: 'stopping', publicIp: null, vmTag: 'vm-1' },
  stopped: { state: 'stopped', publicIp: null, vmTag: 'vm-1' },
  stoppedPoolTags: { state: 'stopped', publicIp: null, vmTag: null },
  shuttingDown: { state: 'shutting-down', publicIp: null, vmTag: 'vm-1' },
  terminated: { state: 'terminated', publicIp: null, vmTag: 'vm-1' },
};
type CloudCase = keyof typeof CLOUD;

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

type Case = [
  name: string,
  machine: MachineFacts,
  plan: PlanCase,
  cloud: CloudCase,
  expected: DecisionKind,
  reason: RegExp,
  extra?: Partial<LifecycleInput>,
];

const cases: Case[] = [
  // requested: the provisioning job's business.
  [
    'requested, plan in force: a warm-pool spare first',
    machine('requested', { instanceId: null, launchAttempts: 0 }),
    'inForce',
    'unseen',
    'claim-pool',
    /warm-pool spare/,
  ],
  [
    'requested from a kept disk still being saved from the old machine',
    machine('requested', { instanceId: null, launchAttempts: 0 }),
    'inForce',
    'unseen',
    'wait',
    /still being saved/,
    { restore: { copy: 'creating' } },
  ],
  [
    'requested from a kept disk that is complete: launched from it, never a spare',
    machine('requested', { instanceId: null, launchAttempts: 0, restoresDisk: true }),
    'inForce',
    'unseen',
    'launch',
    /no machine yet/,
    { restore: { copy: 'completed' } },
  ],
  [
    'requested, plan expired',
    machine('requested', { instanceId: null }),
    'expired',
    'unseen',
    'nothing',
    /no longer in force/,
  ],
  [
    'requested, plan cancelled',
    machine('requested', { instanceId: null }),
    'cancelled',
    'unseen',
    'nothing',
    /no longer in force/,
  ],
  [
    'requested, no plan',
    machine('requested', { instanceId: null }),
    'none',
    'unseen',
    'nothing',
    /no longer in force/,
  ],
  // provisioning without an instance.
  [
    'provisioning, never launched',
    machine('provisioning', { instanceId: null, launchAttempts: 0 }),
    'inForce',
    'unseen',
    'launch',
    /no instance yet/,
  ],
  [
    'provisioning, launch answer lost',
    machine('provisioning', { instanceId: null, launchAttempts: 2 }),
    'inForce',
    'unseen',
    'adopt',
    /ClientToken/,
  ],
  [
    'provisioning, plan ended before launch',
    machine('provisioning', { instanceId: null, launchAttempts: 0 }),
    'expiredByClock',
    'unseen',
    'nothing',
    /no longer in force/,
  ],
  [
    'provisioning, plan unpaid',
    machine('provisioning', { instanceId: null }),
    'unpaid',
    'unseen',
    'nothing',
    /no longer in force/,
  ],
  // provisioning with an instance.
  [
    'provisioning, not looked at yet',
    machine('provisioning', { passwordStored: false }),
    'inForce',
    'unseen',
    'observe',
    /EC2/,
  ],
  [
    'provisioning, missing just after launch',
    machine('provisioning', { launchedAt: at(-MIN) }),
    'inForce',
    'missing',
    'wait',
    /eventually consistent/,
  ],
  [
    'provisioning, missing for long',
    machine('provisioning', { launchedAt: at(-10 * MIN) }),
    'inForce',
    'missing',
    'lost',
    /does not know/,
  ],
  [
    'provisioning, missing, launch time unknown',
    machine('provisioning', { launchedAt: null }),
    'inForce',
    'missing',
    'lost',
    /does not know/,
  ],
  ['provisioning, terminated', machine('provisioning'), 'inForce', 'terminated', 'lost', /terminated/],
  [
    'provisioning, shutting down',
    machine('provisioning'),
    'inForce',
    'shuttingDown',
    'lost',
    /shutting-down/,
  ],
  [
    'provisioning, pending',
    machine('provisioning', { passwordStored: false }),
    'inForce',
    'pending',
    'wait',
    /pending/,
  ],
  [
    'provisioning, stopping',
    machine('provisioning', { passwordStored: false }),
    'inForce',
    'stopping',
    'wait',
    /stopping/,
  ],
  [
    'provisioning launch, stopped in first boot',
    machine('provisioning', { passwordStored: false }),
    'inForce',
    'stopped',
    'lost',
    /first boot/,
  ],
  [
    'provisioning, running, no password',
    machine('provisioning', { passwordStored: false }),
    'inForce',
    'running',
    'capture-password',
    /first boot/,
  ],
  [
    'provisioning, running, password, no IP',
    machine('provisioning'),
    'inForce',
    'runningNoIp',
    'wait',
    /public address/,
  ],
  [
    'provisioning, ready to probe',
    machine('provisioning'),
    'inForce',
    'running',
    'probe-remote-desktop',
    /Remote Desktop/,
  ],
  [
    'provisioning, RDP closed: noted for the dashboard',
    machine('provisioning'),
    'inForce',
    'running',
    'note-remote-desktop-wait',
    /Remote Desktop/,
    { remoteDesktop: 'closed' },
  ],
  [
    'provisioning, RDP open',
    machine('provisioning'),
    'inForce',
    'running',
    'mark-ready',
    /Remote Desktop answers/,
    { remoteDesktop: 'open' },
  ],
  [
    'provisioning, plan expired meanwhile, still finishes',
    machine('provisioning'),
    'expired',
    'running',
    'probe-remote-desktop',
    /Remote Desktop/,
  ],
  // a claimed warm-pool instance.
  [
    'pool claim, pool tags still on',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'stoppedPoolTags',
    'tag',
    /pool tags/,
  ],
  [
    'pool claim, tags on running one',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'runningPoolTags',
    'tag',
    /pool tags/,
  ],
  [
    'pool claim, tagged, stopped',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'stopped',
    'start-claimed',
    /warm-pool/,
  ],
  [
    'pool claim, tagged, pending',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'pending',
    'wait',
    /pending/,
  ],
  [
    'pool claim, tagged, still stopping',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'stopping',
    'wait',
    /stopping/,
  ],
  [
    'pool claim, running, RDP open',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'running',
    'mark-ready',
    /answers/,
    { remoteDesktop: 'open' },
  ],
  [
    'pool claim, instance gone',
    machine('provisioning', { source: 'pool' }),
    'inForce',
    'terminated',
    'lost',
    /terminated/,
  ],
  // starting.
  [
    'starting, plan expired',
    machine('starting'),
    'expiredByClock',
    'stopped',
    'refuse-start',
    /not in force/,
  ],
  ['starting, plan cancelled', machine('starting'), 'cancelled', 'unseen', 'refuse-start', /not in force/],
  ['starting, no plan', machine('starting'), 'none', 'unseen', 'refuse-start', /not in force/],
  [
    'starting, hours used up',
    machine('starting', { usageSeconds: 30 * 3600 }),
    'inForce',
    'stopped',
    'refuse-start',
    /hours/,
  ],
  ['starting, not looked at', machine('starting'), 'inForce', 'unseen', 'observe', /EC2/],
  ['starting, stopped', machine('starting'), 'inForce', 'stopped', 'start', /stopped/],
  [
    'starting, budget spent',
    machine('starting', { startAttempts: 6 }),
    'inForce',
    'stopped',
    'give-up-start',
    /6 start attempts/,
  ],
  [
    'starting, one attempt left',
    machine('starting', { startAttempts: 5 }),
    'inForce',
    'stopped',
    'start',
    /stopped/,
  ],
  ['starting, still stopping', machine('starting'), 'inForce', 'stopping', 'wait', /stopping/],
  ['starting, pending', machine('starting'), 'inForce', 'pending', 'wait', /pending/],
  ['starting, running without IP', machine('starting'), 'inForce', 'runningNoIp', 'wait', /public address/],
  ['starting, running', machine('starting'), 'inForce', 'running', 'mark-running', /running/],
  [
    'starting, missing just after',
    machine('starting', { startRequestedAt: at(-MIN) }),
    'inForce',
    'missing',
    'wait',
    /eventually/,
  ],
  ['starting, missing for long', machine('starting'), 'inForce', 'missing', 'lost', /does not know/],
  ['starting, terminated', machine('starting'), 'inForce', 'terminated', 'lost', /terminated/],
  // running.
  ['running, not looked at', machine('running'), 'inForce', 'unseen', 'observe', /EC2/],
  ['running, running', machine('running'), 'inForce', 'running', 'accrue', /count/],
  [
    'running, at 80 %',
    machine('running', { usageSeconds: 24 * 3600 }),
    'inForce',
    'running',
    'accrue',
    /count/,
  ],
  [
    'running, hours used up',
    machine('running', { usageSeconds: 30 * 3600 - 10 }),
    'inForce',
    'running',
    'request-stop',
    /hours/,
  ],
  [
    'running, plan expired by clock',
    machine('running'),
    'expiredByClock',
    'running',
    'request-stop',
    /not in force/,
  ],
  ['running, plan expired', machine('running'), 'expired', 'running', 'request-stop', /not in force/],
  ['running, plan cancelled', machine('running'), 'cancelled', 'running', 'request-stop', /not in force/],
  ['running, no plan', machine('running'), 'none', 'running', 'request-stop', /not in force/],
  [
    'running, shut down inside (stopping)',
    machine('running'),
    'inForce',
    'stopping',
    'mark-stopped',
    /inside Windows/,
  ],
  [
    'running, shut down inside (stopped)',
    machine('running'),
    'inForce',
    'stopped',
    'mark-stopped',
    /inside Windows/,
  ],
  ['running, EC2 pending', machine('running'), 'inForce', 'pending', 'wait', /pending/],
  ['running, missing', machine('running'), 'inForce', 'missing', 'lost', /does not know/],
  ['running, terminated', machine('running'), 'inForce', 'terminated', 'lost', /terminated/],
  ['running, shutting down', machine('running'), 'inForce', 'shuttingDown', 'lost', /shutting-down/],
  [
    'running, no instance id',
    machine('running', { instanceId: null }),
    'inForce',
    'unseen',
    'lost',
    /no instance/,
  ],
  // stopping.
  ['stopping, not looked at', machine('stopping'), 'inForce', 'unseen', 'observe', /EC2/],
  ['stopping, still running', machine('stopping'), 'inForce', 'running', 'stop', /still runs/],
  ['stopping, stopping', machine('stopping'), 'inForce', 'stopping', 'wait', /stopping/],
  ['stopping, stopped', machine('stopping'), 'inForce', 'stopped', 'mark-stopped', /stopped/],
  ['stopping, plan expired, stopped', machine('stopping'), 'expired', 'stopped', 'mark-stopped', /stopped/],
  ['stopping, pending', machine('stopping'), 'inForce', 'pending', 'wait', /pending/],
  ['stopping, missing', machine('stopping'), 'inForce', 'missing', 'lost', /does not know/],
  ['stopping, terminated', machine('stopping'), 'inForce', 'terminated', 'lost', /terminated/],
  // stopped.
  ['stopped, stopped', machine('stopped'), 'inForce', 'stopped', 'nothing', /stopped/],
  ['stopped, plan expired, stopped', machine('stopped'), 'expired', 'stopped', 'nothing', /stopped/],
  ['stopped, started outside', machine('stopped'), 'inForce', 'running', 'alert-unexpected', /nobody asked/],
  ['stopped, pending outside', machine('stopped'), 'expired', 'pending', 'alert-unexpected', /nobody asked/],
  [
    'stopped, missing just after stop',
    machine('stopped', { stoppedAt: at(-MIN) }),
    'inForce',
    'missing',
    'wait',
    /eventually/,
  ],
  ['stopped, missing for long', machine('stopped'), 'inForce', 'missing', 'lost', /does not know/],
  ['stopped, terminated', machine('stopped'), 'expired', 'terminated', 'lost', /terminated/],
  ['stopped, stopping', machine('stopped'), 'inForce', 'stopping', 'nothing', /stopping/],
  // terminating.
  ['terminating, not looked at', machine('terminating'), 'expired', 'unseen', 'observe', /gone/],
  ['terminating, stopped', machine('terminating'), 'expired', 'stopped', 'terminate', /deleted/],
  ['terminating, running', machine('terminating'), 'inForce', 'running', 'terminate', /deleted/],
  ['terminating, gone', machine('terminating'), 'expired', 'terminated', 'mark-terminated', /confirms/],
  ['terminating, missing', machine('terminating'), 'expired', 'missing', 'mark-terminated', /confirms/],
  // Deleted only once EC2 says terminated: shutting-down is still "being deleted".
  [
    'terminating, shutting down',
    machine('terminating'),
    'expired',
    'shuttingDown',
    'check-later',
    /shutting-down/,
  ],
  [
    'terminating, launch sent, none recorded',
    machine('terminating', { instanceId: null, launchAttempts: 1 }),
    'expired',
    'unseen',
    'terminate',
    /launch was sent/,
  ],
  [
    'terminating, launch sent, none recorded, whatever it made now deleted',
    machine('terminating', { instanceId: null, launchAttempts: 1 }),
    'expired',
    'missing',
    'mark-terminated',
    /its launch made is deleted/,
  ],
  [
    'terminating, never launched',
    machine('terminating', { instanceId: null, launchAttempts: 0 }),
    'expired',
    'unseen',
    'mark-terminated',
    /never had/,
  ],
  // resting states.
  ['terminated', machine('terminated'), 'expired', 'terminated', 'nothing', /deleted/],
  ['error', machine('error'), 'inForce', 'running', 'nothing', /operator/],
  // Plan changes: the same instance, changed while stopped.
  [
    'running, plan of another kind',
    machine('running', { resizeTo: { instanceType: 'g4dn.2xlarge', storageGb: 225 } }),
    'inForce',
    'running',
    'request-stop',
    /another kind of machine/,
  ],
  [
    'stopped for the plan change',
    machine('stopped', {
      stateReason: 'plan-change',
      resizeTo: { instanceType: 'g4dn.2xlarge', storageGb: null },
    }),
    'inForce',
    'stopped',
    'resize',
    /change the instance, then start it/,
  ],
  [
    'stopped by the customer with a change pending: waits for their START',
    machine('stopped', { stateReason: 'user', resizeTo: { instanceType: 'g4dn.2xlarge', storageGb: null } }),
    'inForce',
    'stopped',
    'nothing',
    /stopped/,
  ],
  [
    'stopped after a failed start with a change pending: stays stopped',
    machine('stopped', {
      stateReason: 'start-failed',
      resizeTo: { instanceType: 'g4dn.2xlarge', storageGb: null },
    }),
    'inForce',
    'stopped',
    'nothing',
    /stopped/,
  ],
  [
    'starting with a change pending',
    machine('starting', { resizeTo: { instanceType: null, storageGb: 300 } }),
    'inForce',
    'stopped',
    'resize',
    /before starting it/,
  ],
  [
    'starting on the new type, no capacity left',
    machine('starting', { resizedFrom: 'g4dn.xlarge', startAttempts: 6 }),
    'inForce',
    'stopped',
    'revert-resize',
    /old type back/,
  ],
  [
    'starting, old type back, no capacity left',
    machine('starting', { resizeTo: { instanceType: 'g4dn.2xlarge', storageGb: null }, startAttempts: 6 }),
    'inForce',
    'stopped',
    'give-up-start',
    /no capacity/,
  ],
  // Expiry keeps the disk: snapshot first, then the instance goes.
  [
    'terminating, disk kept, snapshot not looked at',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'observe-snapshot',
    /snapshot/,
  ],
  [
    'terminating, disk kept, no snapshot yet',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'snapshot',
    /snapshot it before/,
    { snapshot: { row: 'none' } },
  ],
  [
    'terminating, disk kept, row written but no snapshot sent',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'snapshot',
    /snapshot it before/,
    { snapshot: { row: 'unsent' } },
  ],
  [
    'terminating, disk kept, snapshot pending: looked at again soon',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'check-later',
    /not complete/,
    { snapshot: { row: 'creating', cloud: 'pending' } },
  ],
  [
    'terminating, disk kept, snapshot pending 5 h: within the deadline',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'check-later',
    /not complete/,
    { snapshot: { row: 'creating', cloud: 'pending', begunAt: at(-5 * 60 * MIN) } },
  ],
  [
    'terminating, disk kept, snapshot pending past the 6 h deadline: given up and taken again',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'snapshot-failed',
    /still not complete after 6 hours/,
    { snapshot: { row: 'creating', cloud: 'pending', begunAt: at(-(6 * 60 + 1) * MIN) } },
  ],
  [
    'terminating, disk kept, snapshot done',
    machine('terminating', { keepDisk: true }),
    'expired',
    'stopped',
    'terminate',
    /to be deleted/,
    { snapshot: { row: 'completed' } },
  ],
  [
    'terminating, disk kept, instance already gone',
    machine('terminating', { keepDisk: true }),
    'expired',
    'terminated',
    'mark-terminated',
    /gone/,
  ],
];

describe('decideMachine', () => {
  it('covers every machine state', () => {
    const states = new Set(cases.map(([, m]) => m.state));
    expect([...states].sort()).toEqual(
      [
        'error',
        'provisioning',
        'requested',
        'running',
        'starting',
        'stopped',
        'stopping',
        'terminated',
        'terminating',
      ].sort(),
    );
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('%s → expected decision', (_name, facts, plan, cloud, expected, reason, extra) => {
    const decision = decideMachine({
      machine: facts,
      plan: PLANS[plan],
      cloud: CLOUD[cloud],
      now: NOW,
      limits,
      ...extra,
    });
    expect(decision.kind).toBe(expected);
    expect(decision.reason).toMatch(reason);
  });

  it('reports the hour alerts reached with the accrual and the out-of-hours stop', () => {
    const accrue = decideMachine({
      machine: machine('running', { usageSeconds: 24 * 3600 }),
      plan: PLANS.inForce,
      cloud: CLOUD.running,
      now: NOW,
      limits,
    });
    expect(accrue).toMatchObject({ kind: 'accrue', alerts: [80] });
    const stop = decideMachine({
      machine: machine('running', { usageSeconds: 30 * 3600 - 1 }),
      plan: PLANS.inForce,
      cloud: CLOUD.running,
      now: NOW,
      limits,
    });
    expect(stop).toMatchObject({ kind: 'request-stop', why: 'out-of-hours', alerts: [80, 100] });
  });

  it('is pure: the same input gives the same decision', () => {
    const input = {
      machine: machine('starting'),
      plan: PLANS.inForce,
      cloud: CLOUD.stopped,
      now: NOW,
      limits,
    };
    expect(decideMachine(input)).toEqual(decideMachine(structuredClone(input)));
  });
});

describe('machineForPlan', () => {
  const plan = { ...PLANS.inForce, planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 };
  const kept = (keepUntil: Date, state = 'completed') => ({ id: 'snap-row', state, keepUntil });
  it.each([
    ['no machine yet', plan, null, null, null, 'new'],
    ['the plan has its machine', plan, { state: 'provisioning' }, null, null, 'existing'],
    ['its machine failed: a new one', plan, { state: 'error' }, null, null, 'new'],
    [
      'renewal of the same kind',
      plan,
      null,
      { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 },
      null,
      'keep-live',
    ],
    [
      'another kind keeps the machine too',
      plan,
      null,
      { planId: 'pro-legend', instanceType: 'g4dn.2xlarge', storageGb: 225 },
      null,
      'keep-live',
    ],
    ['plan expired', { ...plan, ...PLANS.expired }, null, null, null, 'skip'],
    ['plan unpaid', { ...plan, ...PLANS.unpaid }, null, null, null, 'skip'],
  ] as const)('%s → %s', (_name, p, planMachine, live, keptDisk, expected) => {
    expect(machineForPlan({ plan: p, planMachine, live, kept: keptDisk, now: NOW }).kind).toBe(expected);
  });

  it('a plan of another kind changes the kept machine: its type, and its disk only upwards', () => {
    expect(
      machineForPlan({
        plan,
        planMachine: null,
        live: { planId: 'pro-legend', instanceType: 'g4dn.2xlarge', storageGb: 225 },
        now: NOW,
      }),
    ).toEqual({
      kind: 'keep-live',
      reason: expect.any(String),
      change: { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: null },
    });
    expect(
      planChange(
        { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 },
        { planId: 'pro-legend', instanceType: 'g4dn.2xlarge', storageGb: 225 },
      ),
    ).toEqual({ planId: 'pro-legend', instanceType: 'g4dn.2xlarge', storageGb: 225 });
    expect(
      planChange(
        { planId: 'ultra-legend', instanceType: 'g5.xlarge', storageGb: 225 },
        { planId: 'ultra-legend', instanceType: 'g5.xlarge', storageGb: 225 },
      ),
    ).toBeNull();
  });

  it("waits while the last machine is being deleted and its disk's copy is not begun yet", () => {
    // Not begun: a fresh machine (or an older kept copy) would lose the files.
    const older = kept(new Date(NOW.getTime() + DAY));
    for (const k of [null, older])
      expect(
        machineForPlan({ plan, planMachine: null, live: null, kept: k, copyNotBegun: true, now: NOW }),
      ).toMatchObject({ kind: 'wait', reason: expect.stringMatching(/copy of its disk is not begun yet/) });
    // A live machine is kept whatever else is being deleted; a plan not in force waits for nothing.
    const live = { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 };
    expect(machineForPlan({ plan, planMachine: null, live, copyNotBegun: true, now: NOW }).kind).toBe(
      'keep-live',
    );
    expect(
      machineForPlan({
        plan: { ...plan, ...PLANS.expired },
        planMachine: null,
        live: null,
        copyNotBegun: true,
        now: NOW,
      }).kind,
    ).toBe('skip');
  });

  it('without a live machine, a kept snapshot inside its window brings the files back', () => {
    const inWindow = kept(new Date(NOW.getTime() + 86_400_000));
    expect(machineForPlan({ plan, planMachine: null, live: null, kept: inWindow, now: NOW })).toMatchObject({
      kind: 'new',
      restoreFrom: 'snap-row',
    });
    // Still being saved from the machine that just expired: the new one is made from it, later.
    const saving = kept(new Date(NOW.getTime() + 1000), 'creating');
    expect(machineForPlan({ plan, planMachine: null, live: null, kept: saving, now: NOW })).toMatchObject({
      kind: 'new',
      restoreFrom: 'snap-row',
      reason: expect.stringMatching(/once it is complete/),
    });
    expect(snapshotRestorable(saving, NOW)).toBe(false);
    for (const gone of [kept(new Date(NOW.getTime() - 1)), kept(new Date(NOW.getTime() + 1000), 'failed')]) {
      expect(machineForPlan({ plan, planMachine: null, live: null, kept: gone, now: NOW })).toMatchObject({
        kind: 'new',
        restoreFrom: null,
      });
      expect(snapshotRestorable(gone, NOW)).toBe(false);
    }
  });
});

describe('rules', () => {
  it('provisioning is late past the deadline from when it could begin; never while the disk copy is made', () => {
    const requested = { state: 'requested', requestedAt: at(-30 * MIN) };
    expect(provisioningLate(requested, null, NOW, 20)).toBe(true);
    expect(provisioningLate({ ...requested, requestedAt: at(-10 * MIN) }, null, NOW, 20)).toBe(false);
    expect(provisioningLate({ ...requested, state: 'running' }, null, NOW, 20)).toBe(false);
    // Waiting for the copy of the old disk, however long: the wait the checkout promised.
    expect(provisioningLate(requested, { state: 'creating', completedAt: null }, NOW, 20)).toBe(false);
    // The clock starts when the copy completed.
    expect(provisioningLate(requested, { state: 'restored', completedAt: at(-5 * MIN) }, NOW, 20)).toBe(
      false,
    );
    expect(provisioningLate(requested, { state: 'restored', completedAt: at(-25 * MIN) }, NOW, 20)).toBe(
      true,
    );
    // A failed copy waits for nothing that is coming: late as any other.
    expect(provisioningLate(requested, { state: 'failed', completedAt: null }, NOW, 20)).toBe(true);
  });
  it('a paid plan waits for its machine past the deadline when no machine was attached to it', () => {
    const paid = { ...PLANS.inForce, purchasedAt: at(-30 * MIN) };
    expect(planAwaitsMachine(paid, false, NOW, 20)).toBe(true);
    // A renewal whose live machine was moved onto it, or a machine made for it: served.
    expect(planAwaitsMachine(paid, true, NOW, 20)).toBe(false);
    // Its job may still be running: not before the deadline.
    expect(planAwaitsMachine({ ...paid, purchasedAt: at(-10 * MIN) }, false, NOW, 20)).toBe(false);
    // A plan no longer in force needs no machine.
    expect(planAwaitsMachine({ ...PLANS.expiredByClock, purchasedAt: at(-DAY) }, false, NOW, 20)).toBe(false);
    expect(planAwaitsMachine({ ...PLANS.cancelled, purchasedAt: at(-DAY) }, false, NOW, 20)).toBe(false);
    expect(planAwaitsMachine({ ...PLANS.unpaid, purchasedAt: null }, false, NOW, 20)).toBe(false);
  });
  it('plan in force: active and before its expiry instant', () => {
    expect(planInForce(PLANS.inForce, NOW)).toBe(true);
    expect(planInForce({ ...PLANS.inForce, expiresAt: NOW }, NOW)).toBe(false);
    expect(planInForce(PLANS.expiredByClock, NOW)).toBe(false);
    expect(planInForce(PLANS.cancelled, NOW)).toBe(false);
    expect(planInForce(PLANS.unpaid, NOW)).toBe(false);
    expect(planInForce(null, NOW)).toBe(false);
  });
  it('grace: kept for the grace days after the plan ended, then past grace', () => {
    const ended = { status: 'expired', expiresAt: at(-3 * DAY), hours: 30 };
    expect(planEnded(ended, NOW)).toBe(true);
    expect(keptUntil(ended, 7)).toBe(NOW.getTime() + 4 * DAY);
    expect(pastGrace(ended, NOW, 7)).toBe(false);
    expect(pastGrace(ended, NOW, 3)).toBe(true);
    expect(pastGrace(PLANS.inForce, NOW, 0)).toBe(false);
    // A cancellation ends the plan at the cancellation, not the expiry.
    expect(pastGrace({ ...PLANS.cancelled, cancelledAt: at(-8 * DAY) }, NOW, 7)).toBe(true);
  });
  it('hours exhausted exactly when nothing remains', () => {
    expect(hoursExhausted({ hours: 30 }, 107_999)).toBe(false);
    expect(hoursExhausted({ hours: 30 }, 108_000)).toBe(true);
    expect(hoursExhausted({ hours: 1 }, 4_000)).toBe(true);
  });
  it('transitional states are the ones that settle by themselves', () => {
    expect(['requested', 'provisioning', 'starting', 'stopping', 'terminating'].every(isTransitional)).toBe(
      true,
    );
    expect(['running', 'stopped', 'terminated', 'error', 'none'].some(isTransitional)).toBe(false);
  });
  it('downloads: the password once stored (not after deletion), the RDP file only while running with an address', () => {
    expect(downloadsReady({ state: 'running', publicIp: '203.0.113.1', passwordStored: true })).toEqual({
      rdp: true,
      password: true,
    });
    expect(downloadsReady({ state: 'running', publicIp: null, passwordStored: true })).toEqual({
      rdp: false,
      password: true,
    });
    expect(downloadsReady({ state: 'stopped', publicIp: null, passwordStored: true })).toEqual({
      rdp: false,
      password: true,
    });
    expect(downloadsReady({ state: 'provisioning', publicIp: null, passwordStored: false })).toEqual({
      rdp: false,
      password: false,
    });
    expect(downloadsReady({ state: 'terminating', publicIp: null, passwordStored: true })).toEqual({
      rdp: false,
      password: false,
    });
    expect(downloadsReady({ state: 'error', publicIp: null, passwordStored: true })).toEqual({
      rdp: false,
      password: false,
    });
  });
});

describe('checkoutMachineNote', () => {
  const pro = { planId: 'pro-legend', name: 'PRO LEGEND', instanceType: 'g4dn.2xlarge', storageGb: 225 };
  const legend = { planId: 'legend', name: 'LEGEND', instanceType: 'g4dn.xlarge', storageGb: 115 };
  it('promises the same PC, changed to the new kind, with the disk never smaller', () => {
    expect(
      checkoutMachineNote({
        plan: pro,
        live: { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115, state: 'running' },
        kept: null,
        now: NOW,
      }),
    ).toBe(
      'You keep the same PC with all your files and programs: after payment it restarts as a PRO LEGEND machine and its disk grows from 115 GB to 225 GB. Save your work first: it restarts within a few minutes of payment.',
    );
    expect(
      checkoutMachineNote({
        plan: legend,
        live: { planId: 'pro-legend', instanceType: 'g4dn.2xlarge', storageGb: 225, state: 'stopped' },
        kept: null,
        now: NOW,
      }),
    ).toBe(
      "You keep the same PC with all your files and programs: after payment it restarts as a LEGEND machine. Your disk stays at 225 GB, more than this plan's 115 GB, so nothing on it is lost.",
    );
    expect(
      checkoutMachineNote({
        plan: legend,
        live: { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115, state: 'stopped' },
        kept: null,
        now: NOW,
      }),
    ).toBe('You keep the same PC with all your files and programs.');
  });

  it('promises the files back only from a kept copy inside its window', () => {
    const kept = { state: 'completed', keepUntil: at(DAY), completedAt: at(-DAY) };
    expect(checkoutMachineNote({ plan: legend, live: null, kept, now: NOW })).toMatch(
      /^Your files come back: .* saved on 9 June 2026\.$/,
    );
    expect(
      checkoutMachineNote({ plan: legend, live: null, kept: { ...kept, keepUntil: at(-1) }, now: NOW }),
    ).toBeNull();
    expect(checkoutMachineNote({ plan: legend, live: null, kept: null, now: NOW })).toBeNull();
    // Still being saved (the plan expired minutes ago): the files come back once it is complete.
    expect(
      checkoutMachineNote({
        plan: legend,
        live: null,
        kept: { state: 'creating', keepUntil: at(DAY), completedAt: null },
        now: NOW,
      }),
    ).toMatch(/^Your files come back: .* being saved right now.* once it is complete/);
    expect(
      checkoutMachineNote({
        plan: legend,
        live: null,
        kept: { state: 'failed', keepUntil: at(DAY), completedAt: null },
        now: NOW,
      }),
    ).toBeNull();
    // The last machine is being deleted and its copy not begun (or retaken) yet: the renewal waits
    // for that copy, so an older kept copy is not what comes back.
    for (const older of [null, kept, { state: 'failed', keepUntil: at(DAY), completedAt: null }])
      expect(
        checkoutMachineNote({ plan: legend, live: null, kept: older, copyNotBegun: true, now: NOW }),
      ).toMatch(/being saved right now/);
  });
});

// ——— The choices the executor used to make, now decisions here: each with its table. ———

const inForce = PLANS.inForce;
const expired = PLANS.expired;
const cloudOf = (state: NonNullable<CloudView>['state'], vmTag: string | null = 'vm-1'): CloudView => ({
  state,
  publicIp: state === 'running' ? '203.0.113.10' : null,
  vmTag,
});

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
    // "No such instance" from a start or a stop is EC2's word: lost at once, not waited for.
    [
      'starting, StartInstances answered no such instance: lost',
      input(machine('starting', { startRequestedAt: at(-MIN) }), {
        cloud: null,
        lastTry: 'instance-not-found',
      }),
      'lost',
      /does not exist/,
    ],
    [
      'starting, just asked, not listed by DescribeInstances: waited for',
      input(machine('starting', { startRequestedAt: at(-MIN) }), { cloud: null }),
      'wait',
      /not listed yet/,
    ],
    [
      'stopping, StopInstances answered no such instance: lost',
      input(machine('stopping'), { cloud: null, lastTry: 'instance-not-found' }),
      'lost',
      /does not exist/,
    ],
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
      /stopped for plan-change: started again/,
    ],
    // A move off hardware EC2 retires: stopped by us, started again at once (elsewhere).
    [
      'stopped to move off retiring hardware: started again',
      input(machine('stopped', { stateReason: 'hardware-move' }), { cloud: cloudOf('stopped') }),
      'request-start',
      /hardware-move/,
    ],
    [
      'stopped to move it, plan ended meanwhile: left',
      input(machine('stopped', { stateReason: 'hardware-move' }), {
        cloud: cloudOf('stopped'),
        plan: expired,
      }),
      'nothing',
      /stopped/,
    ],
    // The plan's launch budget (LAUNCH_BUDGET_PER_HOUR).
    [
      'a launch needed, the budget spent: waits until the hour frees one',
      input(machine('provisioning', { instanceId: null, launchAttempts: 0 }), {
        launchBudget: { left: 0, freesAt: NOW.getTime() + 20 * MIN },
      }),
      'wait-launch-budget',
      /launch budget is spent/,
    ],
    [
      'a launch needed, budget left: launches',
      input(machine('provisioning', { instanceId: null, launchAttempts: 0 }), {
        launchBudget: { left: 1, freesAt: null },
      }),
      'launch',
      /no instance yet/,
    ],
    [
      'an earlier launch to adopt: the budget does not stop the look',
      input(machine('provisioning', { instanceId: null, launchAttempts: 2 }), {
        launchBudget: { left: 0, freesAt: NOW.getTime() + 20 * MIN },
      }),
      'adopt',
      /ClientToken/,
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
