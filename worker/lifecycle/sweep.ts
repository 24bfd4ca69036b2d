import {
  listPoolForSync,
  markPoolSynced,
  setPoolProblem,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { findSubscriptionsByIds, type Subscription } from '../../core/db/subscriptions.ts';
import { findNoticeKeys, noticeKey } from '../../core/db/vmNotices.ts';
import { accrueUsageMany, listVmsForSyncPage, recordVmError, type Vm } from '../../core/db/vms.ts';
import { decideMachine, sweepLane, type Decision } from '../../core/domain/lifecycle.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import { advanceMachine } from './advance.ts';
import { cloudView, limitsOf, machineFacts, observeInstances, planFacts } from './inputs.ts';
import { advancePoolInstance } from './pool.ts';

/** Machines per page of the sweep: one read, at most one batched write, one plans read. */
const PAGE = 1000;
const SWEEP_POOL = 500;

export type SweepStats = {
  /** Machines looked at, and pages of them. */
  machines: number;
  pages: number;
  /** Instances EC2 listed for this deployment (paged DescribeInstances). */
  instances: number;
  /** Machines whose row already matched EC2 and needed no step: no write at all. */
  unchanged: number;
  /** Running machines whose only change was time counted: batched, one write per page. */
  accrued: number;
  /** Machines handed to the lifecycle executor one by one (something changed). */
  stepped: number;
  /** Instances not listed by tag, asked for by id. */
  describedById: number;
};

/**
 * The minute sweep over the whole fleet. EC2 is read once, by this deployment's tag, a page of
 * 1,000 instances per DescribeInstances call (not by id: 200 ids per call would be five times
 * the calls). The machines are then walked a page at a time; each machine's lane is the
 * domain's `sweepLane` of its decision: left alone, counted in the page's one batched UPDATE,
 * or handed to the executor, which decides again and acts.
 */
export async function sweepFleet(deps: WorkerDeps): Promise<SweepStats> {
  const { db, config } = deps;
  const listed = await deps.vmEc2.ec2.describeInstances({
    tags: { [TAGS.deployment]: config.ec2.deploymentTag },
  });
  const instances = new Map(listed.map((i) => [i.instanceId, i]));
  const stats: SweepStats = {
    machines: 0,
    pages: 0,
    instances: listed.length,
    unchanged: 0,
    accrued: 0,
    stepped: 0,
    describedById: 0,
  };
  let after: string | null = null;
  for (;;) {
    const page = await listVmsForSyncPage(db, after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    stats.pages += 1;
    stats.machines += page.length;
    await sweepPage(deps, page, instances, stats);
    if (page.length < PAGE) break;
  }
  const pool = await listPoolForSync(db, SWEEP_POOL);
  await describeUnlisted(deps, pool, instances, stats);
  await syncPool(deps, pool, instances);
  await markPoolSynced(
    db,
    pool.map((p) => p.id),
    new Date(),
  );
  return stats;
}

async function sweepPage(
  deps: WorkerDeps,
  page: Vm[],
  instances: Map<string, Ec2Instance>,
  stats: SweepStats,
): Promise<void> {
  const { db } = deps;
  await describeUnlisted(deps, page, instances, stats);
  const subscriptions = await findSubscriptionsByIds(
    db,
    page.map((v) => v.subscription_id),
  );
  const now = new Date();
  const limits = limitsOf(deps.config.vm);
  const decided = page.map((vm) => {
    const subscription = subscriptions.get(vm.subscription_id) ?? null;
    const decision: Decision = decideMachine({
      machine: machineFacts(vm),
      plan: planFacts(subscription),
      cloud: vm.instance_id ? cloudView(instances.get(vm.instance_id) ?? null) : undefined,
      now,
      limits,
    });
    return { vm, subscription, decision };
  });
  // One read of the hour notices already sent, for every machine whose decision is to count time.
  const sent = await findNoticeKeys(
    db,
    decided.flatMap(({ decision, vm }) =>
      decision.kind === 'accrue'
        ? decision.alerts.map((p) => noticeKey(`hours-${p}`, vm.subscription_id))
        : [],
    ),
  );
  const batch: Array<{ vmId: string; capSeconds: number }> = [];
  const changed: Array<{ vm: Vm; subscription: Subscription | null }> = [];
  for (const { vm, subscription, decision } of decided) {
    const lane = sweepLane(decision, (p) => sent.has(noticeKey(`hours-${p}`, vm.subscription_id)));
    if (lane === 'unchanged') stats.unchanged += 1;
    if (lane === 'accrue' && decision.kind === 'accrue')
      batch.push({ vmId: vm.id, capSeconds: decision.capSeconds });
    if (lane === 'step') changed.push({ vm, subscription });
  }
  stats.accrued += (await accrueUsageMany(db, batch, now)).length;
  for (const { vm, subscription } of changed) {
    stats.stepped += 1;
    await stepMachine(deps, vm, subscription, instances);
  }
}

/** Instances the tag listing did not show (tags removed by hand, or not written yet), asked for by id. */
async function describeUnlisted(
  deps: WorkerDeps,
  rows: Array<{ instance_id: string | null }>,
  instances: Map<string, Ec2Instance>,
  stats: SweepStats,
): Promise<void> {
  const unlisted = rows
    .map((r) => r.instance_id)
    .filter((id): id is string => id !== null && !instances.has(id));
  if (unlisted.length === 0) return;
  stats.describedById += unlisted.length;
  for (const [id, instance] of await observeInstances(deps, unlisted)) instances.set(id, instance);
}

/** One machine through the executor; a failure is recorded on the row and logged, and the sweep goes on. */
export async function stepMachine(
  deps: WorkerDeps,
  vm: Vm,
  subscription: Subscription | null,
  instances: Map<string, Ec2Instance>,
): Promise<void> {
  try {
    await advanceMachine(deps, vm, {
      mode: 'sweep',
      subscription,
      instance: vm.instance_id ? (instances.get(vm.instance_id) ?? null) : undefined,
    });
  } catch (error) {
    const detail = describeEc2Error(error);
    await recordVmError(deps.db, vm.id, `sync: ${detail}`, new Date());
    deps.log.error({ vmId: vm.id, error: detail, err: error }, 'vm-sync: could not sync a machine');
  }
}

/** Pool instances through their interpreter; a failure is recorded on the row for operators, and tried again next sweep. */
export async function syncPool(
  deps: WorkerDeps,
  pool: PoolInstance[],
  instances: Map<string, Ec2Instance>,
): Promise<void> {
  for (const row of pool) {
    try {
      await advancePoolInstance(
        deps,
        row,
        row.instance_id ? (instances.get(row.instance_id) ?? null) : undefined,
      );
    } catch (error) {
      const detail = describeEc2Error(error);
      await setPoolProblem(deps.db, row.id, `sync: ${detail}`);
      deps.log.error(
        { poolInstanceId: row.id, error: detail, err: error },
        'vm-sync: could not sync a pool instance',
      );
    }
  }
}
