import {
  findPoolInstance,
  listPoolForSync,
  markPoolSynced,
  setPoolProblem,
  type PoolInstance,
} from '../../core/db/poolInstances.ts';
import { findSubscription, findSubscriptionsByIds, type Subscription } from '../../core/db/subscriptions.ts';
import { findNoticeKeys, noticeKey } from '../../core/db/vmNotices.ts';
import {
  accrueUsageMany,
  findVm,
  listVmsForSyncPage,
  markVmsSynced,
  recordVmError,
  type Vm,
} from '../../core/db/vms.ts';
import { decideMachine, isTransitional } from '../../core/domain/lifecycle.ts';
import { planSeconds, remainingSeconds, type HourAlertPercent } from '../../core/domain/usage.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import { parsePayload, sendJob, type Job, type Payload } from '../../core/queue.ts';
import { scheduleVmCheck } from '../../core/commands/vmActions.ts';
import { describeEc2Error } from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';
import {
  advanceMachine,
  advancePoolInstance,
  cloudView,
  limitsOf,
  machineFacts,
  observeInstances,
  planFacts,
} from '../lifecycle.ts';

/**
 * `vm-sync`: brings machines in line with what EC2 says, through the lifecycle executor.
 *
 * - Cron (no ids): every live machine, a page at a time, against one paged listing of this
 *   deployment's instances (see `sweepFleet`), and the pool instances in flight.
 * - Follow-up (`vmId` / `poolInstanceId`): one machine in transition, rescheduled every
 *   `VM_POLL_SECONDS` until it settles (AWS's waiters would hold a worker for minutes).
 *
 * A machine whose step fails is recorded (`last_error`) and logged, and the sweep goes on.
 */
export function vmSync(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      await syncVms(deps, parsePayload('vm-sync', job.data));
    }
  };
}

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

export async function syncVms(deps: WorkerDeps, target: Payload<'vm-sync'> = {}): Promise<void> {
  if (!target.vmId && !target.poolInstanceId) {
    await sweepFleet(deps);
    return;
  }
  const { db } = deps;
  const vms: Vm[] = target.vmId ? [await findVm(db, target.vmId)].filter((v): v is Vm => v !== null) : [];
  const pool: PoolInstance[] = target.poolInstanceId
    ? [await findPoolInstance(db, target.poolInstanceId)].filter((p): p is PoolInstance => p !== null)
    : [];
  const instances = await observeInstances(
    deps,
    [...vms, ...pool].map((row) => row.instance_id).filter((id): id is string => id !== null),
  );
  const subscriptions = await findSubscriptionsByIds(
    db,
    vms.map((v) => v.subscription_id),
  );
  const now = new Date();
  for (const vm of vms) await stepMachine(deps, vm, subscriptions.get(vm.subscription_id) ?? null, instances);
  await syncPool(deps, pool, instances);
  await markVmsSynced(
    db,
    vms.map((v) => v.id),
    now,
  );
  await markPoolSynced(
    db,
    pool.map((p) => p.id),
    now,
  );
  await followUp(deps, target);
}

/**
 * The minute sweep over the whole fleet. EC2 is read once, by this deployment's tag, a page of
 * 1,000 instances per DescribeInstances call (not by id: 200 ids per call would be five times
 * the calls). The machines are then walked a page at a time; each machine's next step is
 * decided from that listing, and
 * - a machine whose row matches EC2 and needs nothing is left alone (no write),
 * - running machines whose only change is the time counted are accrued in one statement per
 *   page (their hour notices already sent),
 * - anything else goes to the lifecycle executor, which decides again and acts.
 * So the work, and the writes, grow with what changed, not with the size of the fleet.
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
  const limits = limitsOf();
  const counting: Array<{ vm: Vm; subscription: Subscription; alerts: HourAlertPercent[] }> = [];
  const changed: Vm[] = [];
  for (const vm of page) {
    const subscription = subscriptions.get(vm.subscription_id) ?? null;
    const decision = decideMachine({
      machine: machineFacts(vm),
      plan: planFacts(subscription),
      cloud: vm.instance_id ? cloudView(instances.get(vm.instance_id) ?? null) : undefined,
      now,
      limits,
    });
    // `wait`: something is under way and nothing can be done now; the executor would stop there too.
    if (decision.kind === 'nothing' || decision.kind === 'wait') stats.unchanged += 1;
    else if (decision.kind === 'accrue' && subscription)
      counting.push({ vm, subscription, alerts: decision.alerts });
    else changed.push(vm);
  }
  // Hour notices not yet sent go through the executor (accrual and mail in its steps); the rest
  // of the running machines are counted together.
  const sent = await findNoticeKeys(
    db,
    counting.flatMap(({ subscription, alerts }) =>
      alerts.map((p) => noticeKey(`hours-${p}`, subscription.id)),
    ),
  );
  const batch: Array<{ vmId: string; capSeconds: number }> = [];
  for (const { vm, subscription, alerts } of counting) {
    if (alerts.every((p) => sent.has(noticeKey(`hours-${p}`, subscription.id))))
      batch.push({ vmId: vm.id, capSeconds: planSeconds(subscription.hours) });
    else changed.push(vm);
  }
  stats.accrued += (await accrueUsageMany(db, batch, now)).length;
  for (const vm of changed) {
    stats.stepped += 1;
    await stepMachine(deps, vm, subscriptions.get(vm.subscription_id) ?? null, instances);
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

async function stepMachine(
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

async function syncPool(
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
      // Recorded on the row for operators; the next sweep tries again.
      const detail = describeEc2Error(error);
      await setPoolProblem(deps.db, row.id, `sync: ${detail}`);
      deps.log.error(
        { poolInstanceId: row.id, error: detail, err: error },
        'vm-sync: could not sync a pool instance',
      );
    }
  }
}

/** The next check of a machine still in transition; a running one is checked when its hours run out. */
async function followUp(deps: WorkerDeps, target: Payload<'vm-sync'>): Promise<void> {
  const { config, boss, db } = deps;
  const count = (target.followUp ?? 0) + 1;
  const limit = Math.ceil((config.vm.provisionDeadlineMinutes * 60 * 2) / config.vm.pollSeconds);
  if (target.vmId) {
    const vm = await findVm(db, target.vmId);
    if (!vm) return;
    if (isTransitional(vm.state)) {
      // Past the bound the minute sweep carries on; this only keeps transitions snappy.
      if (count <= limit) await scheduleVmCheck(boss, config, { vmId: vm.id }, { followUp: count });
    } else if (vm.state === 'running') {
      await scheduleHoursCheck(deps, vm);
    }
  } else if (target.poolInstanceId) {
    const row = await findPoolInstance(db, target.poolInstanceId);
    if (row && (row.state === 'launching' || row.state === 'stopping') && count <= limit) {
      await scheduleVmCheck(boss, config, { poolInstanceId: row.id }, { followUp: count });
    }
  }
}

/**
 * A check at the moment the plan's hours run out, so the 100 % stop is on time rather than up
 * to a sweep late. (It carries no follow-up count: it is not part of a transition's chain.)
 */
async function scheduleHoursCheck(deps: WorkerDeps, vm: Vm): Promise<void> {
  const subscription = await findSubscription(deps.db, vm.subscription_id);
  if (!subscription) return;
  const left = remainingSeconds(subscription.hours, vm.usage_seconds);
  // Within a day: further out, the minute sweep gets there first anyway.
  if (left > 0 && left < 86_400) {
    // One such check per machine at a time, however many follow-ups see it running.
    await sendJob(
      deps.boss,
      'vm-sync',
      { vmId: vm.id },
      {
        startAfter: new Date(Date.now() + (left + 1) * 1000),
        singletonKey: `hours:${vm.id}`,
        singletonSeconds: 60,
      },
    );
  }
}
