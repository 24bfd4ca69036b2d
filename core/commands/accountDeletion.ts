import { endKeptDisksOfUser } from '../db/snapshots.ts';
import { cancelSubscription, findActiveSubscription } from '../db/subscriptions.ts';
import { listUndeletedVmsOfUser } from '../db/vms.ts';
import type { Db } from '../db/pool.ts';
import { sendJob, type Boss } from '../queue.ts';
import { requestTerminate } from './vmActions.ts';

/**
 * THE seam between deleting an account and the user's cloud PCs. `DELETE /api/user` calls it
 * inside the deletion transaction (with that transaction as `db`), after sessions are revoked
 * and before personal data is anonymised, so whatever it enqueues exists exactly when the
 * deletion does.
 *
 * Every machine of the user goes to `terminating` with a `vm-terminate` job (the job calls EC2
 * outside any transaction, keyed on the VM id; a running machine stops counting hours now), and
 * the active plan is cancelled so nothing provisions or renews it, and any kept disk (snapshot)
 * is due for deletion at once. Invoices and payments stay:
 * the users row is anonymised, not removed, so their foreign keys hold.
 */
export async function releaseUserResources(db: Db, boss: Boss, userId: string): Promise<void> {
  const now = new Date();
  for (const vm of await listUndeletedVmsOfUser(db, userId)) {
    await requestTerminate(db, boss, vm.id, 'account-deleted', now);
  }
  const active = await findActiveSubscription(db, userId, now);
  if (active) await cancelSubscription(db, active.id, now);
  // Kept disks (snapshots of expired machines) go too; the reconcile run deletes them in EC2.
  if ((await endKeptDisksOfUser(db, userId, now)) > 0) await sendJob(boss, 'vm-reconcile', {}, { db });
}
