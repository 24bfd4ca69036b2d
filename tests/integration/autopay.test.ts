import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAutopayRenewal } from '../../core/commands/autopayRenewal.ts';
import { findLatestMandateOfUser, findLatestRenewal, type Mandate } from '../../core/db/autopay.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { findPaymentById } from '../../core/db/payments.ts';
import { sendJob } from '../../core/queue.ts';
import { sql } from '../../core/db/pool.ts';
import { findActiveSubscription, findSubscription } from '../../core/db/subscriptions.ts';
import { findLiveVmByUser, findVm } from '../../core/db/vms.ts';
import { AUTOPAY_MESSAGES, noticeDueAt, scheduledDebitAt } from '../../core/domain/autopay.ts';
import { addOneMonth } from '../../core/domain/plans.ts';
import { formatLongDate } from '../../core/domain/time.ts';
import { createPayUClient } from '../../core/providers/payu.ts';
import { createPayUSiClient, type PayUSiClient } from '../../core/providers/payuSi.ts';
import { runPlanExpiry } from '../../worker/jobs/planExpiry.ts';
import { reconcilePayments } from '../../worker/jobs/paymentReconcile.ts';
import { newClient, waitForMail, type Client } from '../support/accounts.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { listNoticesOfUser } from '../support/rows.ts';

/**
 * Plans that renew themselves, end to end: the real API and worker over a fresh database, the
 * sandbox playing PayU's standing instructions. The renewal sweep is the real `autopay-renewal`
 * handler run with a moved clock (`runAutopayRenewal(deps, si, later)`), as the cron would find
 * the same rows days later; what it hands on (payment-verify, vm-provision, mail) is done by the
 * running worker.
 */

const stack = await startTestStack({ worker: true });
const db = stack.services.db;
const deps = stack.worker!.deps;
const si = createPayUSiClient(stack.config.payu);
const { count, buyer, choose, startPayment, postForm, control, paymentStatus, settled } =
  paymentHelpers(stack);

const MINUTE = 60_000;
const NOTICE_MINUTES = stack.config.autopay.noticeMinutes;

type SandboxState = {
  mandates: Array<{ authpayuid: string; status: string; method: string; notices: unknown[] }>;
  siDebits: Array<{ txnid: string; status: string; amountPaise: number }>;
  serverCallCounts: Record<string, number>;
};

async function sandbox(authpayuid: string): Promise<SandboxState> {
  const response = await fetch(`${stack.url}/sandbox/payu/_state?authpayuid=${authpayuid}`);
  return (await response.json()) as SandboxState;
}

/** How many server API calls of `command` the sandbox received so far (all customers). */
async function calls(command: string): Promise<number> {
  const response = await fetch(`${stack.url}/sandbox/payu/_state?txnid=none`);
  return ((await response.json()) as SandboxState).serverCallCounts[command] ?? 0;
}

const sweep = (at: Date, client: PayUSiClient = si) => runAutopayRenewal(deps, client, at);

async function dashboard(client: Client) {
  const reply = await client.call('/api/vm/dashboard');
  expect(reply.status).toBe(200);
  return reply.body as Record<string, any>;
}

async function mandateOf(userId: string): Promise<Mandate> {
  return (await findLatestMandateOfUser(db, userId))!;
}

/** Chooses LEGEND 45 h, opts in, pays on PayU's page by UPI (or card): the mandate is registered. */
async function autoRenewBuyer(mode: 'UPI' | 'CC' = 'UPI') {
  const { user, client } = await buyer();
  expect((await choose(client, user.email, { plan: 'LEGEND', duration: 45 })).status).toBe(200);
  const started = await startPayment(client, user.email, { autoRenew: true, amount: 1830 });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body).toMatchObject({ si: '1', api_version: '7', amount: '1830.00' });
  expect(JSON.parse(started.body.si_details)).toMatchObject({
    billingAmount: '1830.00',
    billingCurrency: 'INR',
    billingCycle: 'MONTHLY',
    billingInterval: 1,
  });
  const { action, ...fields } = started.body as Record<string, string>;
  // The sandbox refuses a hash that does not cover si_details: this page is the proof it does.
  expect((await postForm(action!, fields, stack.url)).status).toBe(200);
  await control({ action: 'complete', txnid: started.body.txnid, outcome: 'success', mode });
  await paymentStatus(started.body.txnid, 'success');
  const mandate = await waitFor('the mandate to be active', async () => {
    const m = await findLatestMandateOfUser(db, user.id);
    return m?.status === 'active' ? m : null;
  });
  const plan = (await findActiveSubscription(db, user.id, new Date()))!;
  return { user, client, mandate, plan, txnid: started.body.txnid as string };
}

/** The machine of the plan, running (the sandbox's fast profile boots in seconds). */
async function runningMachine(userId: string) {
  return waitFor(
    'the machine to run',
    async () => {
      const vm = await findLiveVmByUser(db, userId);
      return vm?.state === 'running' ? vm : null;
    },
    30_000,
  );
}

/** When the renewal's notice and debit fall due for this plan. */
function schedule(plan: { expires_at: Date | null }, mandate: Mandate) {
  const debitAt = scheduledDebitAt(plan.expires_at!, mandate.method);
  return { debitAt, noticeAt: noticeDueAt(debitAt, NOTICE_MINUTES) };
}

async function renewalOf(mandate: Mandate) {
  return (await findLatestRenewal(db, mandate.id))!;
}

/** The plan that renewed `renewedId`, once active. */
async function renewalPlan(userId: string, renewedId: string) {
  return waitFor('the renewal to be active', async () => {
    const active = await db.maybeOne(sql.type(z.object({ id: z.uuid() }))`
      SELECT id FROM subscriptions WHERE user_id = ${userId} AND status = 'active' AND id <> ${renewedId}`);
    return active ? findSubscription(db, active.id) : null;
  });
}

const later = (at: Date, minutes: number) => new Date(at.getTime() + minutes * MINUTE);

describe('AutoPay: the whole cycle', () => {
  it('mandate at checkout → notice → debit → the same machine renewed, hours reset → invoice and receipt', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('UPI');
    expect(mandate).toMatchObject({ method: 'upi', amount_paise: 183000, current_subscription_id: plan.id });
    const vm = await runningMachine(user.id);
    const { debitAt, noticeAt } = schedule(plan, mandate);
    expect((await dashboard(client)).autoRenew).toEqual({
      status: 'active',
      nextDebitAt: debitAt.toISOString(),
      amount: 1830,
      method: 'upi',
      noticeSentAt: null,
      debiting: false,
      lastFailure: null,
      payNow: false,
      note: null,
    });

    // Before the notice is due nothing reaches PayU.
    const preDebits = await calls('pre_debit_SI');
    await sweep(later(noticeAt, -5));
    expect(await calls('pre_debit_SI')).toBe(preDebits);

    // The notice, 48 hours ahead: two sweeps at once send it once, and mail the customer.
    const [a, b] = await Promise.all([sweep(later(noticeAt, 1)), sweep(later(noticeAt, 1))]);
    expect(a.notices + b.notices).toBe(1);
    const state = await sandbox(mandate.authpayuid!);
    expect(state.mandates[0]!.notices).toHaveLength(1);
    expect(state.mandates[0]!.notices[0]).toMatchObject({ amountPaise: 183000 });
    expect(await calls('pre_debit_SI')).toBe(preDebits + 1);
    expect(await calls('upi_mandate_status')).toBeGreaterThan(0);
    const notice = await waitForMail(stack, user.email, 'will debit ₹1,830.00');
    expect(notice.text).toContain('Cancel or pause automatic renewal');
    expect(notice.text).toContain('same cloud PC');
    expect((await dashboard(client)).autoRenew).toMatchObject({
      status: 'active',
      noticeSentAt: later(noticeAt, 1).toISOString(),
      nextDebitAt: debitAt.toISOString(),
    });

    // Not before the debit time, however often the sweep runs.
    await sweep(later(debitAt, -1));
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(0);

    // The debit: two sweeps at once debit once.
    await Promise.all([sweep(later(debitAt, 1)), sweep(later(debitAt, 1))]);
    const renewal = await renewalOf(mandate);
    const payment = (await findPaymentById(db, renewal.payment_id!))!;
    expect((await sandbox(mandate.authpayuid!)).siDebits).toEqual([
      expect.objectContaining({ txnid: payment.txnid, status: 'success', amountPaise: 183000 }),
    ]);
    await paymentStatus(payment.txnid, 'success');
    expect(await calls('verify_si_payment')).toBeGreaterThan(0);

    // Renewed: a month from the old end, on the same machine, hours from zero.
    const renewed = await renewalPlan(user.id, plan.id);
    expect(renewed.id).toBe(renewal.subscription_id);
    expect(renewed.expires_at).toEqual(addOneMonth(plan.expires_at!));
    expect((await findSubscription(db, plan.id))?.status).toBe('expired');
    expect((await renewalOf(mandate)).state).toBe('renewed');
    const same = await waitFor('the machine to serve the renewal', async () => {
      const row = await findVm(db, vm.id);
      return row?.subscription_id === renewed.id ? row : null;
    });
    expect(same).toMatchObject({ id: vm.id, instance_id: vm.instance_id, state: 'running' });
    expect(same.usage_seconds).toBeLessThan(60);
    expect(
      stack.sandboxEc2
        .state()
        .instances.filter((i) => i.tags['legend:vm'] === vm.id || i.clientToken === vm.id),
    ).toHaveLength(1);
    await waitFor('vm-provision of the renewal to finish', async () =>
      (await count(sql.unsafe`
        SELECT 1 FROM pgboss.job WHERE name = 'vm-provision' AND data->>'subscriptionId' = ${renewed.id}
          AND state = 'completed'`)) === 1
        ? true
        : null,
    );
    expect(await count(sql.unsafe`SELECT 1 FROM vms WHERE user_id = ${user.id}`)).toBe(1);
    expect(await count(sql.unsafe`SELECT 1 FROM vm_snapshots WHERE user_id = ${user.id}`)).toBe(0);

    // The GST invoice of the debit and the receipt (the post-debit alert).
    expect(
      await count(
        sql.unsafe`SELECT 1 FROM invoices WHERE payment_id = ${payment.id} AND subscription_id = ${renewed.id}`,
      ),
    ).toBe(1);
    // The debit succeeded: its mail says so in the subject, with the invoice (the post-debit alert).
    const receipt = await waitForMail(stack, user.email, 'AutoPay debit of ₹1,830.00 done', notice.sentAt);
    expect(receipt.subject).toContain('plan renewed');
    expect(receipt.text).toContain('AutoPay debited ₹1,830.00 for LEGEND');
    expect(receipt.text).toContain('renewed on the same Virtual Computer');
    expect(receipt.text).toContain(payment.txnid);

    // The next cycle is scheduled from the new end.
    const next = await mandateOf(user.id);
    expect(next).toMatchObject({ current_subscription_id: renewed.id, status: 'active' });
    expect(next.next_debit_at).toEqual(scheduledDebitAt(renewed.expires_at!, 'upi'));

    // A late callback (it asks for a verification), the reconciliation and more sweeps charge
    // and renew nothing twice.
    await sendJob(stack.services.boss, 'payment-verify', { txnid: payment.txnid, source: 'webhook' });
    await reconcilePayments(deps, createPayUClient(stack.config.payu), later(debitAt, 10));
    await sweep(later(debitAt, 10));
    await sweep(later(debitAt, 60 * 24));
    await settled(payment.txnid);
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(1);
    expect(await count(sql.unsafe`SELECT 1 FROM invoices WHERE user_id = ${user.id}`)).toBe(2);
    expect(
      await count(sql.unsafe`SELECT 1 FROM subscriptions WHERE user_id = ${user.id} AND status = 'active'`),
    ).toBe(1);
  });

  /** A debit PayU takes while the sweep dies before reading the answer (nothing verifies it yet). */
  async function chargedThenCrashed() {
    const bought = await autoRenewBuyer('UPI');
    const { debitAt, noticeAt } = schedule(bought.plan, bought.mandate);
    await sweep(later(noticeAt, 1));
    const dying: PayUSiClient = {
      ...si,
      async debit(input) {
        await si.debit(input);
        throw new Error('the worker died mid-call');
      },
    };
    await sweep(later(debitAt, 1), dying);
    const renewal = await renewalOf(bought.mandate);
    const payment = (await findPaymentById(db, renewal.payment_id!))!;
    expect(payment.status).toBe('initiated');
    expect(renewal).toMatchObject({ state: 'debiting', debit_answered_at: null });
    return { ...bought, debitAt, payment };
  }

  async function renewedOnce(userId: string, planId: string, txnid: string, authpayuid: string) {
    await paymentStatus(txnid, 'success');
    await renewalPlan(userId, planId);
    await settled(txnid);
    expect(await count(sql.unsafe`SELECT 1 FROM invoices WHERE user_id = ${userId}`)).toBe(2);
    expect((await sandbox(authpayuid)).siDebits).toHaveLength(1);
  }

  it('a crash between the charge and activation: the reconciliation finds the charge and renews once', async () => {
    const { user, mandate, plan, debitAt, payment } = await chargedThenCrashed();
    await reconcilePayments(deps, createPayUClient(stack.config.payu), later(debitAt, 3));
    await renewedOnce(user.id, plan.id, payment.txnid, mandate.authpayuid!);
    // A later sweep has nothing left to send.
    await sweep(later(debitAt, 10));
    expect((await renewalOf(mandate)).state).toBe('renewed');
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(1);
  });

  it('a crash before the answer: the sweep resends the same txnid, PayU refuses the duplicate, nothing is charged twice', async () => {
    const { user, mandate, plan, debitAt, payment } = await chargedThenCrashed();
    await sweep(later(debitAt, 7));
    await renewedOnce(user.id, plan.id, payment.txnid, mandate.authpayuid!);
    expect(await calls('si_transaction')).toBeGreaterThanOrEqual(2);
    expect((await renewalOf(mandate)).state).toBe('renewed');
  });
});

describe('AutoPay: a debit that fails', () => {
  it('tells the customer at once, the plan ends as usual, the retry a day later renews the same machine', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('UPI');
    const vm = await runningMachine(user.id);
    const { debitAt, noticeAt } = schedule(plan, mandate);
    await sweep(later(noticeAt, 1));
    await control({
      action: 'si-fail-next-debit',
      authpayuid: mandate.authpayuid,
      reason: 'Insufficient funds',
    });
    await sweep(later(debitAt, 1));
    const first = await renewalOf(mandate);
    await paymentStatus((await findPaymentById(db, first.payment_id!))!.txnid, 'failure');

    // The next sweep sees the failure: the customer is told, a retry is set a day later.
    await sweep(later(debitAt, 2));
    const retrying = await renewalOf(mandate);
    expect(retrying).toMatchObject({ state: 'retrying', attempts: 1 });
    expect(retrying.next_attempt_at!.getTime()).toBeGreaterThanOrEqual(later(debitAt, 24 * 60).getTime());
    const failed = await waitForMail(stack, user.email, 'We could not renew your LEGEND plan');
    expect(failed.text).toContain('not enough balance');
    expect(failed.text).toContain('We will try again on');
    expect((await dashboard(client)).autoRenew).toMatchObject({
      status: 'active',
      lastFailure: {
        reason: 'Your bank declined the payment: not enough balance.',
        retryAt: retrying.next_attempt_at!.toISOString(),
      },
      payNow: true,
    });

    // The plan ends; its machine is stopped and kept (today's expiry path). The worker acts in real
    // time from here, so the plan's end is brought to the present rather than the clock moved on.
    await db.query(
      sql.unsafe`UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE id = ${plan.id}`,
    );
    await runPlanExpiry(deps);
    expect((await findSubscription(db, plan.id))?.status).toBe('expired');
    await waitFor(
      'the machine to stop',
      async () => (await findVm(db, vm.id))?.state === 'stopped' || null,
      30_000,
    );

    // The retry: the debit goes through; the same machine, with its disk, starts again.
    await sweep(later(retrying.next_attempt_at!, 1));
    const second = await renewalOf(mandate);
    expect(second.attempts).toBe(2);
    await paymentStatus((await findPaymentById(db, second.payment_id!))!.txnid, 'success');
    const renewed = (await renewalPlan(user.id, plan.id))!;
    expect(renewed.id).toBe(second.subscription_id);
    await waitFor(
      'the same machine to run again',
      async () => {
        const row = await findVm(db, vm.id);
        return row?.subscription_id === renewed.id && row.state === 'running' ? row : null;
      },
      30_000,
    );
    expect(await count(sql.unsafe`SELECT 1 FROM vms WHERE user_id = ${user.id}`)).toBe(1);
    expect((await sandbox(mandate.authpayuid!)).siDebits.map((d) => d.status)).toEqual([
      'failure',
      'success',
    ]);
  }, 90_000);

  it('"Pay now" after a failed debit renews the same machine through the checkout, and the retry stops', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('CC');
    await runningMachine(user.id);
    const { debitAt, noticeAt } = schedule(plan, mandate);
    await sweep(later(noticeAt, 1));
    expect(await calls('check_mandate_status')).toBeGreaterThan(0);
    await control({ action: 'si-fail-next-debit', authpayuid: mandate.authpayuid, reason: 'Do not honour' });
    await sweep(later(debitAt, 1));
    await paymentStatus(
      (await findPaymentById(db, (await renewalOf(mandate)).payment_id!))!.txnid,
      'failure',
    );
    await sweep(later(debitAt, 2));
    const retrying = await renewalOf(mandate);
    expect(retrying.state).toBe('retrying');

    // Before the plan ends: Pay now, then the ordinary checkout of the same plan.
    const paying = await client.call('/api/vm/autopay/pay-now', { body: {} });
    expect(paying.status, JSON.stringify(paying.body)).toBe(200);
    const checkout = await client.call('/api/vm/checkout');
    expect(checkout.body).toMatchObject({ selectedPlan: 'LEGEND', selectedDuration: 45, autoRenew: null });
    const started = await startPayment(client, user.email);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { action, ...fields } = started.body as Record<string, string>;
    expect((await postForm(action!, fields, stack.url)).status).toBe(200);
    await control({ action: 'complete', txnid: started.body.txnid, outcome: 'success' });
    await paymentStatus(started.body.txnid, 'success');
    const renewed = (await renewalPlan(user.id, plan.id))!;
    expect(renewed.expires_at).toEqual(addOneMonth(plan.expires_at!));
    expect((await renewalOf(mandate)).state).toBe('renewed');

    // The retry time comes: nothing is debited.
    await sweep(later(retrying.next_attempt_at!, 1));
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(1);
    expect((await mandateOf(user.id)).current_subscription_id).toBe(renewed.id);
  });
});

describe('AutoPay: sweeps at once', () => {
  it('sweeps that overlap open one renewal and send one notice, and none of them fails', async () => {
    const { user, mandate, plan } = await autoRenewBuyer('UPI');
    const { debitAt, noticeAt } = schedule(plan, mandate);
    await Promise.all(Array.from({ length: 6 }, () => sweep(later(noticeAt, 1))));
    expect(await count(sql.unsafe`SELECT 1 FROM autopay_renewals WHERE user_id = ${user.id}`)).toBe(1);
    expect((await renewalOf(mandate)).state).toBe('noticed');
    expect((await sandbox(mandate.authpayuid!)).mandates[0]!.notices).toHaveLength(1);

    await Promise.all(Array.from({ length: 6 }, () => sweep(later(debitAt, 1))));
    const renewed = await renewalPlan(user.id, plan.id);
    await Promise.all(Array.from({ length: 6 }, () => sweep(later(debitAt, 5))));
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(1);
    expect(await count(sql.unsafe`SELECT 1 FROM invoices WHERE user_id = ${user.id}`)).toBe(2);
    expect((await mandateOf(user.id)).current_subscription_id).toBe(renewed!.id);
  });
});

describe('AutoPay: pause and cancel', () => {
  it('pause after the notice skips that debit without revoking; resume before the end brings it back', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('UPI');
    const { debitAt, noticeAt } = schedule(plan, mandate);
    // Set up: confirmed by mail with the first debit's day and how to stop it.
    const setUp = await waitForMail(stack, user.email, 'Automatic renewal is on for your LEGEND plan');
    expect(setUp.text).toContain('through UPI AutoPay');
    expect(setUp.text).toContain(`The first renewal is debited on ${formatLongDate(debitAt)}`);
    expect(setUp.text).toContain('48 hours before every debit');
    await sweep(later(noticeAt, 1));
    const paused = await client.call('/api/vm/autopay/pause', { body: {} });
    expect(paused.status).toBe(200);
    expect(paused.body.autoRenew).toMatchObject({ status: 'paused', nextDebitAt: null });
    expect((await client.call('/api/vm/autopay/pause', { body: {} })).status).toBe(200);
    // Paused: the mail names the day the PC stops (the plan's end), once however often it is asked.
    const pausedMail = await waitForMail(stack, user.email, 'Automatic renewal paused');
    expect(pausedMail.subject).toBe(
      `Automatic renewal paused: your PC stops on ${formatLongDate(plan.expires_at!)}`,
    );
    expect(pausedMail.text).toContain(`will stop on ${formatLongDate(plan.expires_at!)} at`);
    expect(pausedMail.text).toContain('files are kept for 7 days, and unused hours lapse');
    expect(
      (await stack.mailTo(user.email)).filter((m) => m.subject.startsWith('Automatic renewal paused')),
    ).toHaveLength(1);
    await sweep(later(debitAt, 1));
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(0);
    expect((await renewalOf(mandate)).state).toBe('skipped');
    // Not revoked at PayU.
    expect((await sandbox(mandate.authpayuid!)).mandates[0]!.status).toBe('active');

    const resumed = await client.call('/api/vm/autopay/resume', { body: {} });
    expect(resumed.status).toBe(200);
    expect(resumed.body.autoRenew).toMatchObject({ status: 'active', nextDebitAt: debitAt.toISOString() });
    const resumedMail = await waitForMail(
      stack,
      user.email,
      'Automatic renewal resumed for your LEGEND plan',
    );
    expect(resumedMail.text).toContain(`₹1,830.00 is debited on ${formatLongDate(debitAt)}`);
    await sweep(later(debitAt, 2));
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(1);
    await renewalPlan(user.id, plan.id);
  });

  it('cancel after the notice stops that debit and revokes at PayU; twice is the same as once', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('CC');
    const { debitAt, noticeAt } = schedule(plan, mandate);
    await sweep(later(noticeAt, 1));
    const revokes = await calls('mandate_revoke');
    const first = await client.call('/api/vm/autopay/cancel', { body: {} });
    expect(first.status).toBe(200);
    expect(first.body.autoRenew).toMatchObject({
      status: 'cancelled',
      nextDebitAt: null,
      noticeSentAt: null,
    });
    const second = await client.call('/api/vm/autopay/cancel', { body: {} });
    expect(second.status).toBe(200);
    expect(second.body.autoRenew).toMatchObject({ status: 'cancelled' });
    // Cancelled: one mail, with the plan's last day.
    const cancelled = await waitForMail(stack, user.email, 'Automatic renewal cancelled');
    expect(cancelled.subject).toBe(
      `Automatic renewal cancelled: your plan's last day is ${formatLongDate(plan.expires_at!)}`,
    );
    expect(cancelled.text).toContain('nothing more is debited');
    expect(
      (await stack.mailTo(user.email)).filter((m) => m.subject.startsWith('Automatic renewal cancelled')),
    ).toHaveLength(1);
    expect((await dashboard(client)).autoRenew).toMatchObject({ status: 'cancelled', nextDebitAt: null });

    await waitFor('PayU to revoke the mandate', async () =>
      (await sandbox(mandate.authpayuid!)).mandates[0]!.status === 'revoked' ? true : null,
    );
    await waitFor('the revoke to be recorded', async () =>
      (await mandateOf(user.id)).revoked_at ? true : null,
    );
    expect(await calls('mandate_revoke')).toBe(revokes + 1);

    await sweep(later(debitAt, 1));
    await sweep(later(debitAt, 60));
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(0);
    expect((await renewalOf(mandate)).state).toBe('cancelled');
    // The plan runs to its end as bought.
    expect((await findActiveSubscription(db, user.id, later(debitAt, 1)))?.id).toBe(plan.id);
  });

  it('deleting the account cancels the mandate and revokes it at PayU: a deleted account is never debited', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('UPI');
    const deleted = await client.call('/api/user', { method: 'DELETE', body: { email: user.email } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await mandateOf(user.id)).status).toBe('cancelled');
    await waitFor('PayU to revoke the mandate', async () =>
      (await sandbox(mandate.authpayuid!)).mandates[0]!.status === 'revoked' ? true : null,
    );
    const { debitAt, noticeAt } = schedule(plan, mandate);
    await sweep(later(noticeAt, 1));
    await sweep(later(debitAt, 1));
    expect((await sandbox(mandate.authpayuid!)).mandates[0]!.notices).toHaveLength(0);
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(0);
  });

  it('a mandate revoked from the UPI app stops renewal at the notice, and the customer is told', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer('UPI');
    await control({ action: 'si-set-mandate', authpayuid: mandate.authpayuid, status: 'revoked' });
    const { noticeAt } = schedule(plan, mandate);
    await sweep(later(noticeAt, 1));
    expect((await mandateOf(user.id)).status).toBe('revoked');
    expect((await dashboard(client)).autoRenew).toMatchObject({
      status: 'cancelled',
      note: AUTOPAY_MESSAGES.revokedOutside,
    });
    await waitForMail(stack, user.email, 'Automatic renewal of your plan has stopped');
    expect((await sandbox(mandate.authpayuid!)).mandates[0]!.notices).toHaveLength(0);
  });
});

describe('AutoPay: bad input and unreadable answers', () => {
  it('400 for a trial, a price the customer did not see, or a malformed flag; 401 for strangers', async () => {
    const { user, client } = await buyer();
    await choose(client, user.email, { plan: 'Trial', duration: 1, isTrial: true, trialPlan: 'LEGEND' });
    const trial = await startPayment(client, user.email, { autoRenew: true, amount: 40 });
    expect(trial.status).toBe(400);
    expect(trial.body.message).toBe(AUTOPAY_MESSAGES.trialNeverRenews);

    await choose(client, user.email, { plan: 'LEGEND', duration: 45 });
    const cheaper = await startPayment(client, user.email, { autoRenew: true, amount: 1450 });
    expect(cheaper.status).toBe(400);
    expect(cheaper.body.message).toBe(AUTOPAY_MESSAGES.priceChanged);
    const malformed = await startPayment(client, user.email, { autoRenew: 'yes', amount: 1830 });
    expect(malformed.status).toBe(400);
    // No mandate was recorded for any of them.
    expect(await count(sql.unsafe`SELECT 1 FROM autopay_mandates WHERE user_id = ${user.id}`)).toBe(0);
    // Without the flag the checkout is the ordinary one.
    const plain = await startPayment(client, user.email, { amount: 1450 });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('si');

    const stranger = newClient(stack);
    for (const path of ['cancel', 'pause', 'resume', 'pay-now']) {
      expect((await stranger.call(`/api/vm/autopay/${path}`, { body: {} })).status).toBe(401);
    }
    expect((await client.call('/api/vm/autopay/cancel', { body: {} })).status).toBe(404);
    expect((await client.call('/api/vm/autopay/cancel', { body: { mandateId: 'x' } })).status).toBe(400);
  });

  it('a notice answer of an unknown shape is recorded and alerted, never taken as sent', async () => {
    const { mandate, plan } = await autoRenewBuyer('UPI');
    const { debitAt, noticeAt } = schedule(plan, mandate);
    const odd: PayUSiClient = { ...si, preDebit: async () => ({ result: 'OK', id: 7 }) };
    await sweep(later(noticeAt, 1), odd);
    const renewal = await renewalOf(mandate);
    expect(renewal.state).toBe('noticing');
    expect(renewal.problem).toContain('unreadably');
    const alerts = await listAlerts(db);
    expect(
      alerts.some((a) => a.kind === 'autopay-problem' && a.dedupe_key === `autopay-notice:${renewal.id}`),
    ).toBe(true);
    // No debit without a notice PayU accepted.
    await sweep(later(debitAt, 1), odd);
    expect((await sandbox(mandate.authpayuid!)).siDebits).toHaveLength(0);
    const stored = await db.oneFirst(
      sql.type(
        z.object({ answer: z.unknown() }),
      )`SELECT notice_answer AS answer FROM autopay_renewals WHERE id = ${renewal.id}`,
    );
    expect(stored).toEqual({ result: 'OK', id: 7 });
  });
});

describe('AutoPay and the expiry reminders', () => {
  it('a plan AutoPay renews is not told to renew; paused, it is reminded as anyone', async () => {
    const { user, client, plan } = await autoRenewBuyer('UPI');
    const end = plan.expires_at!;
    const reminders = async () =>
      (await listNoticesOfUser(db, user.id)).map((n) => n.kind).filter((k) => k.startsWith('expiry-'));

    // 3 days and 1 day before the end: AutoPay renews it, so there is nothing to renew by hand.
    await runPlanExpiry(deps, later(end, -60 * 60));
    await runPlanExpiry(deps, later(end, -20 * 60));
    expect(await reminders()).toEqual([]);

    // Paused, the plan ends unless renewed by hand: the reminder due now goes (only that one:
    // no "in 3 days" a day before the end).
    expect((await client.call('/api/vm/autopay/pause', { body: {} })).status).toBe(200);
    await runPlanExpiry(deps, later(end, -20 * 60));
    await runPlanExpiry(deps, later(end, -19 * 60));
    expect(await reminders()).toEqual(['expiry-1d']);
    const mail = await waitForMail(stack, user.email, `Your ${plan.plan_name} plan expires tomorrow`);
    expect(mail.text).toContain('Renew after it expires');
  });
});
