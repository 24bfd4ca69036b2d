import { listPoolForSync, markPoolSynced, type PoolInstance } from '../../core/db/poolInstances.ts';
import { findSubscriptionsByIds, type Subscription } from '../../core/db/subscriptions.ts';
import { findNoticeKeys, noticeKey } from '../../core/db/vmNotices.ts';
import { findStepFailures, poolSubject, vmSubject } from '../../core/db/stepFailures.ts';
import { accrueUsageMany, listVmsForSyncPage, recordVmError, type Vm } from '../../core/db/vms.ts';
import { decideMachine, sweepLane } from '../../core/domain/lifecycle.ts';
import { type Decision } from '../../core/domain/machineDecision.ts';
import { backedOff } from '../../core/domain/stepBackoff.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import { advanceMachine } from './advance.ts';
import { accountBackoff, clearFailures, recordStepFailure } from './failures.ts';
import { cloudView, limitsOf, machineFacts, observeInstances, planFacts } from './inputs.ts';
import { stepSpare } from './pool.ts';

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
  /** Machines and spares whose failing step waits for its backoff (not stepped this time). */
  backedOff: number;
  /** The whole sweep waited: AWS throttles the account. */
  throttled: boolean;
};

/**
 * The minute sweep over the whole fleet. EC2 is read once, by this deployment's tag, a page of
 * 1,000 instances per DescribeInstances call (not by id: 200 ids per call would be five times
 * the calls). The machines are then walked a page at a time; each machine's lane is the
 * domain's `sweepLane` of its decision: left alone, counted in the page's one batched UPDATE,
 * or handed to the executor, which decides again and acts.
 */
export async function sweepFleet(deps: WorkerDeps, now: Date = new Date()): Promise<SweepStats> {
  const { db, config } = deps;
  const stats: SweepStats = {
    machines: 0,
    pages: 0,
    instances: 0,
    unchanged: 0,
    accrued: 0,
    stepped: 0,
    describedById: 0,
    backedOff: 0,
    throttled: false,
  };
  // AWS throttles the account: the sweep waits with everyone else (the next minute's asks again).
  if (await accountBackoff(deps, now)) return { ...stats, throttled: true };
  let listed: Ec2Instance[];
  try {
    listed = await deps.vmEc2.ec2.describeInstances({
      tags: { [TAGS.deployment]: config.ec2.deploymentTag },
    });
  } catch (error) {
    // Recorded, logged at its level, alerted after 5 minutes; the next minute's sweep tries again.
    await recordStepFailure(deps, { kind: 'account' }, error, now);
    return stats;
  }
  await clearFailures(deps, { kind: 'account' }, new Set(['DescribeInstances']));
  const instances = new Map(listed.map((i) => [i.instanceId, i]));
  stats.instances = listed.length;
  let after: string | null = null;
  for (;;) {
    const page = await listVmsForSyncPage(db, after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    stats.pages += 1;
    stats.machines += page.length;
    await sweepPage(deps, page, instances, stats, now);
    if (page.length < PAGE) break;
  }
  const pool = await listPoolForSync(db, SWEEP_POOL);
  await describeUnlisted(deps, pool, instances, stats);
  await syncPool(deps, pool, instances, now);
  await markPoolSynced(
    db,
    pool.map((p) => p.id),
    now,
  );
  if (stats.backedOff > 0)
    deps.log.info({ backedOff: stats.backedOff }, 'vm-sync: machines waiting out a backoff');
  return stats;
}

async function sweepPage(
  deps: WorkerDeps,
  page: Vm[],
  instances: Map<string, Ec2Instance>,
  stats: SweepStats,
  now: Date,
): Promise<void> {
  const { db } = deps;
  await describeUnlisted(deps, page, instances, stats);
  const subscriptions = await findSubscriptionsByIds(
    db,
    page.map((v) => v.subscription_id),
  );
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
  // A machine whose step keeps failing waits out its backoff instead of failing again every minute.
  const failing = await findStepFailures(
    db,
    changed.map(({ vm }) => vmSubject(vm.id)),
  );
  for (const { vm, subscription } of changed) {
    if (backedOff(nextAtOf(failing.get(vmSubject(vm.id))), now)) {
      stats.backedOff += 1;
      continue;
    }
    stats.stepped += 1;
    await stepMachine(deps, vm, subscription, instances, now);
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

function nextAtOf(failure: { next_at: Date } | undefined): { nextAt: Date } | null {
  return failure ? { nextAt: failure.next_at } : null;
}

/**
 * One machine through the executor. A failure is on the row for operators and counted by the
 * executor (its backoff, its log line at its level, its alert after 5 minutes); the sweep goes on.
 */
export async function stepMachine(
  deps: WorkerDeps,
  vm: Vm,
  subscription: Subscription | null,
  instances: Map<string, Ec2Instance>,
  now?: Date,
): Promise<void> {
  try {
    await advanceMachine(deps, vm, {
      mode: 'sweep',
      subscription,
      instance: vm.instance_id ? (instances.get(vm.instance_id) ?? null) : undefined,
      ...(now ? { now } : {}),
    });
  } catch (error) {
    await recordVmError(deps.db, vm.id, `sync: ${describeEc2Error(error)}`, now ?? new Date());
  }
}

/**
 * Pool instances through their interpreter. A failure is recorded on the row for operators and
 * counted (backoff, log level, alert after 5 minutes); a spare waiting out its backoff is left
 * for a later sweep.
 */
export async function syncPool(
  deps: WorkerDeps,
  pool: PoolInstance[],
  instances: Map<string, Ec2Instance>,
  now: Date = new Date(),
): Promise<void> {
  const failing = await findStepFailures(
    deps.db,
    pool.map((row) => poolSubject(row.id)),
  );
  for (const row of pool) {
    if (backedOff(nextAtOf(failing.get(poolSubject(row.id))), now)) continue;
    const instance = row.instance_id ? (instances.get(row.instance_id) ?? null) : undefined;
    const advanced = await stepSpare(deps, row, instance, now, 'sweep');
    if (advanced && failing.has(poolSubject(row.id)))
      await clearFailures(deps, { kind: 'pool', id: row.id }, 'all');
  }
}
