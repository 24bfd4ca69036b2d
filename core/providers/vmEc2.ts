import type { Ec2Config } from '../config/vmConfig.ts';
import { createEc2Client, type Ec2 } from './ec2.ts';

/**
 * The EC2 clients the cloud-PC jobs use, built once per worker.
 *
 * - `ec2`: the SDK retries throttling and 5xx a couple of times; fine for reads, stops and
 *   terminations, which are idempotent.
 * - `launcher`: one attempt only, for RunInstances and StartInstances. The SDK treats
 *   InsufficientInstanceCapacity as a retryable server error and would spend the job's time
 *   hammering one subnet; the job owns the backoff and the move to the fallback subnet.
 */
export type VmEc2 = { ec2: Ec2; launcher: Ec2; destroy(): void };

export function createVmEc2(config: Ec2Config): VmEc2 {
  const base = {
    region: config.region,
    endpoint: config.endpoint,
    credentials: config.credentials,
    instanceProfile: config.instanceProfile,
    requestTimeoutMs: 30_000,
  };
  const ec2 = createEc2Client({ ...base, maxAttempts: 3 });
  const launcher = createEc2Client({ ...base, maxAttempts: 1 });
  return {
    ec2,
    launcher,
    destroy() {
      ec2.destroy();
      launcher.destroy();
    },
  };
}

/** Tag keys on every instance we launch. Owner is our user id: AWS asks for no personal data in tags. */
export const TAGS = {
  app: 'legend:app',
  deployment: 'legend:deployment',
  vm: 'legend:vm',
  owner: 'legend:owner',
  pool: 'legend:pool',
  plan: 'legend:plan',
  snapshot: 'legend:snapshot',
  /** An image smoke run (`npm run aws:smoke`) the instance belongs to. */
  smoke: 'legend:smoke',
} as const;

export const APP_TAG_VALUE = 'legend-cloud';

export function vmTags(
  config: Ec2Config,
  vm: { id: string; userId: string; planId: string },
): Record<string, string> {
  return {
    Name: `legend-vm-${vm.id.slice(0, 8)}`,
    [TAGS.app]: APP_TAG_VALUE,
    [TAGS.deployment]: config.deploymentTag,
    [TAGS.vm]: vm.id,
    [TAGS.owner]: vm.userId,
    [TAGS.plan]: vm.planId,
  };
}

/** A kept disk's snapshot: ours, whose machine and owner, and its row (how a lost answer is found). */
export function snapshotTags(
  config: Ec2Config,
  snapshot: { id: string; vmId: string; userId: string },
): Record<string, string> {
  return {
    Name: `legend-disk-${snapshot.vmId.slice(0, 8)}`,
    [TAGS.app]: APP_TAG_VALUE,
    [TAGS.deployment]: config.deploymentTag,
    [TAGS.snapshot]: snapshot.id,
    [TAGS.vm]: snapshot.vmId,
    [TAGS.owner]: snapshot.userId,
  };
}

export function poolTags(config: Ec2Config, pool: { id: string; planId: string }): Record<string, string> {
  return {
    Name: `legend-pool-${pool.planId}-${pool.id.slice(0, 8)}`,
    [TAGS.app]: APP_TAG_VALUE,
    [TAGS.deployment]: config.deploymentTag,
    [TAGS.pool]: pool.id,
    [TAGS.plan]: pool.planId,
  };
}

/** An image smoke run's machine: ours (so the worker's role may launch and terminate it), and its run. */
export function smokeTags(config: Ec2Config, run: { id: string; planId: string }): Record<string, string> {
  return {
    Name: `legend-smoke-${run.planId}-${run.id.slice(0, 8)}`,
    [TAGS.app]: APP_TAG_VALUE,
    [TAGS.deployment]: config.deploymentTag,
    [TAGS.smoke]: run.id,
    [TAGS.plan]: run.planId,
  };
}
