import { describe, expect, it } from 'vitest';
import {
  PROVISION_DELAY_WORDS,
  provisionDelayCause,
  provisionDelayOperatorWords,
  type LateMachineFacts,
} from './provisionDelay.ts';

const facts = (overrides: Partial<LateMachineFacts>): LateMachineFacts => ({
  hasInstance: false,
  passwordStored: false,
  failure: null,
  ...overrides,
});
const failing = (action: string, code: string) => ({ action, code });

describe('provisionDelayCause: the real cause, from the rows', () => {
  it.each([
    [
      'launches refused for capacity',
      facts({ failure: failing('RunInstances', 'InsufficientInstanceCapacity') }),
      'no-capacity',
    ],
    ['the vCPU quota', facts({ failure: failing('RunInstances', 'VcpuLimitExceeded') }), 'no-capacity'],
    ['no instance yet, nothing failing', facts({}), 'no-capacity'],
    [
      'IAM refuses the launch',
      facts({ failure: failing('RunInstances', 'UnauthorizedOperation') }),
      'permission',
    ],
    [
      'the image is refused for now',
      facts({ failure: failing('RunInstances', 'InvalidAMIID.Unavailable') }),
      'image-preparing',
    ],
    ['running, first boot not done', facts({ hasInstance: true }), 'password-not-ready'],
    [
      'running all along, the password does not decrypt',
      facts({ hasInstance: true, failure: failing('GetPasswordData', 'PasswordUndecryptable') }),
      'password-not-ready',
    ],
    [
      'password stored, Remote Desktop not answering',
      facts({ hasInstance: true, passwordStored: true }),
      'image-preparing',
    ],
  ] as const)('%s → %s', (_name, input, cause) => {
    expect(provisionDelayCause(input)).toBe(cause);
  });

  it('tells the customer each cause in its own words, never blaming capacity for the password', () => {
    expect(PROVISION_DELAY_WORDS['password-not-ready']).not.toMatch(/no free machine/);
    expect(PROVISION_DELAY_WORDS['password-not-ready']).toMatch(/running/);
    expect(PROVISION_DELAY_WORDS['no-capacity']).toMatch(/no free machine/);
    expect(PROVISION_DELAY_WORDS.permission).toMatch(/We are on it/);
    expect(new Set(Object.values(PROVISION_DELAY_WORDS)).size).toBe(4);
  });

  it('tells the operator the cause, the failing action and where to look', () => {
    const words = provisionDelayOperatorWords('password-not-ready', {
      ...facts({ hasInstance: true, failure: failing('GetPasswordData', 'PasswordUndecryptable') }),
      minutes: 5,
      instanceType: 'g4dn.xlarge',
      launchAttempts: 1,
    });
    expect(words).toMatch(/EC2_PRIVATE_KEY_PEM/);
    expect(words).toMatch(/GetPasswordData \(PasswordUndecryptable\)/);
  });
});
