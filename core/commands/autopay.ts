import type { Config } from '../config/config.ts';
import type { Payment } from '../db/payments.ts';
import type { Db } from '../db/pool.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import { findSubscription, insertPendingSubscription, type Subscription } from '../db/subscriptions.ts';
import { attachSubscription, findLiveVmByUser } from '../db/vms.ts';
import { findUserById } from '../db/users.ts';
import {
  activateMandate,
  cancelMandate,
  cancelOtherMandates,
  endRenewedPlan,
  failMandate,
  findLatestMandateOfUser,
  findLatestRenewal,
  findLiveMandateOfUser,
  findMandateByRegistration,
  findRenewal,
  findRenewalLink,
  insertPendingMandate,
  linkRenewalSubscription,
  listRenewalsOfMandate,
  moveRenewal,
  pauseMandate,
  resumeMandate,
  setMandateSchedule,
  type Mandate,
  type Renewal,
  type RenewalLink,
} from '../db/autopay.ts';
import {
  AUTOPAY_MESSAGES,
  mandateMethodOf,
  OPEN_RENEWAL_STATES,
  payNowOpen,
  renewalExpiry,
  resumedState,
  scheduledDebitAt,
} from '../domain/autopay.ts';
import {
  autopayCancelledMail,
  autopayPausedMail,
  autopayResumedMail,
  autopaySetUpMail,
  autopayStoppedMail,
} from '../emails/autopay.ts';
import { sendJob, type Boss } from '../queue.ts';

/**
 * AutoPay, the customer's side and the activation's: a checkout that opts in records a pending
 * mandate; the payment's verified success activates it (or, for a renewal, continues the renewed
 * plan on the same machine); the customer cancels, pauses, resumes, or pays a failed renewal by
 * hand. Every change is a conditional transition in one transaction with the jobs it needs. The
 * renewal sweep is core/commands/autopayRenewal.ts. Nothing here calls PayU.
 */

export class AutopayRefusal extends Error {
  override name = 'AutopayRefusal';
  readonly status: 404 | 409;
  constructor(status: 404 | 409, message: string) {
    super(message);
    this.status = status;
  }
}

/** A checkout posted with si=1: its mandate waits for PayU's verified answer. */
export async function recordCheckoutMandate(
  trx: Db,
  input: { payment: Payment; subscription: Subscription; endDate: string },
): Promise<Mandate> {
  const { payment, subscription } = input;
  return insertPendingMandate(trx, {
    userId: payment.user_id,
    registrationPaymentId: payment.id,
    planId: subscription.plan_id,
    planName: subscription.plan_name,
    hours: subscription.hours,
    storageGb: subscription.storage_gb,
    instanceType: subscription.instance_type,
    amountPaise: subscription.price_paise,
    endDate: input.endDate,
  });
}

// ---------------------------------------------------------------------------------------
// Activation (inside the transaction that settles a verified payment)

/** What a pending subscription renews (an AutoPay debit's or a "Pay now"), or null for an ordinary purchase. */
export async function renewalTerms(trx: Db, subscriptionId: string): Promise<RenewalLink | null> {
  return findRenewalLink(trx, subscriptionId);
}

/**
 * The plan a renewal renews gives way to it (the debit goes a little before the end). The renewal's
 * own period runs from the old end (renewalExpiry), so nothing is lost.
 */
export async function giveWayToRenewal(trx: Db, renewedSubscriptionId: string, now: Date): Promise<void> {
  await endRenewedPlan(trx, renewedSubscriptionId, now);
}

/** The renewal's period: one month from the renewed plan's end, or from payment when later. */
export function renewalPeriodEnd(terms: RenewalLink, now: Date): Date {
  return renewalExpiry(terms.previous_expires_at ?? now, now);
}

/**
 * After a verified payment activated `subscription`, in the same transaction: a registration's
 * mandate becomes active; a renewal continues the renewed plan's machine and moves the mandate
 * on; a plan bought by hand while a mandate is live becomes the one it follows (or stops it, for
 * another plan).
 */
export async function afterActivation(
  trx: Db,
  boss: Boss,
  config: Config,
  input: { payment: Payment; answer: unknown; subscription: Subscription; now: Date },
): Promise<void> {
  const { payment, subscription, now } = input;
  const expiresAt = subscription.expires_at ?? now;

  const registering = await findMandateByRegistration(trx, payment.id);
  if (registering?.status === 'pending') {
    const mode = (input.answer as { mode?: unknown } | null)?.mode;
    const method = mandateMethodOf(mode);
    if (!method || !payment.mihpayid) {
      // An answer we cannot read is never taken as a mandate: recorded and alerted.
      await failMandate(trx, registering.id, AUTOPAY_MESSAGES.registrationFailed);
      await raiseAlert(trx, {
        kind: 'autopay-problem',
        dedupeKey: `autopay-registration:${payment.txnid}`,
        message: `AutoPay registration ${payment.txnid} was paid but PayU's answer names no UPI or card mode (${String(mode)}): no mandate was recorded.`,
        details: { txnid: payment.txnid, mode: String(mode), mihpayid: payment.mihpayid },
      });
      return;
    }
    const firstDebitAt = scheduledDebitAt(expiresAt, method);
    await activateMandate(trx, registering.id, {
      method,
      authpayuid: payment.mihpayid,
      currentSubscriptionId: subscription.id,
      nextDebitAt: firstDebitAt,
    });
    for (const id of await cancelOtherMandates(trx, payment.user_id, registering.id, now)) {
      await sendJob(boss, 'autopay-revoke', { mandateId: id }, { db: trx, singletonKey: id });
    }
    const customer = await findUserById(trx, payment.user_id);
    if (customer) {
      const setUp = autopaySetUpMail(
        customer,
        {
          planName: registering.plan_name,
          hours: registering.hours,
          amountPaise: registering.amount_paise,
          method,
          firstDebitAt,
          noticeHours: Math.round(config.autopay.noticeMinutes / 60),
        },
        config.publicUrl,
      );
      await sendJob(boss, 'email-send', setUp, { db: trx });
    }
    return;
  }

  const link = await findRenewalLink(trx, subscription.id);
  if (link) {
    const renewal = await findRenewal(trx, link.renewal_id);
    if (renewal) {
      await moveRenewal(trx, renewal.id, ['debiting', 'retrying', 'failed', 'manual', 'noticed'], 'renewed');
      const mandate = await findLiveMandateOfUser(trx, payment.user_id);
      if (mandate?.id === renewal.mandate_id) {
        await setMandateSchedule(trx, mandate.id, {
          currentSubscriptionId: subscription.id,
          nextDebitAt: scheduledDebitAt(expiresAt, mandate.method),
        });
      }
    }
    // The same machine serves the renewal from now (vm-provision finds it attached): the hours
    // start again and nothing stops it in between.
    const vm = await findLiveVmByUser(trx, payment.user_id);
    if (vm?.subscription_id === link.renews_subscription_id)
      await attachSubscription(trx, vm.id, subscription.id, now);
    return;
  }

  // A plan bought by hand (after a renewal failed, or a pause let the plan end).
  const live = await findLiveMandateOfUser(trx, payment.user_id);
  if (!live || subscription.is_trial || live.current_subscription_id === subscription.id) return;
  const same =
    live.plan_id === subscription.plan_id &&
    live.hours === subscription.hours &&
    live.amount_paise === subscription.price_paise;
  for (const open of await listRenewalsOfMandate(trx, live.id, [
    ...OPEN_RENEWAL_STATES,
    'skipped',
    'manual',
  ])) {
    if (open.state !== 'debiting') await moveRenewal(trx, open.id, [open.state], 'superseded');
  }
  if (same) {
    await setMandateSchedule(trx, live.id, {
      currentSubscriptionId: subscription.id,
      nextDebitAt: live.status === 'active' ? scheduledDebitAt(expiresAt, live.method) : null,
    });
    return;
  }
  await stopMandate(trx, boss, config, live, AUTOPAY_MESSAGES.changedPlan, now);
}

/**
 * A refund PayU took on ended this plan: a mandate renewing it stops too (revoked at PayU, the
 * customer told), or its next debit would renew a plan the customer gave back.
 */
export async function stopAutoRenewOfRefundedPlan(
  trx: Db,
  boss: Boss,
  config: Config,
  input: { userId: string; subscriptionId: string; now: Date },
): Promise<void> {
  const live = await findLiveMandateOfUser(trx, input.userId);
  if (live?.current_subscription_id !== input.subscriptionId) return;
  for (const open of await listRenewalsOfMandate(trx, live.id, [
    'noticing',
    'noticed',
    'retrying',
    'skipped',
  ])) {
    await moveRenewal(trx, open.id, [open.state], 'cancelled');
  }
  await stopMandate(trx, boss, config, live, AUTOPAY_MESSAGES.refunded, input.now);
}

/** Cancels a mandate for a reason of ours, revokes it at PayU and tells the customer why. */
async function stopMandate(trx: Db, boss: Boss, config: Config, mandate: Mandate, reason: string, now: Date) {
  if (!(await cancelMandate(trx, mandate.id, now, reason))) return;
  await sendJob(boss, 'autopay-revoke', { mandateId: mandate.id }, { db: trx, singletonKey: mandate.id });
  const customer = await findUserById(trx, mandate.user_id);
  if (customer) {
    await sendJob(boss, 'email-send', autopayStoppedMail(customer, reason, config.publicUrl), { db: trx });
  }
}

// ---------------------------------------------------------------------------------------
// The customer's actions

/** What the customer's own AutoPay actions need beyond the database: the queue, and the settings mails quote. */
export type AutopayActionDeps = { db: Db; boss: Boss; config: Pick<Config, 'publicUrl' | 'vm'> };

/** The customer and the end of the plan a mandate follows, for the mail confirming a change. */
async function mailFacts(trx: Db, mandate: Mandate) {
  const [customer, plan] = await Promise.all([
    findUserById(trx, mandate.user_id),
    mandate.current_subscription_id ? findSubscription(trx, mandate.current_subscription_id) : null,
  ]);
  return { customer, planEndsAt: plan?.status === 'active' ? plan.expires_at : null };
}

/**
 * Cancel: no further debit (a notice already sent is void: its debit is stopped), and the
 * mandate is revoked at PayU by `autopay-revoke`. Twice is the same as once (one mail). A debit
 * already with the bank is not recalled; its outcome still counts.
 */
export async function cancelAutoRenew(deps: AutopayActionDeps, userId: string, now: Date): Promise<Mandate> {
  const { boss } = deps;
  return deps.db.transaction(async (trx) => {
    const live = await findLiveMandateOfUser(trx, userId);
    if (!live) {
      const latest = await findLatestMandateOfUser(trx, userId);
      if (latest && (latest.status === 'cancelled' || latest.status === 'revoked')) return latest;
      throw new AutopayRefusal(404, AUTOPAY_MESSAGES.noMandate);
    }
    const cancelled = await cancelLiveMandate(trx, boss, live, now);
    if (!cancelled) return live;
    await mailPlanEnd(trx, deps, live, autopayCancelledMail);
    return cancelled;
  });
}

/**
 * The confirmation of a pause or a cancel, in the caller's transaction: both tell the customer
 * the day their PC stops, the end of the plan the mandate was renewing.
 */
async function mailPlanEnd(
  trx: Db,
  deps: AutopayActionDeps,
  live: Mandate,
  mailOf: typeof autopayPausedMail | typeof autopayCancelledMail,
): Promise<void> {
  const { customer, planEndsAt } = await mailFacts(trx, live);
  if (!customer) return;
  const { config } = deps;
  const confirm = mailOf(
    customer,
    { planName: live.plan_name, planEndsAt, graceDays: config.vm.graceDays },
    config.publicUrl,
  );
  await sendJob(deps.boss, 'email-send', confirm, { db: trx });
}

/** The cancel itself, in the caller's transaction: no further debit, the revoke job queued. */
async function cancelLiveMandate(trx: Db, boss: Boss, live: Mandate, now: Date): Promise<Mandate | null> {
  const cancelled = await cancelMandate(trx, live.id, now);
  if (!cancelled) return null;
  for (const open of await listRenewalsOfMandate(trx, live.id, [
    'noticing',
    'noticed',
    'retrying',
    'skipped',
  ])) {
    await moveRenewal(trx, open.id, [open.state], 'cancelled');
  }
  await sendJob(boss, 'autopay-revoke', { mandateId: live.id }, { db: trx, singletonKey: live.id });
  return cancelled;
}

/** Account deletion: a deleted account is never debited (in the deletion's transaction). */
export async function endAutoRenewOfUser(db: Db, boss: Boss, userId: string, now: Date): Promise<void> {
  const live = await findLiveMandateOfUser(db, userId);
  if (live) await cancelLiveMandate(db, boss, live, now);
}

/**
 * Pause: the next debit is skipped (a notice already sent is void); the mandate stays at PayU.
 * The customer is mailed the day their PC will stop, the plan's end.
 */
export async function pauseAutoRenew(deps: AutopayActionDeps, userId: string, now: Date): Promise<Mandate> {
  return deps.db.transaction(async (trx) => {
    const live = await findLiveMandateOfUser(trx, userId);
    if (!live) throw new AutopayRefusal(404, AUTOPAY_MESSAGES.noMandate);
    if (live.status === 'paused') return live;
    const paused = await pauseMandate(trx, live.id, now);
    if (!paused) throw new AutopayRefusal(409, AUTOPAY_MESSAGES.cannotPause);
    for (const open of await listRenewalsOfMandate(trx, live.id, ['noticing', 'noticed', 'retrying'])) {
      await moveRenewal(trx, open.id, [open.state], 'skipped');
    }
    await mailPlanEnd(trx, deps, live, autopayPausedMail);
    return paused;
  });
}

/**
 * Resume: debits go on. A renewal skipped by the pause comes back if its plan has not ended yet
 * (its notice stands; one not yet sent goes now, and the debit waits the whole notice lead).
 */
export async function resumeAutoRenew(deps: AutopayActionDeps, userId: string, now: Date): Promise<Mandate> {
  const { boss, config } = deps;
  return deps.db.transaction(async (trx) => {
    const live = await findLiveMandateOfUser(trx, userId);
    if (!live) throw new AutopayRefusal(404, AUTOPAY_MESSAGES.noMandate);
    if (live.status === 'active') return live;
    const resumed = await resumeMandate(trx, live.id);
    if (!resumed) throw new AutopayRefusal(409, AUTOPAY_MESSAGES.notPaused);
    const latest = await findLatestRenewal(trx, live.id);
    const back =
      latest && latest.renews_subscription_id === live.current_subscription_id
        ? resumedState(
            { state: latest.state, renewalAt: latest.renewal_at, noticeSentAt: latest.notice_sent_at },
            now,
          )
        : null;
    if (latest && back) {
      await moveRenewal(trx, latest.id, ['skipped'], back);
      await setMandateSchedule(trx, live.id, { nextDebitAt: latest.debit_at });
    } else if (latest?.renews_subscription_id === live.current_subscription_id) {
      // The plan it followed ended while paused: the next plan bought is the one it renews.
      await setMandateSchedule(trx, live.id, { nextDebitAt: null });
    }
    const current = (await findLiveMandateOfUser(trx, userId)) ?? resumed;
    const customer = await findUserById(trx, live.user_id);
    if (customer) {
      const confirm = autopayResumedMail(
        customer,
        { planName: live.plan_name, amountPaise: live.amount_paise, nextDebitAt: current.next_debit_at },
        config.publicUrl,
      );
      await sendJob(boss, 'email-send', confirm, { db: trx });
    }
    return current;
  });
}

/**
 * A pending subscription of the mandate's plan that renews the renewal's plan (what an AutoPay
 * debit buys, or a "Pay now" checkout): its activation continues that plan on the same machine.
 */
export async function pendingRenewal(trx: Db, mandate: Mandate, renewal: Renewal): Promise<Subscription> {
  const pending = await insertPendingSubscription(trx, {
    userId: mandate.user_id,
    planId: mandate.plan_id,
    planName: mandate.plan_name,
    isTrial: false,
    hours: mandate.hours,
    storageGb: mandate.storage_gb,
    instanceType: mandate.instance_type,
    pricePaise: mandate.amount_paise,
    trialPhone: null,
  });
  await linkRenewalSubscription(trx, {
    subscriptionId: pending.id,
    renewsSubscriptionId: renewal.renews_subscription_id,
    renewalId: renewal.id,
  });
  return pending;
}

/**
 * "Pay now": a failed renewal paid by hand, through the ordinary checkout. A pending subscription
 * of the same plan is made and linked to the renewal, so its payment continues the renewed plan
 * on the same machine; the renewal's automatic retries stop. Answers the pending subscription,
 * which /payment then confirms.
 */
export async function payRenewalNow(db: Db, userId: string): Promise<Subscription> {
  return db.transaction(async (trx) => {
    const mandate = await findLatestMandateOfUser(trx, userId);
    const renewal = mandate ? await findLatestRenewal(trx, mandate.id) : null;
    if (!mandate || !renewal) throw new AutopayRefusal(404, AUTOPAY_MESSAGES.nothingToPay);
    if (renewal.state === 'debiting') throw new AutopayRefusal(409, AUTOPAY_MESSAGES.debitInFlight);
    if (!payNowOpen(renewal)) throw new AutopayRefusal(409, AUTOPAY_MESSAGES.nothingToPay);
    const pending = await pendingRenewal(trx, mandate, renewal);
    await moveRenewal(trx, renewal.id, ['retrying', 'failed'], 'manual');
    return pending;
  });
}
