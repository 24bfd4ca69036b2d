import {
  claimPoolInstance,
  findPoolInstance,
  markPoolFailed,
  markPoolFirstBoot,
  markPoolReady,
  recordPoolLaunch,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { withTryLock } from '../../core/db/locks.ts';
import { assignPoolInstance, type Vm } from '../../core/db/vms.ts';
import { assertNever } from '../../core/domain/assertNever.ts';
import { type CloudView } from '../../core/domain/machineDecision.ts';
import {
  decidePoolInstance,
  poolStepPlace,
  type PoolDecision,
  type PoolInput,
} from '../../core/domain/poolInstance.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { sendJob } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { cloudView, limitsOf, observeInstances, poolFacts } from './inputs.ts';
import { capturePassword } from './password.ts';
import { holdPool, poolRecovered } from '../../core/commands/poolHolds.ts';
import type { Step } from './step.ts';

/**
 * The warm pool's instances: claimed by a new machine, and taken through first boot, password
 * capture and the stop (or discarded) by the same interpreter as a machine. How many spares to
 * keep is the pool's sizing rule, not this.
 */

/** Steps one call may take; a loop would be a bug. */
const MAX_STEPS = 8;

class ClaimLost extends Error {}

/** A ready warm-pool spare for a new machine: the claim (SKIP LOCKED) and the machine's transition in one transaction, with a pool top-up enqueued. */
export const claimPool: Step<'claim-pool'> = async ({ deps, vm, log, now }) => {
  const claimed = await claimFromPool(deps, vm, now);
  if (!claimed) return { lastTry: 'no-spare' };
  log.info({ instanceId: claimed.instance_id }, 'lifecycle: warm-pool instance claimed');
  // Ownership is written; the tags and the start follow as their own steps, so a crash
  // between any two leaves a row the next run carries on from.
  return { observeAgain: true, outcome: 'claimed-pool' };
};

async function claimFromPool(deps: WorkerDeps, vm: Vm, now: Date): Promise<Vm | null> {
  try {
    return await deps.db.transaction(async (trx) => {
      const pool = await claimPoolInstance(
        trx,
        { planId: vm.plan_id, instanceType: vm.instance_type, storageGb: vm.storage_gb },
        vm.id,
        now,
      );
      if (!pool?.instance_id || !pool.password_encrypted) return null;
      const assigned = await assignPoolInstance(
        trx,
        vm.id,
        {
          instanceId: pool.instance_id,
          imageId: pool.image_id,
          subnetId: pool.subnet_id,
          availabilityZone: pool.availability_zone,
          passwordEncrypted: pool.password_encrypted,
        },
        now,
      );
      // The machine moved on meanwhile: roll the claim back, the instance stays in the pool.
      if (!assigned) throw new ClaimLost();
      await sendJob(deps.boss, 'pool-replenish', {}, { db: trx });
      return assigned;
    });
  } catch (error) {
    if (error instanceof ClaimLost) return null;
    throw error;
  }
}

type PoolFactsNow = Omit<PoolInput, 'pool' | 'now' | 'limits'>;

/** Takes a warm-pool instance as far as it goes now: first boot, password, stop; failed when its instance is gone. */
export async function advancePoolInstance(
  deps: WorkerDeps,
  start: PoolInstance,
  instance: Ec2Instance | null | undefined,
  now: Date = new Date(),
): Promise<PoolDecision> {
  let row = start;
  let facts: PoolFactsNow = { cloud: instance === undefined ? undefined : cloudView(instance) };
  for (let i = 0; i < MAX_STEPS; i += 1) {
    const decide = (current: PoolInstance) =>
      decidePoolInstance({ ...facts, pool: poolFacts(current), now, limits: limitsOf() });
    const decision = decide(row);
    const place = poolStepPlace(decision);
    switch (place) {
      case 'end':
      case 'retry':
        return decision;
      case 'look':
        facts = { cloud: row.instance_id ? await observe(deps, row.instance_id) : null };
        continue;
      case 'row':
        await poolRowStep(deps, row, decision, now);
        return decision;
      case 'cloud': {
        const held = await withTryLock(deps.db, `pool:${row.id}`, async () => {
          const fresh = await findPoolInstance(deps.db, row.id);
          // Moved on meanwhile (or gone): decided again outside the lock.
          if (!fresh || decide(fresh).kind !== decision.kind) return { row: fresh, facts };
          return { row: fresh, facts: await poolCloudStep(deps, fresh, decision, facts.cloud, now) };
        });
        if (!held) return { kind: 'wait', reason: 'another worker is acting on this pool instance' };
        if (!held.value.row) return { kind: 'nothing', reason: 'the pool row is gone' };
        facts = held.value.facts;
        row = (await findPoolInstance(deps.db, row.id)) ?? held.value.row;
        continue;
      }
      default:
        return assertNever(place);
    }
  }
  throw new Error(`lifecycle: pool instance ${row.id} took more than ${MAX_STEPS} steps`);
}

async function observe(deps: WorkerDeps, instanceId: string): Promise<CloudView> {
  return cloudView((await observeInstances(deps, [instanceId])).get(instanceId));
}

async function poolRowStep(
  deps: WorkerDeps,
  row: PoolInstance,
  decision: PoolDecision,
  now: Date,
): Promise<void> {
  if (decision.kind === 'fail') await markPoolFailed(deps.db, row.id, decision.reason, now);
  if (decision.kind === 'mark-ready' && (await markPoolReady(deps.db, row.id, now)))
    await poolRecovered(deps, row.plan_id);
}

/** The EC2 side of a pool decision, under the pool row's lock, on the freshly read row. */
async function poolCloudStep(
  deps: WorkerDeps,
  row: PoolInstance,
  decision: PoolDecision,
  cloud: CloudView | undefined,
  now: Date,
): Promise<PoolFactsNow> {
  const ec2 = deps.vmEc2.ec2;
  switch (decision.kind) {
    case 'adopt': {
      const found = (await ec2.findByClientTokens([row.id])).get(row.id);
      if (!found) return { cloud, lastTry: 'nothing-adopted' };
      await recordPoolLaunch(deps.db, row.id, found, now);
      return { cloud: cloudView(found) };
    }
    case 'stop': {
      if (!row.instance_id) return { cloud };
      const change = await ec2.stopInstance(row.instance_id);
      return { cloud: cloud && { ...cloud, state: change.current } };
    }
    case 'capture-password': {
      if (!row.instance_id) return { cloud };
      const captured = await capturePassword(deps, ec2, row.instance_id);
      if (captured.status === 'not-ready') return { cloud, lastTry: 'password-not-ready' };
      if (captured.status === 'undecryptable')
        return { cloud, lastTry: 'password-undecryptable', problem: captured.message };
      // First boot is done and the password kept: it is stopped until a customer claims it (a
      // hot one is ready as it is).
      const booted = await markPoolFirstBoot(deps.db, row.id, captured.sealed, now);
      if (booted?.state === 'ready') await poolRecovered(deps, row.plan_id);
      return { cloud };
    }
    case 'discard': {
      if (!row.instance_id) return { cloud };
      // It never will be usable: no longer ours (terminated now), and the next one would fail the
      // same way: the plan's pool is held (with its alert) instead of launching another at once.
      if (await markPoolFailed(deps.db, row.id, decision.reason, now)) {
        await holdPool(
          deps,
          { planId: row.plan_id, poolInstanceId: row.id, instanceId: row.instance_id },
          decision.why === 'first-boot' ? 'image-fault' : 'password-undecryptable',
          discardDetail(row, decision),
          now,
        );
        await ec2.terminateInstance(row.instance_id);
      }
      return { cloud };
    }
    default:
      return { cloud };
  }
}

/** What the hold's alert says failed: the spare, and the check that failed (the capture's words). */
function discardDetail(row: PoolInstance, decision: Extract<PoolDecision, { kind: 'discard' }>): string {
  return `Spare ${row.instance_id} was terminated: ${decision.reason}`;
}
