/**
 * A warm-pool spare's own small lifecycle: `launching → stopping → ready → claimed`, or
 * `failed`. How many spares to keep is the pool's sizing rule (pool.ts), not this.
 */
import { assertNever } from './assertNever.ts';
import type { FollowUp } from './lifecycle.ts';
import type { LastTry } from './lastTry.ts';
import { launchErrorHoldCause, type PoolHoldCause } from './launchBudget.ts';
import {
  missingTooLong,
  type CloudView,
  type LifecycleLimits,
  type LiveCloudState,
  type Mode,
  type Plain,
  type StepRule,
} from './machineDecision.ts';
import type { Instant } from './time.ts';

/**
 * A spare whose Windows has not finished its first boot this long after launch never will (a bad
 * image, a broken first-boot agent): it is failed, so its instance is no longer ours and the
 * reconciler terminates it (with an alert), instead of billing forever in `launching` and holding
 * a place in the pool. A first boot takes minutes; this leaves a wide margin.
 */
export const POOL_FIRST_BOOT_DEADLINE_MS = 45 * 60_000;

function firstBootOverdue(launchedAt: Instant | null, now: Instant): boolean {
  return missingTooLong(launchedAt, now, POOL_FIRST_BOOT_DEADLINE_MS);
}

/** Warm-pool instances: `launching → stopping → ready → claimed`, or `failed`. */
export const POOL_STATES = ['launching', 'stopping', 'ready', 'claimed', 'failed'] as const;

export type PoolState = (typeof POOL_STATES)[number];

export type PoolFacts = {
  state: PoolState;
  /** A hot spare is kept running once ready; the others are kept stopped. */
  hot: boolean;
  instanceId: string | null;
  launchAttempts: number;
  launchedAt: Instant | null;
};

/**
 * - observe: a look; launch / adopt / capture-password / stop: EC2 under the pool row's lock
 *   (a launch only when `pool-replenish` grants one: the sweep leaves it to its job);
 * - discard: the spare never will be usable (first boot overdue, or its password cannot be
 *   decrypted): an operator is alerted, the row failed and the instance terminated at once;
 * - hold: RunInstances refused it for a reason the next launch would repeat (a permission, the
 *   image): the row fails and the plan's pool is held;
 * - mark-ready / fail / give-up-launch / launch-later: row transitions (a failed row's instance is
 *   terminated by the reconciler; a failed launch is noted and left to the next replenish).
 */
export type PoolDecision =
  | Plain<
      | 'nothing'
      | 'wait'
      | 'observe'
      | 'launch'
      | 'adopt'
      | 'capture-password'
      | 'stop'
      | 'mark-ready'
      | 'fail'
      | 'give-up-launch'
      | 'launch-later'
    >
  | { kind: 'discard'; reason: string; why: 'first-boot' | 'password-undecryptable' }
  | { kind: 'hold'; reason: string; cause: PoolHoldCause };

export type PoolInput = {
  pool: PoolFacts;
  cloud: CloudView | undefined;
  /** What the previous step of this run came to. */
  lastTry?: LastTry | undefined;
  /** What EC2 answered when it refused the launch (`launch-failed`). */
  launchFault?: { code: string; message: string } | undefined;
  /** The capture's words when the password cannot be decrypted. */
  problem?: string | undefined;
  now: Instant;
  limits: Pick<LifecycleLimits, 'missingGraceMs' | 'maxLaunchAttempts'>;
};

/** A spare customers can claim: the end of its pool's hold, when there was one. */
export function spareReady(state: PoolState): boolean {
  switch (state) {
    case 'ready':
      return true;
    case 'launching':
    case 'stopping':
    case 'claimed':
    case 'failed':
      return false;
    default:
      return assertNever(state);
  }
}

/** Where a spare's step is carried out, and whether the sweep may take it (a launch is `pool-replenish`'s). */
export function poolStepRule(decision: PoolDecision): StepRule {
  switch (decision.kind) {
    case 'nothing':
    case 'wait':
      return { place: 'end', sweep: true, then: 'end' };
    case 'observe':
      return { place: 'look', sweep: true, then: 'go-on' };
    case 'launch':
      return { place: 'cloud', sweep: false, then: 'go-on' };
    case 'adopt':
    case 'capture-password':
    case 'stop':
    case 'discard':
      return { place: 'cloud', sweep: true, then: 'go-on' };
    case 'mark-ready':
    case 'fail':
    case 'hold':
    case 'give-up-launch':
    case 'launch-later':
      return { place: 'row', sweep: true, then: 'end' };
    default:
      return assertNever(decision);
  }
}

/** The next step for a spare as `mode` may take it: a sweep leaves the launch to `pool-replenish`. */
export function nextPoolStep(input: PoolInput, mode: Mode): PoolDecision {
  const decision = decidePoolInstance(input);
  if (mode === 'sweep' && !poolStepRule(decision).sweep)
    return { kind: 'wait', reason: `${decision.reason} (left to pool-replenish)` };
  return decision;
}

function decidePoolInstance(input: PoolInput): PoolDecision {
  const { pool, cloud, now, limits } = input;
  switch (pool.state) {
    case 'claimed':
    case 'failed':
      return { kind: 'nothing', reason: `pool instance ${pool.state}` };
    case 'launching':
    case 'stopping':
    case 'ready':
      break;
    default:
      return assertNever(pool.state);
  }
  if (!pool.instanceId)
    return pool.state === 'launching'
      ? decideSpareLaunch(input)
      : { kind: 'wait', reason: 'waiting for its launch' };
  if (cloud === undefined) return { kind: 'observe', reason: 'what does EC2 say?' };
  if (cloud === null)
    return missingTooLong(pool.launchedAt, now, limits.missingGraceMs)
      ? { kind: 'fail', reason: 'EC2 does not know the instance' }
      : { kind: 'wait', reason: 'the instance is not listed yet' };
  switch (cloud.state) {
    case 'shutting-down':
    case 'terminated':
      return { kind: 'fail', reason: `the instance is ${cloud.state}` };
    case 'pending':
    case 'running':
    case 'stopping':
    case 'stopped':
      break;
    default:
      return assertNever(cloud.state);
  }
  const state = cloud.state;
  switch (pool.state) {
    case 'launching':
      return decideFirstBoot(input, state);
    case 'stopping':
      switch (state) {
        case 'stopped':
          return { kind: 'mark-ready', reason: 'first boot done and stopped' };
        case 'running':
          return { kind: 'stop', reason: 'first boot done; a spare waits stopped' };
        case 'pending':
        case 'stopping':
          return { kind: 'wait', reason: `the instance is ${state}` };
        default:
          return assertNever(state);
      }
    case 'ready':
      switch (state) {
        case 'running':
          return pool.hot
            ? { kind: 'nothing', reason: `ready, hot (${state})` }
            : { kind: 'stop', reason: 'a ready spare must be stopped (it was started outside us)' };
        case 'pending':
        case 'stopping':
        case 'stopped':
          return { kind: 'nothing', reason: pool.hot ? `ready, hot (${state})` : 'ready' };
        default:
          return assertNever(state);
      }
    default:
      return assertNever(pool.state);
  }
}

/**
 * A spare without an instance: launched (RunInstances with its row id as ClientToken, so a
 * repeat is the same instance), an earlier launch whose answer was lost adopted first; a refusal
 * the next launch would repeat holds the plan's pool; other failures are left to the next
 * replenish until the launch budget is spent.
 */
function decideSpareLaunch(input: PoolInput): PoolDecision {
  const { pool, limits } = input;
  switch (input.lastTry) {
    case 'launch-failed': {
      const fault = input.launchFault;
      const cause = fault ? launchErrorHoldCause(fault.code, fault.message) : null;
      if (cause)
        return {
          kind: 'hold',
          reason: `RunInstances refused it for a reason the next one repeats (${cause})`,
          cause,
        };
      return pool.launchAttempts >= limits.maxLaunchAttempts
        ? { kind: 'give-up-launch', reason: `no instance after ${pool.launchAttempts} launch attempts` }
        : {
            kind: 'launch-later',
            reason: `launch attempt ${pool.launchAttempts} failed: the next replenish tries again`,
          };
    }
    case 'nothing-adopted':
      return {
        kind: 'launch',
        reason: 'its launch is not known to EC2: launched again (the same ClientToken, so at most one)',
      };
    case undefined:
    case 'no-spare':
    case 'start-failed':
    case 'not-startable-yet':
    case 'stop-refused':
    case 'password-not-ready':
    case 'password-undecryptable':
    case 'name-failed':
    case 'instance-not-found':
      return pool.launchAttempts === 0
        ? { kind: 'launch', reason: 'a new spare: launch it' }
        : {
            kind: 'adopt',
            reason: 'a launch was sent but its answer was not recorded: find it by ClientToken',
          };
    default:
      return assertNever(input.lastTry);
  }
}

/**
 * A launched spare on its first boot. Running: the password says whether the first boot is done;
 * never done (or never running) past the deadline: the spare goes.
 */
function decideFirstBoot(input: PoolInput, state: LiveCloudState): PoolDecision {
  const { pool, now } = input;
  switch (input.lastTry) {
    case 'password-undecryptable':
      return {
        kind: 'discard',
        reason: input.problem ?? 'the password cannot be decrypted',
        why: 'password-undecryptable',
      };
    case 'password-not-ready':
      return firstBootOverdue(pool.launchedAt, now)
        ? {
            kind: 'discard',
            reason: `first boot not done ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`,
            why: 'first-boot',
          }
        : { kind: 'wait', reason: 'first boot not done' };
    case undefined:
    case 'no-spare':
    case 'nothing-adopted':
    case 'launch-failed':
    case 'start-failed':
    case 'not-startable-yet':
    case 'stop-refused':
    case 'name-failed':
    case 'instance-not-found':
      break;
    default:
      return assertNever(input.lastTry);
  }
  switch (state) {
    case 'running':
      return { kind: 'capture-password', reason: 'running: is the first boot done?' };
    case 'pending':
    case 'stopping':
    case 'stopped':
      return firstBootOverdue(pool.launchedAt, now)
        ? {
            kind: 'fail',
            reason: `still ${state} ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`,
          }
        : { kind: 'wait', reason: `the instance is ${state}` };
    default:
      return assertNever(state);
  }
}

/** A warm-pool spare is looked at again soon while its first boot or its stop is under way (up to the same bound). */
export function poolFollowUp(state: string, checks: { count: number; limit: number }): FollowUp {
  return (state === 'launching' || state === 'stopping') && checks.count <= checks.limit
    ? { kind: 'check-again' }
    : { kind: 'none' };
}
