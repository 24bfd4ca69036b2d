import type { Config } from '../config/config.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import {
  markSnapshotDeleted,
  recordSnapshotError,
  releaseFailedRestores,
  type VmSnapshot,
} from '../db/snapshots.ts';
import { diskDeletedMail } from '../emails/vms.ts';
import type { Boss } from '../queue.ts';
import { notify } from './notices.ts';

/**
 * What the kept-disk sweep records once EC2 has answered: a copy deleted (its window over: the
 * customer told), a deletion EC2 refused (on the row, an operator alerted, tried again next run),
 * and unowned snapshots deleted or not.
 */

type KeptDiskDeps = { db: Db; boss: Boss; config: Pick<Config, 'publicUrl'> };

/** Copies handed to machines that failed before they were ready go back to the kept window. */
export async function takeBackFailedRestores(db: Db): Promise<number> {
  return releaseFailedRestores(db);
}

/** EC2 deleted the copy: the row says so and, for one whose window ended, the customer is told. */
export async function copyDeleted(
  deps: KeptDiskDeps,
  copy: VmSnapshot,
  why: 'expired' | 'restored',
  now: Date,
): Promise<boolean> {
  if (!(await markSnapshotDeleted(deps.db, copy.id, now))) return false;
  if (why === 'expired')
    await notify(
      deps.db,
      deps.boss,
      { kind: 'disk-deleted', subjectId: copy.id, userId: copy.user_id, vmId: copy.vm_id },
      (person) => diskDeletedMail(person, now, deps.config.publicUrl),
    );
  return true;
}

/** EC2 refused the deletion: on the row, an operator told; the next run tries again. */
export async function copyDeleteFailed(db: Db, copy: VmSnapshot, detail: string): Promise<void> {
  await recordSnapshotError(db, copy.id, `delete: ${detail}`);
  await raiseAlert(db, {
    kind: 'snapshot-failed',
    dedupeKey: `snapshot-delete-failed:${copy.id}`,
    message: `Could not delete snapshot ${copy.snapshot_id} (kept disk of machine ${copy.vm_id}): ${detail}. Tried again next run.`,
    vmId: copy.vm_id,
  });
}

/** An unowned snapshot past its grace, deleted (or EC2 refused it: tried again next run); an operator told either way. */
export async function orphanSnapshotDeleted(
  db: Db,
  snapshot: { snapshotId: string; tags: Record<string, string> },
  failure: string | null,
): Promise<void> {
  await raiseAlert(
    db,
    failure
      ? {
          kind: 'orphan-snapshot',
          dedupeKey: `orphan-snapshot-delete-failed:${snapshot.snapshotId}`,
          message: `Could not delete unowned snapshot ${snapshot.snapshotId}: ${failure}. Tried again next run.`,
          details: { tags: snapshot.tags },
        }
      : {
          kind: 'orphan-snapshot',
          message: `Deleted snapshot ${snapshot.snapshotId}: tagged as ours, but no kept disk owns it.`,
          details: { tags: snapshot.tags },
        },
  );
}
