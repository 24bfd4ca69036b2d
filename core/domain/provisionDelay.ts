/**
 * Why a machine is late (PROVISION_DEADLINE_MINUTES passed without it being ready), named from
 * what the rows record, with words for the customer and words for the operator. Saying "there is
 * no free machine of this kind" when the machine has been running all along, held up by its
 * password, is not the truth.
 */

/**
 * - no-capacity: EC2 refuses the launch or the start for capacity or an account limit;
 * - image-preparing: EC2 refuses the plan's image for now, or Windows is up but not yet
 *   answering Remote Desktop;
 * - password-not-ready: the instance runs but its Windows password is not there (first boot not
 *   done), or does not decrypt with our key;
 * - permission: AWS refuses us an action (IAM), an operator problem.
 */
export const PROVISION_DELAY_CAUSES = [
  'no-capacity',
  'image-preparing',
  'password-not-ready',
  'permission',
] as const;
export type ProvisionDelayCause = (typeof PROVISION_DELAY_CAUSES)[number];

/** What the rows say of a late machine. */
export type LateMachineFacts = {
  hasInstance: boolean;
  passwordStored: boolean;
  /** Its latest failing step, if it is failing: the EC2 action and AWS's error code. */
  failure: { action: string; code: string } | null;
};

const CAPACITY = /^(Insufficient\w*Capacity|Unsupported|VcpuLimitExceeded|InstanceLimitExceeded)$/;
const PERMISSION = /^(UnauthorizedOperation|AccessDenied(Exception)?|AuthFailure)$/;
const IMAGE = /^(InvalidAMIID\.|InvalidAMIName\.)/;

export function provisionDelayCause(facts: LateMachineFacts): ProvisionDelayCause {
  const code = facts.failure?.code ?? '';
  if (PERMISSION.test(code)) return 'permission';
  if (IMAGE.test(code)) return 'image-preparing';
  if (CAPACITY.test(code)) return 'no-capacity';
  if (code === 'PasswordUndecryptable') return 'password-not-ready';
  if (!facts.hasInstance) return 'no-capacity';
  if (!facts.passwordStored) return 'password-not-ready';
  return 'image-preparing';
}

/** The dashboard's and the mail's sentence about the delay (the customer's hours have not started). */
export const PROVISION_DELAY_WORDS: Record<ProvisionDelayCause, string> = {
  'no-capacity':
    'Setting up your PC is taking longer than usual: there is no free machine of this kind in our region right now. We keep trying and will email you as soon as it is ready. Your hours have not started.',
  'image-preparing':
    'Setting up your PC is taking longer than usual: Windows on it is still preparing itself. We will email you as soon as it is ready. Your hours have not started.',
  'password-not-ready':
    'Setting up your PC is taking longer than usual: your machine is running, but Windows has not given us its password yet. We are on it and will email you as soon as it is ready. Your hours have not started.',
  permission:
    'Setting up your PC is taking longer than usual because of a problem on our side. We are on it and will email you as soon as it is ready. Your hours have not started.',
};

/** The operator's sentence: what is holding the machine up and where to look. */
export function provisionDelayOperatorWords(
  cause: ProvisionDelayCause,
  facts: LateMachineFacts & { minutes: number; instanceType: string; launchAttempts: number },
): string {
  const failing = facts.failure ? ` Last failing step: ${facts.failure.action} (${facts.failure.code}).` : '';
  const late = `No machine after ${facts.minutes} minutes (${facts.instanceType}, ${facts.launchAttempts} launch attempts).`;
  switch (cause) {
    case 'no-capacity':
      return `${late} Cause: no capacity — EC2 has no ${facts.instanceType} for us in the subnets tried, or the vCPU quota is reached; the launch goes on in the fallback subnets.${failing}`;
    case 'image-preparing':
      return `${late} Cause: the image — ${facts.failure ? "EC2 refuses the plan's image (check EC2_AMI_*: npm run aws:check)" : 'the instance runs with its password, but Remote Desktop does not answer yet'}.${failing}`;
    case 'password-not-ready':
      return `${late} Cause: the password — ${facts.failure?.code === 'PasswordUndecryptable' ? 'it does not decrypt with EC2_PRIVATE_KEY_PEM (see the password-undecryptable alert)' : "the instance runs, but Windows' first boot has not produced its password yet"}.${failing}`;
    case 'permission':
      return `${late} Cause: permission — AWS refuses an action: attach infra/iam/worker-policy.json to the worker role (npm run aws:check).${failing}`;
  }
}
