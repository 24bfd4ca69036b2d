import { sql } from '../../core/db/pool.ts';
import { listSnapshotsOfVm } from '../../core/db/snapshots.ts';
import type { Vm } from '../../core/db/vms.ts';
import { endingNotice, keptCopyOf } from '../../core/domain/machineEnding.ts';
import { diskKeptMail, diskRestoredMail, vmTerminatedMail } from '../../core/emails/vms.ts';
import type { WorkerDeps } from '../deps.ts';
import { notify } from '../../core/commands/notices.ts';

/**
 * The mail a machine's confirmed deletion sends, as `endingNotice` (core/domain/machineEnding.ts)
 * decides from the machine's copies and its customer's later plans: at most one per machine
 * (`notify` records it in `vm_endings`), and "not renewed" only when nothing was.
 */
export async function mailEnding(deps: WorkerDeps, vm: Vm): Promise<void> {
  const { db, boss, config } = deps;
  const copies = await listSnapshotsOfVm(db, vm.id);
  const renewed = await db.exists(sql.unsafe`
    SELECT 1 FROM subscriptions o, subscriptions s
    WHERE s.id = ${vm.subscription_id} AND o.user_id = s.user_id AND o.id <> s.id
      AND o.status IN ('active', 'expired') AND o.purchased_at > coalesce(s.purchased_at, s.created_at)`);
  const kind = endingNotice({
    reason: vm.state_reason,
    copy: keptCopyOf(
      copies.map((c) => ({ state: c.state, completedAt: c.completed_at, restoredVmId: c.restored_vm_id })),
    ),
    renewed,
  });
  if (!kind) return;
  const notice = { kind, subjectId: vm.id, userId: vm.user_id, vmId: vm.id };
  switch (kind) {
    case 'disk-kept': {
      const kept = copies.filter((c) => c.completed_at !== null).at(-1);
      if (!kept?.completed_at) return;
      const savedOn = kept.completed_at;
      await notify(db, boss, notice, (person) =>
        diskKeptMail(person, savedOn, kept.keep_until, config.publicUrl, renewed),
      );
      return;
    }
    case 'disk-restored':
      await notify(db, boss, notice, (person) => diskRestoredMail(person, config.publicUrl));
      return;
    case 'vm-terminated':
      await notify(db, boss, notice, (person) => vmTerminatedMail(person, config.publicUrl));
      return;
    case 'vm-replaced':
      // Sent when the replacement is made, with whether the files came back.
      return;
  }
}
