import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAutopayRenewal } from '../../core/commands/autopayRenewal.ts';
import { findLatestMandateOfUser, findLatestRenewal, type Mandate } from '../../core/db/autopay.ts';
import { listAlerts, resolveAlert } from '../../core/db/operatorAlerts.ts';
import { findPaymentById } from '../../core/db/payments.ts';
import { sql } from '../../core/db/pool.ts';
import { findActiveSubscription, findSubscription } from '../../core/db/subscriptions.ts';
import { noticeDueAt, scheduledDebitAt } from '../../core/domain/autopay.ts';
import { createPayUClient } from '../../core/providers/payu.ts';
import { createPayUSiClient } from '../../core/providers/payuSi.ts';
import { sendJob } from '../../core/queue.ts';
import { waitForMail, type Client } from '../support/accounts.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * Refunds of AutoPay debits, end to end: the real API and worker over a fresh database, the
 * sandbox playing PayU's standing instructions and refunds. A debit is refunded like a checkout
 * (the same policy, quote and credit note), named to PayU by the debit's own PayU id, the
 * `mihpayid` that si_transaction (`payuid`) and verify_si_payment return; a refund PayU refuses is
 * mailed, shown with its reason and not offered again until an operator has looked; a debit the
 * bank has not confirmed is not refunded yet; two requests at once make one refund.
 */

const stack = await startTestStack({ worker: true, env: { REFUND_STATUS_POLL_SECONDS: '1' } });
const db = stack.services.db;
const deps = stack.worker!.deps;
const si = createPayUSiClient(stack.config.payu);
const { count, buyer, choose, startPayment, postForm, control, paymentStatus } = paymentHelpers(stack);
const MINUTE = 60_000;
const later = (at: Date, minutes: number) => new Date(at.getTime() + minutes * MINUTE);

type SandboxState = {
  siDebits: Array<{
    txnid: string;
    mihpayid: string;
    authpayuid: string;
    status: string;
    refundedPaise: number;
  }>;
  refunds: Array<{ token: string; mihpayid: string; txnid: string; amountPaise: number }>;
  serverCallCounts: Record<string, number>;
};

async function sandbox(query: string): Promise<SandboxState> {
  return (await (await fetch(`${stack.url}/sandbox/payu/_state?${query}`)).json()) as SandboxState;
}

/** LEGEND 45 h bought with "Renew automatically", paid by UPI AutoPay: the mandate is active. */
async function autoRenewBuyer() {
  const { user, client } = await buyer({ name: 'Meera Iyer' });
  expect((await choose(client, user.email, { plan: 'LEGEND', duration: 45 })).status).toBe(200);
  const started = await startPayment(client, user.email, { autoRenew: true, amount: 1830 });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const { action, ...fields } = started.body as Record<string, string>;
  expect((await postForm(action!, fields, stack.url)).status).toBe(200);
  await control({ action: 'complete', txnid: started.body.txnid, outcome: 'success', mode: 'UPI' });
  await paymentStatus(started.body.txnid, 'success');
  const mandate = await waitFor('the mandate to be active', async () => {
    const m = await findLatestMandateOfUser(db, user.id);
    return m?.status === 'active' ? m : null;
  });
  const plan = (await findActiveSubscription(db, user.id, new Date()))!;
  return { user, client, mandate, plan, registrationTxnid: started.body.txnid as string };
}

/** The renewal's notice and debit, swept with the clock moved to them: answers the debit's payment. */
async function debited(
  mandate: Mandate,
  plan: { expires_at: Date | null },
  options: { hold?: boolean } = {},
) {
  const debitAt = scheduledDebitAt(plan.expires_at!, mandate.method);
  await runAutopayRenewal(deps, si, later(noticeDueAt(debitAt, stack.config.autopay.noticeMinutes), 1));
  if (options.hold) await control({ action: 'si-hold-next-debit', authpayuid: mandate.authpayuid });
  await runAutopayRenewal(deps, si, later(debitAt, 1));
  const renewal = (await findLatestRenewal(db, mandate.id))!;
  return (await findPaymentById(db, renewal.payment_id!))!;
}

async function attempts(client: Client) {
  const reply = await client.call('/api/payments');
  expect(reply.status).toBe(200);
  return reply.body.payments as Array<Record<string, any>>;
}

const attemptOf = async (client: Client, txnid: string) =>
  (await attempts(client)).find((a) => a.txnid === txnid)!;

describe('refunding an AutoPay debit', () => {
  it('is refunded like a checkout, naming the debit by its own PayU id; two requests at once make one refund; a credit note follows', async () => {
    const { user, client, mandate, plan, registrationTxnid } = await autoRenewBuyer();
    const payment = await debited(mandate, plan);
    await paymentStatus(payment.txnid, 'success');
    const renewed = await waitFor('the renewal to be active', async () => {
      const active = await findActiveSubscription(db, user.id, new Date());
      return active && active.id !== plan.id ? active : null;
    });

    // History marks which payment AutoPay made and which set it up.
    const list = await attempts(client);
    expect(list.find((a) => a.txnid === payment.txnid)).toMatchObject({
      autoPay: 'debit',
      status: 'success',
    });
    expect(list.find((a) => a.txnid === registrationTxnid)).toMatchObject({ autoPay: 'setup' });

    // The same policy and quote as a checkout: day 1, 70 % of ₹1,830 less the ₹200 charge.
    const attempt = await attemptOf(client, payment.txnid);
    expect(attempt.refundOffer).toMatchObject({ amountPaise: 108100, day: 1, percent: 70, refusal: null });

    // The debit's own id, not the mandate's registration id, is what PayU refunds.
    const sandboxDebit = (await sandbox(`txnid=${payment.txnid}`)).siDebits[0]!;
    const verified = (await findPaymentById(db, payment.id))!;
    expect(verified.mihpayid).toBe(sandboxDebit.mihpayid);
    expect(verified.mihpayid).not.toBe(mandate.authpayuid);

    const refundCalls = (await sandbox('txnid=none')).serverCallCounts.cancel_refund_transaction ?? 0;
    const ask = () =>
      client.call(`/api/payments/${payment.txnid}/refund`, { body: { confirmAmountPaise: 108100 } });
    const [a, b] = await Promise.all([ask(), ask()]);
    // One is the refund; the other finds it (answered with it, or refused as already requested).
    const [made, other] = a.status === 202 ? [a, b] : [b, a];
    expect(made.status).toBe(202);
    if (other.status === 409) expect(other.body.message).toMatch(/already been requested/);
    else expect(other.status).toBe(200);
    expect(await count(sql.unsafe`SELECT 1 FROM refunds WHERE payment_id = ${payment.id}`)).toBe(1);

    const refunded = await waitFor('the refund to complete', async () => {
      const row = (await attemptOf(client, payment.txnid)).refunds[0];
      return row?.status === 'refunded' ? row : null;
    });
    expect(refunded).toMatchObject({
      amountPaise: 108100,
      source: 'customer',
      reason: null,
      underReview: false,
    });
    const atPayU = await sandbox(`txnid=${payment.txnid}`);
    expect(atPayU.refunds).toEqual([
      expect.objectContaining({ mihpayid: sandboxDebit.mihpayid, txnid: payment.txnid, amountPaise: 108100 }),
    ]);
    expect(atPayU.siDebits[0]!.refundedPaise).toBe(108100);
    expect((await sandbox('txnid=none')).serverCallCounts.cancel_refund_transaction).toBe(refundCalls + 1);

    // The renewed plan ends with its refund, and AutoPay with it: nothing renews a plan given back.
    expect((await findSubscription(db, renewed.id))?.status).toBe('cancelled');
    expect((await findLatestMandateOfUser(db, user.id))?.status).toBe('cancelled');
    await waitForMail(stack, user.email, 'Automatic renewal of your plan has stopped');

    // A credit note against the debit's invoice, mailed with the completion.
    const note = await waitFor('the credit note', async () =>
      db.maybeOne(sql.type(z.object({ credit_note_number: z.string(), invoice_number: z.string() }))`
        SELECT c.credit_note_number, i.invoice_number FROM credit_notes c
        JOIN refunds r ON r.id = c.refund_id JOIN invoices i ON i.id = c.invoice_id
        WHERE r.payment_id = ${payment.id}`),
    );
    const done = await waitForMail(stack, user.email, `Refund completed (${payment.txnid})`);
    expect(done.text).toContain(
      `GST credit note ${note.credit_note_number} against invoice ${note.invoice_number}`,
    );
  });

  it('a refund PayU refuses is mailed with the reason, shows as refused, and is not offered again until an operator has looked', async () => {
    const { user, client, mandate, plan } = await autoRenewBuyer();
    const payment = await debited(mandate, plan);
    await paymentStatus(payment.txnid, 'success');
    await waitFor('the renewal to be active', async () => {
      const active = await findActiveSubscription(db, user.id, new Date());
      return active && active.id !== plan.id ? active : null;
    });
    await control({ action: 'refuse-refund', txnid: payment.txnid, errorCode: 232 });

    const asked = await client.call(`/api/payments/${payment.txnid}/refund`, {
      body: { confirmAmountPaise: 108100 },
    });
    expect(asked.status).toBe(202);
    const refused = await waitFor('the refusal to be recorded', async () => {
      const row = (await attemptOf(client, payment.txnid)).refunds[0];
      return row?.status === 'failed' ? row : null;
    });
    expect(refused).toMatchObject({
      reason: 'your bank does not accept refunds of this kind of payment',
      underReview: true,
    });

    // The customer is told, with the reason; the plan was not cancelled.
    const mail = await waitForMail(stack, user.email, `Refund refused by PayU (${payment.txnid})`);
    expect(mail.text).toContain('PayU refused your refund of ₹1,081.00: your bank does not accept refunds');
    expect(mail.text).toContain('your plan was not cancelled');
    expect((await findActiveSubscription(db, user.id, new Date()))?.status).toBe('active');

    // Not offered again, and refused if asked, while the operator alert is open.
    const after = await attemptOf(client, payment.txnid);
    expect(after.refundOffer).toMatchObject({ amountPaise: null, refusalKind: 'under-review' });
    const again = await client.call(`/api/payments/${payment.txnid}/refund`, {
      body: { confirmAmountPaise: 108100 },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/PayU refused the last refund of this payment/);

    // The operator looks (`npm run alerts -- resolve <id>`): the refund can be asked for again.
    const alert = (await listAlerts(db)).find(
      (x) => x.kind === 'refund-failed' && (x.details as { txnid?: string }).txnid === payment.txnid,
    )!;
    expect(alert.message).toContain('resolving this alert lets the customer ask for it again');
    await resolveAlert(db, alert.id);
    const reviewed = await attemptOf(client, payment.txnid);
    expect(reviewed.refunds[0]).toMatchObject({ status: 'failed', underReview: false });
    expect(reviewed.refundOffer).toMatchObject({ amountPaise: 108100, refusal: null });
  });

  it('a debit the bank has not confirmed is not refunded yet: the reason and when to try again', async () => {
    const { client, mandate, plan } = await autoRenewBuyer();
    const payment = await debited(mandate, plan, { hold: true });
    // PayU itself refunds only a captured transaction (docs.payu.in/docs/refund-transaction-api).
    const pending = (await sandbox(`txnid=${payment.txnid}`)).siDebits[0]!;
    expect(pending.status).toBe('pending');
    const direct = await createPayUClient(stack.config.payu).refund({
      mihpayid: pending.mihpayid,
      refundToken: `rfpending${Date.now().toString(36)}`.slice(0, 23),
      amountPaise: 100,
    });
    expect(direct).toMatchObject({ accepted: false, errorCode: 111 });

    // Ours refuses before PayU is asked, and says when we next ask about the debit.
    const verifiedOnce = await waitFor('the debit to be asked about', async () => {
      const row = await findPaymentById(db, payment.id);
      return row?.next_check_at ? row : null;
    });
    expect(verifiedOnce.status).not.toBe('success');
    const asked = await client.call(`/api/payments/${payment.txnid}/refund`, {
      body: { confirmAmountPaise: 1 },
    });
    expect(asked.status).toBe(409);
    expect(asked.body.message).toMatch(
      /^Your bank has not confirmed this payment yet, so it cannot be refunded now\. We ask PayU again on .+ at .+ IST: try again after that\.$/,
    );
    expect((await attemptOf(client, payment.txnid)).refundOffer).toMatchObject({
      amountPaise: null,
      refusalKind: 'not-settled',
    });
    expect(await count(sql.unsafe`SELECT 1 FROM refunds WHERE payment_id = ${payment.id}`)).toBe(0);

    // The bank confirms: the renewal goes through and the debit can be refunded like any other.
    await control({ action: 'si-settle-debit', txnid: payment.txnid, outcome: 'success' });
    await sendJob(stack.services.boss, 'payment-verify', { txnid: payment.txnid, source: 'webhook' });
    await paymentStatus(payment.txnid, 'success');
    const offered = await waitFor('the refund offer', async () => {
      const offer = (await attemptOf(client, payment.txnid)).refundOffer;
      return offer.amountPaise ? offer : null;
    });
    expect(offered).toMatchObject({ amountPaise: 108100, refusal: null });
  });
});
