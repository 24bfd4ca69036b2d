import type { Config } from '../config/config.ts';
import { clearOrphans, markOrphanTerminated, sightOrphan, type Orphan } from '../db/ec2Fleet.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../observability/log.ts';

/**
 * What `vm-reconcile` records of unowned instances (core/domain/orphans.ts decides which are):
 * each sighting, an operator alert when first seen, the termination or its failure, and the
 * instances that turned out owned after all.
 */

type OrphanDeps = { db: Db; log: Logger; config: Pick<Config, 'vm'> };
type SeenInstance = { instanceId: string; instanceType: string; state: string; tags: Record<string, string> };

/** Seen unowned: recorded (since when), and reported to an operator the first time. */
export async function seeOrphan(deps: OrphanDeps, instance: SeenInstance, now: Date): Promise<Orphan> {
  const { orphan, isNew } = await sightOrphan(deps.db, instance, now);
  if (isNew) {
    await raiseAlert(deps.db, {
      kind: 'orphan-instance',
      message: `Instance ${instance.instanceId} (${instance.instanceType}, ${instance.state}) is tagged as ours but no machine owns it; it is terminated after ${deps.config.vm.orphanGraceMinutes} minutes unless claimed.`,
      instanceId: instance.instanceId,
      details: { tags: instance.tags },
    });
    deps.log.warn(
      { instanceId: instance.instanceId, tags: instance.tags },
      'vm-reconcile: unowned instance reported',
    );
  }
  return orphan;
}

/** Terminated after its grace: recorded, and an operator told. */
export async function orphanTerminated(db: Db, instance: SeenInstance, now: Date): Promise<void> {
  await markOrphanTerminated(db, instance.instanceId, now);
  await raiseAlert(db, {
    kind: 'orphan-terminated',
    message: `Terminated unowned instance ${instance.instanceId} after the grace period.`,
    instanceId: instance.instanceId,
    details: { tags: instance.tags },
  });
}

/** EC2 refused to terminate it: tried again on the next run; an operator hears of it meanwhile (it still bills). */
export async function orphanTerminateFailed(
  deps: OrphanDeps,
  instanceId: string,
  detail: string,
  error: unknown,
) {
  await raiseAlert(deps.db, {
    kind: 'orphan-instance',
    dedupeKey: `orphan-terminate-failed:${instanceId}`,
    message: `Could not terminate unowned instance ${instanceId}: ${detail}`,
    instanceId,
  });
  deps.log.error({ instanceId, error: detail, err: error }, 'vm-reconcile: terminate failed');
}

/** Instances owned after all (adopted, claimed): no longer counted as orphans. */
export async function ownedAfterAll(db: Db, instanceIds: string[], now: Date): Promise<void> {
  await clearOrphans(db, instanceIds, now);
}
