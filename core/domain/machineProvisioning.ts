/**
 * A machine being made: `requested → provisioning → running`. A warm-pool spare claimed or an
 * instance launched (adopted by its ClientToken when an answer was lost), tagged, started, its
 * password captured, Remote Desktop answering, its name pointed: then it is ready.
 */
import { assertNever } from './assertNever.ts';
import { machineLaunchAllowed } from './launchBudget.ts';
import { instanceFate, type Decision, type LifecycleInput } from './machineDecision.ts';
import { nameFirst } from './machineName.ts';
import { restoreProgress } from './keptDisk.ts';
import { planInForce } from './planTime.ts';
import { mayClaimSpare } from './pool.ts';

/** A paid plan without a machine yet: launched from the kept copy once it is complete, else a spare claimed first. */
export function decideRequested(input: LifecycleInput): Decision {
  const { plan, now } = input;
  if (!planInForce(plan, now)) return { kind: 'nothing', reason: 'the plan is no longer in force' };
  const restore = input.restore === undefined ? 'ready' : restoreProgress(input.restore);
  if (typeof restore === 'object')
    return {
      kind: 'repoint-restore',
      reason: 'the copy it was to be made from failed: it is made from the copy taken again',
      snapshotId: restore.repointTo,
    };
  if (restore === 'pending')
    return {
      kind: 'wait',
      reason:
        "the copy of the customer's old disk is still being saved: it is launched from it once complete",
    };
  return decideLaunch(input);
}

/**
 * A machine without an instance: a ready warm-pool spare first (never for a machine that
 * brings back a kept disk: it must be launched from it), then an earlier launch adopted, then
 * RunInstances; a failed launch is tried again until the launch budget is spent.
 */
function decideLaunch(input: LifecycleInput): Decision {
  const { machine, lastTry, limits } = input;
  let spareTried = false;
  let adoptTried = false;
  switch (lastTry) {
    case 'launch-failed':
      return machine.launchAttempts >= limits.maxLaunchAttempts
        ? { kind: 'give-up-launch', reason: `no instance after ${machine.launchAttempts} launch attempts` }
        : { kind: 'retry-later', reason: `launch attempt ${machine.launchAttempts} failed` };
    case 'no-spare':
      spareTried = true;
      break;
    case 'nothing-adopted':
      adoptTried = true;
      break;
    case undefined:
    case 'start-failed':
    case 'not-startable-yet':
    case 'stop-refused':
    case 'password-not-ready':
    case 'password-undecryptable':
    case 'name-failed':
    case 'instance-not-found':
      break;
    default:
      return assertNever(lastTry);
  }
  if (
    machine.state === 'requested' &&
    mayClaimSpare({ restoring: machine.restoresDisk === true }) &&
    !spareTried
  )
    return {
      kind: 'claim-pool',
      reason: 'a paid plan has no machine yet: a warm-pool spare is claimed first',
    };
  if (machine.launchAttempts > 0 && !adoptTried)
    return {
      kind: 'adopt',
      reason: 'a launch was sent but its answer was not recorded: find it by ClientToken',
    };
  const budget = input.launchBudget && machineLaunchAllowed(input.launchBudget);
  if (budget?.kind === 'wait')
    return { kind: 'wait-launch-budget', reason: budget.reason, until: budget.until };
  return {
    kind: 'launch',
    reason: adoptTried
      ? 'nothing was launched under its ClientToken: launch (the same token, so at most one)'
      : machine.state === 'requested'
        ? 'a paid plan has no machine yet'
        : 'no instance yet',
  };
}

/** requested → provisioning → running: launch (or claim), adopt, tag, start, password, Remote Desktop, ready. */
export function decideProvisioning(input: LifecycleInput): Decision {
  const { machine, cloud, now, plan } = input;
  if (!machine.instanceId) {
    if (!planInForce(plan, now)) return { kind: 'nothing', reason: 'the plan is no longer in force' };
    return decideLaunch(input);
  }
  if (cloud === undefined) return { kind: 'observe', reason: 'provisioning: what does EC2 say?' };
  const fate = instanceFate(cloud, input, 'provisioning', { since: machine.launchedAt });
  if (fate.kind === 'absent') return fate.decision;
  const there = fate.cloud;
  // A claimed warm-pool instance carries the pool's tags until ours are written.
  if (machine.source === 'pool' && there.vmTag !== machine.id)
    return { kind: 'tag', reason: 'the claimed warm-pool instance still carries the pool tags' };
  switch (there.state) {
    case 'stopped':
      return machine.source === 'pool'
        ? startClaimed(input)
        : { kind: 'lost', reason: 'the new instance stopped during its first boot', during: 'provisioning' };
    case 'pending':
    case 'stopping':
      return { kind: 'wait', reason: `the instance is ${there.state}` };
    case 'running':
      return firstBoot(input, there.publicIp);
    default:
      return assertNever(there.state);
  }
}

/** A claimed warm-pool spare, stopped: started (no hours at stake), retried, or waited for. */
function startClaimed(input: LifecycleInput): Decision {
  switch (input.lastTry) {
    case 'start-failed':
      return { kind: 'retry-later', reason: 'starting the claimed warm-pool instance failed' };
    case 'not-startable-yet':
      return {
        kind: 'wait',
        reason: 'the claimed warm-pool instance is not startable yet; checking again shortly',
      };
    case undefined:
    case 'no-spare':
    case 'nothing-adopted':
    case 'launch-failed':
    case 'stop-refused':
    case 'password-not-ready':
    case 'password-undecryptable':
    case 'name-failed':
    case 'instance-not-found':
      return { kind: 'start-claimed', reason: 'the claimed warm-pool instance is stopped' };
    default:
      return assertNever(input.lastTry);
  }
}

/** Running for the first time: its password, then Remote Desktop, then its name, then ready. */
function firstBoot(input: LifecycleInput, publicIp: string | null): Decision {
  const { machine, lastTry } = input;
  if (!machine.passwordStored) {
    switch (lastTry) {
      case 'password-not-ready':
        return { kind: 'wait', reason: 'Windows has not finished its first boot' };
      case 'password-undecryptable':
        return {
          kind: 'wait',
          reason: 'the Windows password could not be decrypted (an operator is alerted)',
        };
      case undefined:
      case 'no-spare':
      case 'nothing-adopted':
      case 'launch-failed':
      case 'start-failed':
      case 'not-startable-yet':
      case 'stop-refused':
      case 'name-failed':
      case 'instance-not-found':
        return { kind: 'capture-password', reason: 'running: is Windows done with its first boot?' };
      default:
        return assertNever(lastTry);
    }
  }
  if (!publicIp) return { kind: 'wait', reason: 'running, waiting for a public address' };
  switch (input.remoteDesktop) {
    case undefined:
      return { kind: 'probe-remote-desktop', reason: 'password ready: does Remote Desktop answer?' };
    case 'closed':
      return { kind: 'note-remote-desktop-wait', reason: 'waiting for Remote Desktop to answer' };
    case 'open':
      return (
        nameFirst(input.name, publicIp, lastTry) ?? {
          kind: 'mark-ready',
          reason: 'running, password stored, Remote Desktop answers',
          publicIp,
        }
      );
    default:
      return assertNever(input.remoteDesktop);
  }
}

/**
 * What a pool launch or a machine launch is made with: the subnet for the attempt (0-based) —
 * the main subnets for the first attempts (rotating), then the fallback subnets (other
 * availability zones), then both in turn. (The image is the plan's: `imageForPlan`, plans.ts.)
 */
export function subnetForAttempt(
  subnets: { subnetIds: string[]; fallbackSubnetIds: string[] },
  attempt: number,
  beforeFallback: number,
): string {
  const main = subnets.subnetIds;
  const fallback = subnets.fallbackSubnetIds;
  if (attempt < beforeFallback || fallback.length === 0) return main[attempt % main.length] ?? main[0] ?? '';
  const later = [...fallback, ...main];
  return later[(attempt - beforeFallback) % later.length] ?? fallback[0] ?? '';
}
