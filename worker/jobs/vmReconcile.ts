import {
  orphanTerminated,
  orphanTerminateFailed,
  ownedAfterAll,
  seeOrphan,
} from '../../core/commands/orphans.ts';
import { openSmokeRuns } from '../../core/db/imageSmokeRuns.ts';
import { instanceOwned, orphanAction, smokeRunOpen } from '../../core/domain/orphans.ts';
import { findPoolInstancesByIds } from '../../core/db/poolInstances.ts';
import { findVmsByIds, findVmsByInstanceIds } from '../../core/db/vms.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import { TAGS } from '../../core/providers/vmEc2.ts';
import { describeEc2Error } from '../ec2Errors.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';
import { accountBackoff } from '../lifecycle/failures.ts';
import { sweepSnapshots } from '../lifecycle/keptDisks.ts';

/**
 * `vm-reconcile` (cron): instances tagged as this deployment's that no row owns — a launch
 * whose row is gone, a duplicate, something left by hand. Each is reported (operator alert)
 * when first seen and terminated if still unowned after ORPHAN_GRACE_MINUTES, which leaves a
 * lost launch answer time to be adopted by vm-sync first. Only instances carrying our
 * deployment tag are ever considered. Kept disks (snapshots) are swept in the same run.
 */
export function vmReconcile(deps: WorkerDeps) {
  return sweepJob('vm-reconcile', async () => {
    // AWS throttles the account: the next run (ten minutes on) asks again.
    const throttled = await accountBackoff(deps);
    if (throttled) {
      deps.log.warn(
        { until: throttled.next_at.toISOString() },
        'vm-reconcile: AWS throttles the account; waiting for the next run',
      );
      return;
    }
    await reconcileInstances(deps);
    await sweepSnapshots(deps);
  });
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
  const smokeIds = instances.map((i) => i.tags[TAGS.smoke]).filter(isUuid);
  const smokeRuns = new Map((await openSmokeRuns(db, smokeIds)).map((run) => [run.id, run]));

  const owned = (instance: Ec2Instance): boolean => {
    const vm = vmsById.get(instance.tags[TAGS.vm] ?? '');
    const spare = poolById.get(instance.tags[TAGS.pool] ?? '');
    const smoke = smokeRuns.get(instance.tags[TAGS.smoke] ?? '');
    return instanceOwned({
      recordedBy: vmsByInstance.get(instance.instanceId) ?? null,
      taggedVm: vm ? { state: vm.state, hasInstance: vm.instance_id !== null } : null,
      taggedSpare: spare
        ? {
            state: spare.state,
            recordsIt: spare.instance_id === instance.instanceId,
            hasInstance: spare.instance_id !== null,
          }
        : null,
      // An operator's image smoke run ends (terminates) its own machine, unless it ran too long.
      smokeRunOpen: smoke ? smokeRunOpen(smoke.started_at, now) : false,
    });
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
    const orphan = await seeOrphan(deps, instance, now);
    if (orphanAction(orphan.first_seen_at, now, config.vm.orphanGraceMinutes) === 'wait') continue;
    try {
      await deps.vmEc2.ec2.terminateInstance(instance.instanceId);
    } catch (error) {
      await orphanTerminateFailed(deps, instance.instanceId, describeEc2Error(error), error);
      continue;
    }
    await orphanTerminated(db, instance, now);
    terminated += 1;
  }
  await ownedAfterAll(db, ownedIds, now);
  return { seen: instances.length, orphans, terminated };
}

function isUuid(value: string | undefined): value is string {
  return (
    typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
  );
}
