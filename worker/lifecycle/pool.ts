import {
  claimPoolInstance,
  findPoolInstance,
  markPoolFailed,
  markPoolFirstBoot,
  markPoolReady,
  recordPoolLaunch,
  setPoolProblem,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { withTryLock } from '../../core/db/locks.ts';
import { assignPoolInstance, type Vm } from '../../core/db/vms.ts';
import { assertNever } from '../../core/domain/assertNever.ts';
import type { CloudView, Mode } from '../../core/domain/machineDecision.ts';
import {
  nextPoolStep,
  poolStepRule,
  spareReady,
  type PoolDecision,
  type PoolInput,
} from '../../core/domain/poolInstance.ts';
import { ec2ErrorCode, type Ec2Instance } from '../../core/providers/ec2.ts';
import { sendJob } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import { recordStepFailure } from './failures.ts';
import { cloudView, limitsOf, observeInstances, poolFacts } from './inputs.ts';
import { launchSpare } from './launch.ts';
import { capturePassword } from './password.ts';
import { holdPool, poolRecovered } from '../../core/commands/poolHolds.ts';
import type { Step } from './step.ts';

/**
 * The warm pool's instances: launched by the one launcher (launch.ts), claimed by a new machine,
 * and taken through first boot, password capture and the stop (or discarded) by the same kind of
 * interpreter as a machine. How many spares to keep is the pool's sizing rule, not this.
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

/** What the pool interpreter knows besides the row: EC2's word, and what the last step came to. */
type PoolFactsNow = Omit<PoolInput, 'pool' | 'now' | 'limits'> & {
  /** The error a failed launch threw, for the row step that records it (the decision reads `launchFault`). */
  launchError?: unknown;
  /** This step's RunInstances gave the spare its instance. */
  launched?: boolean;
};

/** The steps carried out, the last decision, and whether a launch gave the spare its instance. */
export type PoolAdvance = { steps: Array<PoolDecision['kind']>; last: PoolDecision; launched: boolean };

/**
 * Takes a warm-pool instance as far as it goes now: its launch (only in `job` mode, which
 * `pool-replenish` grants within the plan's hold and budget), first boot, password, stop; failed
 * when its instance is gone. The same interpreter as a machine's: the domain decides
 * (`nextPoolStep`), a cloud step runs under the row's lock after deciding again, a row step ends
 * the run.
 */
export async function advancePoolInstance(
  deps: WorkerDeps,
  start: PoolInstance,
  instance: Ec2Instance | null | undefined,
  now: Date = new Date(),
  mode: Mode = 'sweep',
): Promise<PoolAdvance> {
  let row = start;
  let facts: PoolFactsNow = { cloud: instance === undefined ? undefined : cloudView(instance) };
  const steps: PoolAdvance['steps'] = [];
  let launched = false;
  const decide = (current: PoolInstance) =>
    nextPoolStep({ ...facts, pool: poolFacts(current), now, limits: limitsOf() }, mode);
  for (let i = 0; i < MAX_STEPS; i += 1) {
    const decision = decide(row);
    const rule = poolStepRule(decision);
    switch (rule.place) {
      case 'end':
      case 'retry':
        return { steps, last: decision, launched };
      case 'look':
        facts = { cloud: row.instance_id ? await observe(deps, row.instance_id) : null };
        continue;
      case 'row':
        await poolRowStep(deps, row, decision, facts, now);
        steps.push(decision.kind);
        return { steps, last: decision, launched };
      case 'cloud': {
        const held = await withTryLock(deps.db, `pool:${row.id}`, async () => {
          const fresh = await findPoolInstance(deps.db, row.id);
          // Moved on meanwhile (or gone): decided again outside the lock.
          if (!fresh || decide(fresh).kind !== decision.kind) return { row: fresh, facts };
          steps.push(decision.kind);
          return { row: fresh, facts: await poolCloudStep(deps, fresh, decision, facts.cloud, now) };
        });
        if (!held)
          return {
            steps,
            last: { kind: 'wait', reason: 'another worker is acting on this pool instance' },
            launched,
          };
        if (!held.value.row)
          return { steps, last: { kind: 'nothing', reason: 'the pool row is gone' }, launched };
        facts = held.value.facts;
        launched ||= facts.launched === true;
        row = (await findPoolInstance(deps.db, row.id)) ?? held.value.row;
        continue;
      }
      default:
        return assertNever(rule.place);
    }
  }
  throw new Error(`lifecycle: pool instance ${row.id} took more than ${MAX_STEPS} steps`);
}

/**
 * One spare through its interpreter, for a sweep or `pool-replenish`: a failure is recorded on the
 * row for operators and counted (backoff, log level, alert after 5 minutes), and the caller goes
 * on to the next spare. Null when it failed.
 */
export async function stepSpare(
  deps: WorkerDeps,
  row: PoolInstance,
  instance: Ec2Instance | null | undefined,
  now: Date,
  mode: Mode,
): Promise<PoolAdvance | null> {
  try {
    return await advancePoolInstance(deps, row, instance, now, mode);
  } catch (error) {
    await setPoolProblem(
      deps.db,
      row.id,
      `${mode === 'sweep' ? 'sync' : 'launch'}: ${describeEc2Error(error)}`,
    );
    await recordStepFailure(deps, { kind: 'pool', id: row.id, instanceId: row.instance_id }, error, now);
    return null;
  }
}

async function observe(deps: WorkerDeps, instanceId: string): Promise<CloudView> {
  return cloudView((await observeInstances(deps, [instanceId])).get(instanceId));
}

/** The row side of a pool decision: a conditional transition, with its hold or its failure's record. */
async function poolRowStep(
  deps: WorkerDeps,
  row: PoolInstance,
  decision: PoolDecision,
  facts: PoolFactsNow,
  now: Date,
): Promise<void> {
  const subject = { kind: 'pool' as const, id: row.id };
  switch (decision.kind) {
    case 'fail':
      await markPoolFailed(deps.db, row.id, decision.reason, now);
      return;
    case 'mark-ready':
      if (await markPoolReady(deps.db, row.id, now)) await poolRecovered(deps, row.plan_id);
      return;
    case 'hold': {
      // The next launch would fail the same way: the row goes, and the plan's pool is held.
      const detail = describeEc2Error(facts.launchError);
      if (await markPoolFailed(deps.db, row.id, detail, now))
        await holdPool(
          deps,
          { planId: row.plan_id, poolInstanceId: row.id, instanceId: null },
          decision.cause,
          `RunInstances refused: ${detail}`,
          now,
        );
      return;
    }
    // The pool is a nicety: a failure waits for the next replenish, customers are not affected.
    case 'give-up-launch':
      await recordStepFailure(deps, subject, facts.launchError, now);
      await markPoolFailed(deps.db, row.id, describeEc2Error(facts.launchError), now);
      return;
    case 'launch-later':
      await recordStepFailure(deps, subject, facts.launchError, now);
      await setPoolProblem(deps.db, row.id, describeEc2Error(facts.launchError));
      return;
    case 'nothing':
    case 'wait':
    case 'observe':
    case 'launch':
    case 'adopt':
    case 'capture-password':
    case 'stop':
    case 'discard':
      throw new Error(`lifecycle: ${decision.kind} is not a row step of a pool instance`);
    default:
      return assertNever(decision);
  }
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
    case 'launch': {
      const launched = await launchSpare(deps, row, now);
      if (!launched) return { cloud };
      if (launched.kind === 'failed')
        return {
          cloud,
          lastTry: 'launch-failed',
          launchFault: {
            code: ec2ErrorCode(launched.error),
            message: (launched.error as Error)?.message ?? '',
          },
          launchError: launched.error,
        };
      return { cloud: cloudView(launched.instance), launched: true };
    }
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
      switch (captured.status) {
        case 'not-ready':
          return { cloud, lastTry: 'password-not-ready' };
        case 'undecryptable':
          return { cloud, lastTry: 'password-undecryptable', problem: captured.message };
        case 'sealed': {
          // First boot is done and the password kept: it is stopped until a customer claims it (a
          // hot one is ready as it is).
          const booted = await markPoolFirstBoot(deps.db, row.id, captured.sealed, now);
          if (booted && spareReady(booted.state)) await poolRecovered(deps, row.plan_id);
          return { cloud };
        }
        default:
          return assertNever(captured);
      }
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
    case 'nothing':
    case 'wait':
    case 'observe':
    case 'mark-ready':
    case 'fail':
    case 'hold':
    case 'give-up-launch':
    case 'launch-later':
      throw new Error(`lifecycle: ${decision.kind} is not a cloud step of a pool instance`);
    default:
      return assertNever(decision);
  }
}

/** What the hold's alert says failed: the spare, and the check that failed (the capture's words). */
function discardDetail(row: PoolInstance, decision: Extract<PoolDecision, { kind: 'discard' }>): string {
  return `Spare ${row.instance_id} was terminated: ${decision.reason}`;
}
