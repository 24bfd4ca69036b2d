import { describe, expect, it } from 'vitest';
import { MACHINE_STATES } from './machineStates.ts';
import { machineDisplayState, startRefusal, stopRefusal, VM_MESSAGES } from './vm.ts';

const NOW = Date.parse('2026-03-10T10:00:00Z');
const plan = (
  overrides: Partial<{ hours: number; usageSeconds: number; status: string; expiresAt: number | null }> = {},
) => ({
  hours: 30,
  usageSeconds: 0,
  status: 'active',
  expiresAt: NOW + 86_400_000,
  ...overrides,
});

describe('startRefusal', () => {
  it('lets a stopped machine with hours and a plan in force start (and a starting one is no error)', () => {
    expect(startRefusal({ state: 'stopped' }, plan(), NOW)).toBeNull();
    expect(startRefusal({ state: 'starting' }, plan(), NOW)).toBeNull();
  });

  it('refuses once the hours are used up (deviation 5)', () => {
    expect(startRefusal({ state: 'stopped' }, plan({ usageSeconds: 30 * 3600 }), NOW)).toEqual({
      status: 409,
      message: VM_MESSAGES.outOfHours,
    });
  });

  it('refuses once the plan has expired, at the expiry instant itself too', () => {
    expect(startRefusal({ state: 'stopped' }, plan({ expiresAt: NOW }), NOW)?.message).toBe(
      VM_MESSAGES.planExpired,
    );
    expect(startRefusal({ state: 'stopped' }, plan({ status: 'expired' }), NOW)?.message).toBe(
      VM_MESSAGES.planExpired,
    );
    expect(startRefusal({ state: 'stopped' }, null, NOW)?.message).toBe(VM_MESSAGES.planExpired);
  });

  it('refuses a second action while one is in flight, and a machine that does not exist', () => {
    expect(startRefusal({ state: 'stopping' }, plan(), NOW)?.message).toBe(VM_MESSAGES.alreadyStopping);
    expect(startRefusal({ state: 'provisioning' }, plan(), NOW)?.message).toBe(VM_MESSAGES.stillProvisioning);
    expect(startRefusal(null, plan(), NOW)).toEqual({ status: 404, message: VM_MESSAGES.noVm });
    expect(startRefusal({ state: 'terminated' }, plan(), NOW)?.status).toBe(404);
  });
});

describe('stopRefusal', () => {
  it('stops a running machine, and answers a stopping or stopped one as it is (asking twice is harmless)', () => {
    expect(stopRefusal({ state: 'running' })).toBeNull();
    expect(stopRefusal({ state: 'stopping' })).toBeNull();
    expect(stopRefusal({ state: 'stopped' })).toBeNull();
  });

  it('refuses every other state with the plain 409, and no machine with 404', () => {
    const others = MACHINE_STATES.filter((state) => !['running', 'stopping', 'stopped'].includes(state));
    expect(others).toHaveLength(6);
    for (const state of others)
      expect(stopRefusal({ state }), state).toEqual({ status: 409, message: VM_MESSAGES.notStoppable });
    expect(stopRefusal(null)).toEqual({ status: 404, message: VM_MESSAGES.noVm });
  });
});

describe('machineDisplayState', () => {
  const shown = (
    state: string | null,
    more: {
      source?: 'pool';
      instanceId?: string;
      planActive?: boolean;
      servesPlan?: boolean;
      handingOver?: boolean;
    } = {},
  ) =>
    machineDisplayState({
      vm:
        state === null
          ? null
          : { state, source: more.source ?? 'launch', instanceId: more.instanceId ?? null },
      servesPlan: more.servesPlan ?? true,
      planActive: more.planActive ?? false,
      handingOver: more.handingOver ?? false,
    });
  it.each<[string, string | null, Parameters<typeof shown>[1], string]>([
    ['a requested machine is being set up', 'requested', {}, 'provisioning'],
    ['a terminating one is stopping', 'terminating', {}, 'stopping'],
    ['running', 'running', {}, 'running'],
    ['no machine', null, {}, 'none'],
    ['an unknown state', 'weird', {}, 'none'],
    ['a claimed spare only needs a start', 'provisioning', { source: 'pool', instanceId: 'i-1' }, 'starting'],
    ['a paid plan without its machine yet', null, { planActive: true }, 'provisioning'],
    [
      'a deleted machine of an old plan, a new plan paid',
      'terminated',
      { planActive: true, servesPlan: false },
      'provisioning',
    ],
    ['a deleted machine, no plan in force', 'terminated', {}, 'terminated'],
    [
      "a trial's running machine handed over to the plan paid during it",
      'running',
      { planActive: true, servesPlan: false, handingOver: true },
      'starting',
    ],
  ])('%s', (_name, state, more, expected) => {
    expect(shown(state, more)).toBe(expected);
  });

  it('keeps the spec strings verbatim', () => {
    expect(VM_MESSAGES.stoppedHint).toBe('After every shut-down, start your VM');
    expect(VM_MESSAGES.startFailed).toBe('Could not start VM. Try again.');
    expect(VM_MESSAGES.fetching).toBe('Fetching…');
    expect(VM_MESSAGES.generating).toBe('Generating…');
  });
});
