/**
 * A warm-pool spare's own small lifecycle: `launching → stopping → ready → claimed`, or
 * `failed`. How many spares to keep is the pool's sizing rule (pool.ts), not this.
 */
import { assertNever } from './assertNever.ts';
import type { FollowUp } from './lifecycle.ts';
import {
  gone,
  missingTooLong,
  type CloudView,
  type LastTry,
  type LifecycleLimits,
  type Plain,
  type StepPlace,
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
 * - observe: a look; adopt / capture-password / stop: EC2 under the pool row's lock;
 * - discard: the spare never will be usable (first boot overdue, or its password cannot be
 *   decrypted): an operator is alerted, the row failed and the instance terminated at once;
 * - mark-ready / fail: row transitions (a failed row's instance is terminated by the reconciler).
 */
export type PoolDecision =
  | Plain<'nothing' | 'wait' | 'observe' | 'adopt' | 'capture-password' | 'stop' | 'mark-ready' | 'fail'>
  | { kind: 'discard'; reason: string; why: 'first-boot' | 'password-undecryptable' };

export type PoolInput = {
  pool: PoolFacts;
  cloud: CloudView | undefined;
  /** What the previous step of this run came to. */
  lastTry?: Extract<LastTry, 'nothing-adopted' | 'password-not-ready' | 'password-undecryptable'> | undefined;
  /** The capture's words when the password cannot be decrypted. */
  problem?: string | undefined;
  now: Instant;
  limits: Pick<LifecycleLimits, 'missingGraceMs'>;
};

export function poolStepPlace(decision: PoolDecision): StepPlace {
  switch (decision.kind) {
    case 'nothing':
    case 'wait':
      return 'end';
    case 'observe':
      return 'look';
    case 'adopt':
    case 'capture-password':
    case 'stop':
    case 'discard':
      return 'cloud';
    case 'mark-ready':
    case 'fail':
      return 'row';
    default:
      return assertNever(decision);
  }
}

export function decidePoolInstance(input: PoolInput): PoolDecision {
  const { pool, cloud, now, limits, lastTry } = input;
  if (pool.state === 'claimed' || pool.state === 'failed')
    return { kind: 'nothing', reason: `pool instance ${pool.state}` };
  if (!pool.instanceId) {
    if (pool.state !== 'launching' || pool.launchAttempts === 0)
      return { kind: 'wait', reason: 'waiting for its launch' };
    return lastTry === 'nothing-adopted'
      ? { kind: 'wait', reason: 'its launch is not known to EC2; the next replenish launches it' }
      : {
          kind: 'adopt',
          reason: 'a launch was sent but its answer was not recorded: find it by ClientToken',
        };
  }
  if (cloud === undefined) return { kind: 'observe', reason: 'what does EC2 say?' };
  if (cloud === null) {
    return missingTooLong(pool.launchedAt, now, limits.missingGraceMs)
      ? { kind: 'fail', reason: 'EC2 does not know the instance' }
      : { kind: 'wait', reason: 'the instance is not listed yet' };
  }
  if (gone(cloud)) return { kind: 'fail', reason: `the instance is ${cloud.state}` };
  switch (pool.state) {
    case 'launching':
      // Running: the password says whether the first boot is done; never done (or never
      // running) past the deadline: the spare goes.
      if (lastTry === 'password-undecryptable')
        return {
          kind: 'discard',
          reason: input.problem ?? 'the password cannot be decrypted',
          why: 'password-undecryptable',
        };
      if (lastTry === 'password-not-ready')
        return firstBootOverdue(pool.launchedAt, now)
          ? {
              kind: 'discard',
              reason: `first boot not done ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`,
              why: 'first-boot',
            }
          : { kind: 'wait', reason: 'first boot not done' };
      if (cloud.state === 'running')
        return { kind: 'capture-password', reason: 'running: is the first boot done?' };
      return firstBootOverdue(pool.launchedAt, now)
        ? {
            kind: 'fail',
            reason: `still ${cloud.state} ${POOL_FIRST_BOOT_DEADLINE_MS / 60_000} minutes after launch`,
          }
        : { kind: 'wait', reason: `the instance is ${cloud.state}` };
    case 'stopping':
      if (cloud.state === 'stopped') return { kind: 'mark-ready', reason: 'first boot done and stopped' };
      return cloud.state === 'running'
        ? { kind: 'stop', reason: 'first boot done; a spare waits stopped' }
        : { kind: 'wait', reason: `the instance is ${cloud.state}` };
    case 'ready':
      return cloud.state === 'running' && !pool.hot
        ? { kind: 'stop', reason: 'a ready spare must be stopped (it was started outside us)' }
        : { kind: 'nothing', reason: pool.hot ? `ready, hot (${cloud.state})` : 'ready' };
    default:
      return assertNever(pool.state);
  }
}

/** A warm-pool spare is looked at again soon while its first boot or its stop is under way (up to the same bound). */
export function poolFollowUp(state: string, checks: { count: number; limit: number }): FollowUp {
  return (state === 'launching' || state === 'stopping') && checks.count <= checks.limit
    ? { kind: 'check-again' }
    : { kind: 'none' };
}
