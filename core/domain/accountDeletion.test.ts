import { describe, expect, it } from 'vitest';
import { DELETION_WORDING, machineLabel, machinesSentence, planLabel } from './accountDeletion.ts';

describe('how the delete dialog names a machine', () => {
  it.each([
    ['requested', 'LEGEND, being set up'],
    ['provisioning', 'LEGEND, being set up'],
    ['starting', 'LEGEND, starting'],
    ['running', 'LEGEND, running'],
    ['stopping', 'LEGEND, stopping'],
    ['stopped', 'LEGEND, stopped'],
    ['error', 'LEGEND, not working'],
  ])('names a %s machine "%s", whatever its plan became', (state, label) => {
    expect(machineLabel({ planId: 'legend', isTrial: false, state })).toBe(label);
  });

  it('names a trial machine after its plan, as a trial', () => {
    expect(machineLabel({ planId: 'pro-legend', isTrial: true, state: 'running' })).toBe(
      'PRO LEGEND trial, running',
    );
    expect(planLabel({ planId: 'ultra-legend', isTrial: true, planName: 'Trial' })).toBe(
      'ULTRA LEGEND trial',
    );
    expect(planLabel({ planId: 'legend', isTrial: false, planName: 'LEGEND' })).toBe('LEGEND');
  });

  it('says one machine, several, or none', () => {
    expect(machinesSentence([{ planId: 'legend', isTrial: false, state: 'stopped' }])).toBe(
      'Terminates your cloud PC (LEGEND, stopped).',
    );
    expect(
      machinesSentence([
        { planId: 'legend', isTrial: false, state: 'stopped' },
        { planId: 'pro-legend', isTrial: true, state: 'running' },
      ]),
    ).toBe('Terminates your 2 cloud PCs (LEGEND, stopped; PRO LEGEND trial, running).');
    expect(machinesSentence([])).toBe(DELETION_WORDING.noMachine);
  });
});
