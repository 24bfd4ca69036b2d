import { describe, expect, it } from 'vitest';
import { handoverNotice, handoverStatus, pendingHandover } from './planHandover.ts';

const plan = { inForce: true, subscriptionId: 'new' };

describe('the handover of a machine to a just-paid plan', () => {
  it('is pending while a live machine still serves the earlier subscription', () => {
    for (const state of ['requested', 'provisioning', 'starting', 'running', 'stopping', 'stopped']) {
      expect(pendingHandover(plan, { subscriptionId: 'trial', state }, true)).toBe('from-trial');
    }
    expect(pendingHandover(plan, { subscriptionId: 'old', state: 'stopped' }, false)).toBe('renewal');
  });

  it('is over once the machine serves the plan, and never for a gone machine or a plan not in force', () => {
    expect(pendingHandover(plan, { subscriptionId: 'new', state: 'running' }, true)).toBeNull();
    for (const state of ['terminating', 'terminated', 'error']) {
      expect(pendingHandover(plan, { subscriptionId: 'trial', state }, true)).toBeNull();
    }
    expect(
      pendingHandover({ ...plan, inForce: false }, { subscriptionId: 'old', state: 'stopped' }, false),
    ).toBeNull();
    expect(pendingHandover(plan, null, true)).toBeNull();
  });

  it('says Upgrading… from a trial, and that its unused minutes end', () => {
    expect(handoverStatus('from-trial')).toBe('Upgrading…');
    expect(handoverNotice('from-trial')).toContain('its unused minutes end now');
    expect(handoverStatus('renewal')).toBe('Getting ready for your new plan…');
  });
});
