import { describe, expect, it } from 'vitest';
import { machineView, type MachineViewInput, type ShownMachine } from './machineView.ts';
import { VM_MESSAGES } from './vm.ts';

const NOW = new Date('2026-03-10T10:00:00Z');
const DAY = 86_400_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const PLAN_ID = 'sub-1';

const plan = (overrides: Partial<NonNullable<MachineViewInput['plan']>> = {}) => ({
  id: PLAN_ID,
  status: 'active',
  expiresAt: at(20 * DAY),
  hours: 30,
  cancelledAt: null,
  planName: 'LEGEND',
  isTrial: false,
  purchasedAt: at(-DAY),
  ...overrides,
});

function machine(state: ShownMachine['state'], overrides: Partial<ShownMachine> = {}): ShownMachine {
  return {
    subscriptionId: PLAN_ID,
    state,
    source: 'launch',
    instanceId: 'i-1',
    publicIp: state === 'running' ? '203.0.113.9' : null,
    passwordStored: true,
    problem: null,
    delayed: false,
    remoteDesktopWaitingSince: null,
    resizePending: false,
    stateReason: null,
    restoresDisk: false,
    requestedAt: at(-DAY),
    startedAt: at(-3600_000),
    stateChangedAt: at(-600_000),
    usageSeconds: 3600,
    usageCountedAt: state === 'running' ? at(-60_000) : null,
    ...overrides,
  };
}

const view = (input: Partial<MachineViewInput>) =>
  machineView({
    machine: null,
    plan: plan(),
    earlierPlanWasTrial: false,
    keptDisk: null,
    autopay: null,
    graceDays: 7,
    now: NOW,
    ...input,
  });

describe('machineView: START on the dashboard', () => {
  it('offers START for a stopped machine with hours and a plan in force, and says why not otherwise', () => {
    expect(view({ machine: machine('stopped') })).toMatchObject({ canStart: true, startBlocked: null });
    expect(view({ machine: machine('stopped', { usageSeconds: 30 * 3600 }) })).toMatchObject({
      canStart: false,
      startBlocked: VM_MESSAGES.outOfHours,
    });
    expect(view({ machine: machine('running') })).toMatchObject({ canStart: false, startBlocked: null });
  });
});

describe('machineView: the notice', () => {
  it.each<[string, Partial<MachineViewInput>, string | null]>([
    [
      'a failed machine says its problem',
      { machine: machine('error', { problem: 'It broke.' }) },
      'It broke.',
    ],
    ['a late setup says so', { machine: machine('provisioning', { delayed: true }) }, VM_MESSAGES.delayed],
    [
      'Remote Desktop not answering yet',
      { machine: machine('provisioning', { remoteDesktopWaitingSince: at(-60_000) }) },
      VM_MESSAGES.waitingForRemoteDesktop,
    ],
    [
      'a plan change under way',
      { machine: machine('stopped', { stateReason: 'plan-change' }) },
      VM_MESSAGES.planChange,
    ],
    [
      'a start refused for no capacity says so while stopped',
      { machine: machine('stopped', { problem: VM_MESSAGES.startGaveUp }) },
      VM_MESSAGES.startGaveUp,
    ],
    ['hours used up', { machine: machine('stopped', { usageSeconds: 30 * 3600 }) }, VM_MESSAGES.outOfHours],
    ['all is well', { machine: machine('running') }, null],
    ['no plan, nothing to say', { machine: null, plan: null }, null],
  ])('%s', (_name, input, expected) => {
    expect(view(input).notice).toBe(expected);
  });
});

describe('machineView: what is kept of an ended plan', () => {
  const ended = plan({ status: 'expired', expiresAt: at(-DAY) });

  it('promises the date a stopped machine of an ended plan is kept until', () => {
    expect(view({ plan: ended, machine: machine('stopped') }).keptUntil).toBe(at(6 * DAY).getTime());
  });

  it('promises no date for a machine that is gone: deleted, being deleted, or failed', () => {
    // A failed machine is never the one a renewal gets back (a new machine is made) and plan
    // expiry never deletes it: a "kept until" date for it would be a promise nobody keeps. The
    // plan-end banner already read it so (`machineKept`); the date now agrees with it.
    for (const state of ['terminating', 'terminated', 'error'] as const) {
      const shown = view({ plan: ended, machine: machine(state) });
      expect(shown.keptUntil, state).toBeNull();
    }
  });
});
