import { clearOrphans, markOrphanTerminated, sightOrphan } from '../../core/db/ec2Fleet.ts';
import { openSmokeRuns } from '../../core/db/imageSmokeRuns.ts';
import { SMOKE_RUN_MAX_MINUTES } from '../../core/domain/imageSmoke.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { findPoolInstancesByIds } from '../../core/db/poolInstances.ts';
import { findVmsByIds, findVmsByInstanceIds } from '../../core/db/vms.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import type { WorkerDeps } from '../deps.ts';
import { accountBackoff } from '../lifecycle/failures.ts';
import { sweepSnapshots } from './snapshotSweep.ts';

/**
 * `vm-reconcile` (cron): instances tagged as this deployment's that no row owns — a launch
 * whose row is gone, a duplicate, something left by hand. Each is reported (operator alert)
 * when first seen and terminated if still unowned after ORPHAN_GRACE_MINUTES, which leaves a
 * lost launch answer time to be adopted by vm-sync first. Only instances carrying our
 * deployment tag are ever considered. Kept disks (snapshots) are swept in the same run.
 */
export function vmReconcile(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      parsePayload('vm-reconcile', job.data);
      // AWS throttles the account: the next run (ten minutes on) asks again.
      const throttled = await accountBackoff(deps);
      if (throttled) {
        deps.log.warn(
          { until: throttled.next_at.toISOString() },
          'vm-reconcile: AWS throttles the account; waiting for the next run',
        );
        continue;
      }
      await reconcileInstances(deps);
      await sweepSnapshots(deps);
    }
  };
}

export async function reconcileInstances(
  deps: WorkerDeps,
  now: Date = new Date(),
): Promise<{ seen: number; orphans: number; terminated: number }> {
  const { db, config } = deps;
  const instances = await deps.vmEc2.ec2.describeInstances({
    tags: { [TAGS.deployment]: config.ec2.deploymentTag },
    states: ['pending', 'running', 'stopping', 'stopped'],
  });
  const vmIds = instances.map((i) => i.tags[TAGS.vm]).filter(isUuid);
  const poolIds = instances.map((i) => i.tags[TAGS.pool]).filter(isUuid);
  const vmsById = new Map((await findVmsByIds(db, vmIds)).map((v) => [v.id, v]));
  const vmsByInstance = new Map(
    (
      await findVmsByInstanceIds(
        db,
        instances.map((i) => i.instanceId),
      )
    ).map((v) => [v.instance_id, v]),
  );
  const poolById = new Map((await findPoolInstancesByIds(db, poolIds)).map((p) => [p.id, p]));
  // An operator's image smoke run ends (terminates) its own machine, unless it ran too long.
  const smokeIds = instances.map((i) => i.tags[TAGS.smoke]).filter(isUuid);
  const smokeRuns = new Set(
    (await openSmokeRuns(db, smokeIds))
      .filter((run) => now.getTime() - run.started_at.getTime() < SMOKE_RUN_MAX_MINUTES * 60_000)
      .map((run) => run.id),
  );

  const owned = (instance: Ec2Instance): boolean => {
    const byInstance = vmsByInstance.get(instance.instanceId);
    if (byInstance && byInstance.state !== 'terminated' && byInstance.state !== 'error') return true;
    const vm = vmsById.get(instance.tags[TAGS.vm] ?? '');
    // Launched, answer not recorded yet: vm-sync adopts it by ClientToken.
    if (vm && !vm.instance_id && (vm.state === 'provisioning' || vm.state === 'requested')) return true;
    if (vm && vm.state === 'terminating') return true;
    const pool = poolById.get(instance.tags[TAGS.pool] ?? '');
    if (pool && pool.instance_id === instance.instanceId && pool.state !== 'failed') return true;
    if (pool && !pool.instance_id && pool.state === 'launching') return true;
    if (smokeRuns.has(instance.tags[TAGS.smoke] ?? '')) return true;
    return false;
  };

  const ownedIds: string[] = [];
  let orphans = 0;
  let terminated = 0;
  for (const instance of instances) {
    if (owned(instance)) {
      ownedIds.push(instance.instanceId);
      continue;
    }
    orphans += 1;
    const { orphan, isNew } = await sightOrphan(db, instance, now);
    if (isNew) {
      await raiseAlert(db, {
        kind: 'orphan-instance',
        message: `Instance ${instance.instanceId} (${instance.instanceType}, ${instance.state}) is tagged as ours but no machine owns it; it is terminated after ${config.vm.orphanGraceMinutes} minutes unless claimed.`,
        instanceId: instance.instanceId,
        details: { tags: instance.tags },
      });
      deps.log.warn(
        { instanceId: instance.instanceId, tags: instance.tags },
        'vm-reconcile: unowned instance reported',
      );
    }
    if (now.getTime() - orphan.first_seen_at.getTime() >= config.vm.orphanGraceMinutes * 60_000) {
      try {
        await deps.vmEc2.ec2.terminateInstance(instance.instanceId);
      } catch (error) {
        // Tried again on the next run; an operator hears of it meanwhile (an orphan still bills).
        const detail = describeEc2Error(error);
        await raiseAlert(db, {
          kind: 'orphan-instance',
          dedupeKey: `orphan-terminate-failed:${instance.instanceId}`,
          message: `Could not terminate unowned instance ${instance.instanceId}: ${detail}`,
          instanceId: instance.instanceId,
        });
        deps.log.error(
          { instanceId: instance.instanceId, error: detail, err: error },
          'vm-reconcile: terminate failed',
        );
        continue;
      }
      await markOrphanTerminated(db, instance.instanceId, now);
      await raiseAlert(db, {
        kind: 'orphan-terminated',
        message: `Terminated unowned instance ${instance.instanceId} after the grace period.`,
        instanceId: instance.instanceId,
        details: { tags: instance.tags },
      });
      terminated += 1;
    }
  }
  await clearOrphans(db, ownedIds, now);
  return { seen: instances.length, orphans, terminated };
}

function isUuid(value: string | undefined): value is string {
  return (
    typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
  );
}
