import { describe, expect, it } from 'vitest';
import { decideMachine } from './lifecycle.ts';
import type { LastTry } from './lastTry.ts';
import type { CloudState, CloudView, MachineFacts } from './machineDecision.ts';
import { MACHINE_STATES, type MachineState } from './machineStates.ts';
import { jobOf, mayTake, transitionOf, TRANSITIONS } from './machineTransitions.ts';
import type { PlanFacts } from './planTime.ts';

const NOW = new Date('2026-06-10T12:00:00Z');
const MIN = 60_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

const CLOUD_STATES: CloudState[] = [
  'pending',
  'running',
  'shutting-down',
  'terminated',
  'stopping',
  'stopped',
];
const LAST_TRIES: Array<LastTry | undefined> = [
  undefined,
  'no-spare',
  'nothing-adopted',
  'launch-failed',
  'start-failed',
  'not-startable-yet',
  'stop-refused',
  'password-not-ready',
  'password-undecryptable',
  'name-failed',
  'instance-not-found',
];
const PLANS: Array<PlanFacts | null> = [
  { status: 'active', expiresAt: at(10 * 86_400_000), hours: 30 },
  { status: 'expired', expiresAt: at(-86_400_000), hours: 30 },
  null,
];
const CLOUDS: Array<CloudView | undefined> = [
  undefined,
  null,
  ...CLOUD_STATES.flatMap((state) => [
    { state, publicIp: '203.0.113.10', vmTag: 'vm-1' },
    { state, publicIp: null, vmTag: null },
  ]),
];

function machine(state: MachineState, variant: number): MachineFacts {
  return {
    id: 'vm-1',
    state,
    source: variant % 2 === 0 ? 'launch' : 'pool',
    instanceId: variant % 3 === 0 ? null : 'i-0123456789abcdef0',
    launchAttempts: variant % 4 === 3 ? 8 : variant % 4,
    startAttempts: variant % 5 === 0 ? 6 : 0,
    passwordStored: variant % 2 === 0,
    usageSeconds: variant % 7 === 0 ? 30 * 3600 : 3600,
    usageCountedAt: state === 'running' ? at(-MIN) : null,
    launchedAt: at(-(variant % 3) * 10 * MIN),
    startRequestedAt: at(-10 * MIN),
    stoppedAt: at(-10 * MIN),
    stateReason: variant % 6 === 1 ? 'plan-change' : null,
    resizeTo: variant % 5 === 1 ? { instanceType: 'g5.xlarge', storageGb: null } : null,
    keepDisk: variant % 2 === 1,
  };
}

describe('every decision moves the row only along an edge of the transitions table', () => {
  it('holds for every state, plan, EC2 view and last try', () => {
    const taken = new Set<string>();
    let decided = 0;
    for (const state of MACHINE_STATES)
      for (let variant = 0; variant < 30; variant += 1)
        for (const plan of PLANS)
          for (const cloud of CLOUDS)
            for (const lastTry of LAST_TRIES) {
              const decision = decideMachine({
                machine: machine(state, variant),
                plan,
                cloud,
                lastTry,
                snapshot: { row: 'completed' },
                now: NOW,
                limits: { missingGraceMs: 5 * MIN, maxStartAttempts: 6, maxLaunchAttempts: 8 },
              });
              decided += 1;
              const edge = transitionOf(decision);
              if (edge === null) continue;
              taken.add(edge);
              expect(mayTake(edge, state), `${decision.kind} (${edge}) from ${state}`).toBe(true);
            }
    expect(decided).toBeGreaterThan(10_000);
    // Every edge the worker takes on its own is reached by some decision (the others are asked
    // for from outside the lifecycle: STOP, START, a termination).
    expect([...taken].sort()).toEqual(
      [
        'begin-launch',
        'claim-spare',
        'give-up-launch',
        'give-up-start',
        'lose',
        'mark-running',
        'mark-terminated',
        'refuse-start',
        'request-start',
        'request-stop',
        'shut-down',
        'stopped',
      ].sort(),
    );
  });
});

describe('the transitions table', () => {
  it('enters a state a machine can be in and leaves only states it can be in', () => {
    for (const [name, edge] of Object.entries(TRANSITIONS)) {
      expect(MACHINE_STATES, name).toContain(edge.to);
      for (const from of edge.from) expect(MACHINE_STATES, name).toContain(from);
    }
  });

  it('never leaves a deleted machine, and only a termination leaves a failed one', () => {
    for (const [name, edge] of Object.entries(TRANSITIONS)) {
      expect(mayTake(name as keyof typeof TRANSITIONS, 'terminated'), name).toBe(false);
      expect(mayTake(name as keyof typeof TRANSITIONS, 'error'), name).toBe(name === 'request-terminate');
      expect(edge.from.length).toBeGreaterThan(0);
    }
  });
});

describe('jobOf: the job that carries a machine forward from its state', () => {
  it('names the operation of every state a transition sent one for, and none elsewhere', () => {
    const table = MACHINE_STATES.map((state) => [
      state,
      jobOf({ state, hasInstance: true }),
      jobOf({ state, hasInstance: false }),
    ]);
    expect(table).toEqual([
      ['requested', 'vm-provision', 'vm-provision'],
      ['provisioning', null, 'vm-provision'],
      ['starting', 'vm-start', 'vm-start'],
      ['running', null, null],
      ['stopping', 'vm-stop', 'vm-stop'],
      ['stopped', null, null],
      ['terminating', 'vm-terminate', 'vm-terminate'],
      ['terminated', null, null],
      ['error', null, null],
    ]);
  });
});
