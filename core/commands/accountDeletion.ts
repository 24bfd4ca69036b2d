import { endKeptDisksOfUser } from '../db/snapshots.ts';
import {
  cancelSubscription,
  findActiveSubscription,
  findSubscriptionsByIds,
  hasTrialPhoneOnRecord,
} from '../db/subscriptions.ts';
import { listUndeletedVmsOfUser } from '../db/vms.ts';
import { countInvoicesOfUser, minimiseInvoicesOfUser } from '../db/invoices.ts';
import { minimiseCreditNotesOfUser } from '../db/creditNotes.ts';
import { minimisePaymentsOfUser } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { sendJob, type Boss } from '../queue.ts';
import {
  planLabel,
  type DeletedMachine,
  MINIMISED_CUSTOMER_NAME,
  minimisedCustomerEmail,
  PAYU_PERSONAL_FIELDS,
  RECIPIENT_NAME_REQUIRED_FROM_PAISE,
} from '../domain/accountDeletion.ts';
import { remainingSeconds } from '../domain/usage.ts';
import { requestTerminate } from './vmActions.ts';
import { endAutoRenewOfUser } from './autopay.ts';

/** What a deletion is about to do, for its confirmation mail (core/emails/accounts.ts). */
export type DeletionFacts = {
  /** Machines (each with its disk) that go to `terminating`, each with the plan it was made for. */
  machines: DeletedMachine[];
  /** The plan in force, if any (named as the dialog names it), the seconds it had left and its end. */
  plan: { name: string; secondsLeft: number; expiresAt: Date | null } | null;
  /** Invoices kept, minimised. */
  invoices: number;
  /** A trial was bought with the user's phone: the number stays on that plan (one trial per number). */
  trialPhoneKept: boolean;
};

/**
 * Read inside the deletion transaction, before anything changes; also what the dialog lists
 * beforehand (`GET /api/user/deletion`), so the two say the same.
 */
export async function deletionFacts(db: Db, userId: string, now: Date): Promise<DeletionFacts> {
  const machines = await listUndeletedVmsOfUser(db, userId);
  const plans = await findSubscriptionsByIds(db, [...new Set(machines.map((vm) => vm.subscription_id))]);
  const plan = await findActiveSubscription(db, userId, now);
  const used = plan ? (machines.find((vm) => vm.subscription_id === plan.id)?.usage_seconds ?? 0) : 0;
  return {
    machines: machines.map((vm) => ({
      planId: vm.plan_id,
      isTrial: plans.get(vm.subscription_id)?.is_trial ?? false,
      state: vm.state,
    })),
    plan: plan && {
      name: planLabel({ planId: plan.plan_id, isTrial: plan.is_trial, planName: plan.plan_name }),
      secondsLeft: remainingSeconds(plan.hours, used),
      expiresAt: plan.expires_at,
    },
    invoices: await countInvoicesOfUser(db, userId),
    trialPhoneKept: await hasTrialPhoneOnRecord(db, userId),
  };
}

/**
 * THE seam between deleting an account and the user's cloud PCs. `DELETE /api/user` calls it
 * inside the deletion transaction (with that transaction as `db`), after sessions are revoked
 * and before personal data is anonymised, so whatever it enqueues exists exactly when the
 * deletion does.
 *
 * Every machine of the user goes to `terminating` with a `vm-terminate` job (the job calls EC2
 * outside any transaction, keyed on the VM id, and also terminates anything launched under the
 * machine's ClientToken; the root volume is DeleteOnTermination, so the disk goes with it; a
 * running machine stops counting hours now), and the active plan is cancelled so nothing
 * provisions (a queued `vm-provision` skips a plan not in force), claims a pool machine for it
 * or renews it; any kept disk (snapshot) is due for deletion at once. Invoices and payments
 * stay: the users row is anonymised, not removed, so their foreign keys hold;
 * `minimiseKeptRecords` strips the person from them.
 */
export async function releaseUserResources(db: Db, boss: Boss, userId: string): Promise<void> {
  const now = new Date();
  for (const vm of await listUndeletedVmsOfUser(db, userId)) {
    await requestTerminate(db, boss, vm.id, 'account-deleted', now);
  }
  const active = await findActiveSubscription(db, userId, now);
  if (active) await cancelSubscription(db, active.id, now);
  // Kept disks (snapshots of expired machines) go too: every window ends now, and the
  // vm-reconcile run sent here deletes them in EC2 (and retries what fails).
  if ((await endKeptDisksOfUser(db, userId, now)) > 0) await sendJob(boss, 'vm-reconcile', {}, { db });
  // Automatic renewal: never another debit; the mandate is revoked at PayU by its job.
  await endAutoRenewOfUser(db, boss, userId, now);
}

/**
 * The records a deleted account leaves behind for the tax authority (invoices, payments) lose
 * the person: name, email and phone on invoices, PayU's personal fields on payments
 * (core/domain/accountDeletion.ts says what is kept and why). Call in the deletion transaction.
 */
export async function minimiseKeptRecords(
  db: Db,
  userId: string,
): Promise<{ invoices: number; creditNotes: number; payments: number }> {
  const replacement = {
    name: MINIMISED_CUSTOMER_NAME,
    email: minimisedCustomerEmail(userId),
    nameRequiredFromPaise: RECIPIENT_NAME_REQUIRED_FROM_PAISE,
  };
  const invoices = await minimiseInvoicesOfUser(db, userId, replacement);
  // Credit notes name the same person as the invoices they reduce.
  const creditNotes = await minimiseCreditNotesOfUser(db, userId, replacement);
  const payments = await minimisePaymentsOfUser(db, userId, PAYU_PERSONAL_FIELDS);
  return { invoices, creditNotes, payments };
}
