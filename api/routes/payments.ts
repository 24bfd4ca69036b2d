import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { findInvoiceByPayment, findInvoicesByPayments } from '../../core/db/invoices.ts';
import {
  countOpenPaymentsSince,
  findPaymentByTxnid,
  insertPayment,
  listPaymentsForUser,
  recordCallback,
  type Payment,
} from '../../core/db/payments.ts';
import { listRefundsForPayment, listRefundsForUser, type Refund } from '../../core/db/refunds.ts';
import {
  isOpenPayment,
  paymentSettled,
  OPEN_CHECKOUT_LIMIT_MESSAGE,
  PAYU_CALLBACK_MAX_BYTES,
  OPEN_CHECKOUT_WINDOW_MS,
  tooManyOpenCheckouts,
} from '../../core/domain/payments.ts';
import { customerRefundCheck, customerRefundMessage, quoteFor } from '../../core/domain/refund.ts';
import { refundCase, requestRefund, type RefundTarget } from '../../core/commands/refunds.ts';
import { paymentAttemptBody } from '../presenters/payments.ts';
import {
  findLatestPendingSubscription,
  findSubscription,
  findSubscriptionsByIds,
} from '../../core/db/subscriptions.ts';
import { getPlan, planExpiry } from '../../core/domain/plans.ts';
import { PAYMENT_MESSAGES } from '../../core/domain/subscription.ts';
import { TRIAL_LABEL } from '../../core/domain/trial.ts';
import {
  createPayUClient,
  FIRSTNAME_MAX,
  formatAmount,
  newTxnId,
  parseAmountToPaise,
  type PostedFields,
} from '../../core/providers/payu.ts';
import { checkPendingPurchase, matchesPending } from '../../core/commands/purchases.ts';
import { recordCheckoutMandate, renewalTerms } from '../../core/commands/autopay.ts';
import { autopayRolesOfPayments } from '../../core/db/autopay.ts';
import { AUTOPAY_MESSAGES, autoRenewRefusal, siDetails } from '../../core/domain/autopay.ts';
import { sendJob } from '../../core/queue.ts';
import { badRequest, conflict, HttpError, notFound, tooManyRequests } from '../errors.ts';
import { assertSameUser, currentUser, requireUser } from '../middleware/auth.ts';
import { input, validate } from '../middleware/validate.ts';
import { paymentStatusBody } from '../presenters/plans.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Services } from '../services.ts';
import { Duration, purchaseRefusal, requireBuyer } from './plans.ts';

/**
 * Paying through PayU's hosted checkout (spec §4 Purchase flow, §7 `/vm/create-payment`,
 * `/vm/payment-callback`). The browser's word never moves money state (ARCHITECTURE deviation
 * 1): every callback — PayU's browser return (surl/furl), its webhook, the SPA's
 * payment-callback — is checked (reverse hash, our txnid, our amount) and only enqueues
 * `payment-verify`, which asks PayU itself.
 */

export const PAYU_CALLBACK_PREFIX = '/api/payu/';

/** Paths PayU (or a notify_url) posts to; their bodies are bounded by PAYU_CALLBACK_MAX_BYTES. */
const CALLBACK_PATHS = [PAYU_CALLBACK_PREFIX, '/api/vm/payment-callback'];

/** 413 for a callback body declared over the bound (the app-wide body limit still caps chunked ones). */
export function refuseLargeCallbacks(): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.method === 'POST' && CALLBACK_PATHS.some((p) => ctx.path.startsWith(p))) {
      const length = Number(ctx.get('content-length') || '0');
      if (length > PAYU_CALLBACK_MAX_BYTES) {
        ctx.state.log.warn({ length }, 'PayU callback refused: body too large');
        throw new HttpError(413, 'That request is too large.');
      }
    }
    await next();
  };
}

export const CreatePaymentBody = z.object({
  // The client's amount is a display copy: the pending subscription's catalogue price is charged.
  amount: z.unknown().optional(),
  customerEmail: z.string({ error: 'Email must be text.' }).max(254).optional(),
  plan: z.string().trim().max(60).optional(),
  duration: Duration,
  storage: z.unknown().optional(),
  /** "Renew automatically every month": registers a PayU standing instruction (UPI AutoPay or card). */
  autoRenew: z.boolean({ error: 'autoRenew must be true or false.' }).optional(),
});
type CreatePaymentBody = z.infer<typeof CreatePaymentBody>;

const Txnid = z
  .string({ error: 'txnid is required.' })
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,25}$/, 'That is not one of our transaction ids.');

export const PaymentCallbackBody = z.object({
  order: z.object({
    txnid: Txnid,
    // Spec §4: the SPA always says PAID. It is kept for the record and trusted for nothing.
    status: z.string().max(40).optional(),
  }),
});
type PaymentCallbackBody = z.infer<typeof PaymentCallbackBody>;

export const PaymentStatusQuery = z.object({ txnid: Txnid });
type PaymentStatusQuery = z.infer<typeof PaymentStatusQuery>;

const PLAN_CHANGED = 'Your plan choice changed in another tab. Please choose your plan again.';
const NO_PENDING = 'No plan is waiting for payment. Please choose a plan.';
const NEEDS_PHONE = 'Phone number missing: PayU needs a phone number. Please add your mobile number to pay.';

export const RefundRequestBody = z.object({
  /** The amount the customer saw and confirmed; a different quote today answers 409 with the new one. */
  confirmAmountPaise: z.number({ error: 'Confirm the refund amount.' }).int().positive(),
});
type RefundRequestBody = z.infer<typeof RefundRequestBody>;

type CallbackSource = 'surl' | 'furl' | 'webhook' | 'notify';
type CallbackOutcome =
  | { accepted: true; payment: Payment; claimed: string }
  | { accepted: false; reason: 'hash' | 'unknown-txnid' | 'amount'; txnid: string };

/** Text PayU allows in firstname: no "|" (it would shift the hash's fields), at most 60 characters. */
function payuText(text: string, max: number): string {
  return text.replaceAll('|', ' ').trim().slice(0, max) || 'Customer';
}

export function paymentRoutes(services: Services): Router<AppState> {
  const { db, config, boss } = services;
  const payu = createPayUClient(config.payu);
  const router = new Router<AppState>();

  router.post('/vm/create-payment', requireBuyer(), validate(CreatePaymentBody), async (ctx) => {
    const body = input<CreatePaymentBody>(ctx);
    const user = assertSameUser(ctx, body.customerEmail);
    const pending = await findLatestPendingSubscription(db, user.id);
    if (!pending) throw conflict(NO_PENDING);
    if (!matchesPending(pending, { plan: body.plan, hours: body.duration })) throw conflict(PLAN_CHANGED);
    // A renewal's "Pay now" renews the plan still running (core/commands/autopay.ts).
    const renewal = await renewalTerms(db, pending.id);
    if (body.autoRenew) {
      const refusal = renewal
        ? AUTOPAY_MESSAGES.alreadyOn
        : autoRenewRefusal({
            available: config.autopay.enabled,
            isTrial: pending.is_trial,
            pricePaise: pending.price_paise,
            clientAmount: body.amount,
          });
      if (refusal) throw badRequest(refusal);
    }
    // Again, right before money: another tab may have bought a plan, capacity may have gone.
    const check = await checkPendingPurchase(db, {
      renews: renewal?.renews_subscription_id ?? null,
      user,
      pending,
      capacityLimits: config.capacityLimits,
      now: new Date(),
    });
    if (!check.ok) throw purchaseRefusal(check);
    // PayU needs these; say which is missing rather than let PayU show an error page.
    if (!user.phone) throw badRequest(NEEDS_PHONE);
    if (!user.email) throw badRequest('Email missing: PayU needs an email address.');
    const now = new Date();
    const open = await countOpenPaymentsSince(db, user.id, new Date(now.getTime() - OPEN_CHECKOUT_WINDOW_MS));
    if (tooManyOpenCheckouts(open))
      throw tooManyRequests(OPEN_CHECKOUT_WINDOW_MS / 1000 / 3, OPEN_CHECKOUT_LIMIT_MESSAGE);

    const txnid = newTxnId();
    // The mandate's first debit is at the end of the month this payment buys.
    const si = body.autoRenew ? siDetails(formatAmount(pending.price_paise), planExpiry(now)) : undefined;
    const productinfo = pending.is_trial
      ? `Legend Cloud ${pending.plan_name} (${getPlan(pending.plan_id).displayName}), ${TRIAL_LABEL}`
      : `Legend Cloud ${pending.plan_name}, ${pending.hours} hours, one month`;
    const checkout = payu.buildCheckout({
      txnid,
      amountPaise: pending.price_paise,
      productinfo,
      firstname: payuText(user.name, FIRSTNAME_MAX),
      email: user.email,
      phone: user.phone,
      surl: `${config.publicUrl}${PAYU_CALLBACK_PREFIX}success`,
      furl: `${config.publicUrl}${PAYU_CALLBACK_PREFIX}failure`,
      // Spec §3: the order's notes carry plan, duration and storage.
      udf1: pending.plan_name,
      udf2: String(pending.hours),
      udf3: `${pending.storage_gb} GB`,
      ...(si ? { siDetails: si } : {}),
    });
    await db.transaction(async (trx) => {
      const payment = await insertPayment(
        trx,
        {
          txnid,
          userId: user.id,
          subscriptionId: pending.id,
          amountPaise: pending.price_paise,
          amount: formatAmount(pending.price_paise),
          productinfo,
        },
        now,
      );
      if (si)
        await recordCheckoutMandate(trx, { payment, subscription: pending, endDate: si.paymentEndDate });
    });
    ctx.state.log.info({ txnid, subscriptionId: pending.id, autoRenew: si !== undefined }, 'payment started');
    ctx.body = checkout;
  });

  /**
   * A post from PayU (browser return, webhook, notify_url): checked, recorded, and handed to
   * payment-verify. Anything that fails a check changes nothing and is logged.
   */
  async function acceptPayUPost(ctx: AppContext, source: CallbackSource): Promise<CallbackOutcome> {
    const posted = ((ctx.request as { body?: unknown }).body ?? {}) as PostedFields;
    const txnid = typeof posted.txnid === 'string' ? posted.txnid.slice(0, 40) : '';
    const log = ctx.state.log.child({ txnid, source });
    if (!payu.verifyResponse(posted)) {
      log.warn('PayU callback refused: the reverse hash does not match (forged or tampered)');
      return { accepted: false, reason: 'hash', txnid };
    }
    const payment = await findPaymentByTxnid(db, txnid);
    if (!payment) {
      log.warn('PayU callback refused: no payment with this txnid');
      return { accepted: false, reason: 'unknown-txnid', txnid };
    }
    if (parseAmountToPaise(posted.amount) !== payment.amount_paise) {
      log.warn(
        { posted: posted.amount, ours: payment.amount },
        'PayU callback refused: the amount is not ours',
      );
      return { accepted: false, reason: 'amount', txnid };
    }
    const claimed = z.string().catch('').parse(posted.status);
    await db.transaction(async (trx) => {
      await recordCallback(trx, txnid, claimed);
      // A settled payment needs no second look; the guard in the job makes a late one harmless anyway.
      // One job waits per txnid however many callbacks arrive (the queue's `short` policy).
      if (!paymentSettled(payment.status)) {
        await sendJob(boss, 'payment-verify', { txnid, source }, { db: trx, singletonKey: txnid });
      }
    });
    log.info({ claimed }, 'PayU callback accepted; verification queued');
    return { accepted: true, payment, claimed };
  }

  function redirectBrowser(ctx: AppContext, outcome: CallbackOutcome) {
    const success = outcome.accepted && outcome.claimed === 'success';
    const txnid = outcome.accepted ? outcome.payment.txnid : '';
    const query = txnid ? `?txnid=${encodeURIComponent(txnid)}` : '';
    ctx.redirect(`${config.publicUrl}/${success ? 'payment-success' : 'payment-failure'}${query}`);
    // 303: the browser follows with a GET, never re-posting PayU's form.
    ctx.status = 303;
  }

  router.post('/payu/success', async (ctx) => redirectBrowser(ctx, await acceptPayUPost(ctx, 'surl')));
  router.post('/payu/failure', async (ctx) => redirectBrowser(ctx, await acceptPayUPost(ctx, 'furl')));

  router.post('/payu/webhook', async (ctx) => {
    const outcome = await acceptPayUPost(ctx, 'webhook');
    if (outcome.accepted) {
      ctx.body = { ok: true };
    } else {
      ctx.status = 400;
      ctx.body = { message: 'Callback refused.' };
    }
  });

  /**
   * Spec §4's callback from the success page ({order}, status always PAID): it only asks the
   * server to check. The same path takes PayU's form post when a notify_url points here.
   */
  router.post('/vm/payment-callback', async (ctx) => {
    const raw = (ctx.request as { body?: unknown }).body;
    if (raw && typeof raw === 'object' && !('order' in raw) && 'hash' in raw) {
      const outcome = await acceptPayUPost(ctx, 'notify');
      if (!outcome.accepted) throw badRequest('Callback refused.');
      ctx.body = { ok: true };
      return;
    }
    const user = currentUser(ctx);
    const parsed = PaymentCallbackBody.safeParse(raw ?? {});
    if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? PAYMENT_MESSAGES.verifyFailed);
    const body: PaymentCallbackBody = parsed.data;
    const payment = await findPaymentByTxnid(db, body.order.txnid);
    if (!payment || payment.user_id !== user.id) throw notFound('No such payment.');
    if (isOpenPayment(payment.status)) {
      // At most one check waiting per txnid, however often the page calls.
      await sendJob(
        boss,
        'payment-verify',
        { txnid: payment.txnid, source: 'spa' },
        { singletonKey: payment.txnid },
      );
    }
    ctx.body = await statusOf(payment);
  });

  router.get('/vm/payment-status', requireUser(), validate(PaymentStatusQuery, 'query'), async (ctx) => {
    const { txnid } = input<PaymentStatusQuery>(ctx);
    const payment = await findPaymentByTxnid(db, txnid);
    if (!payment || payment.user_id !== currentUser(ctx).id) throw notFound('No such payment.');
    ctx.body = await statusOf(payment);
  });

  // --- payment attempts and refunds in the customer's history ---------------------------

  async function targetOf(payment: Payment): Promise<RefundTarget> {
    const [subscription, invoice] = await Promise.all([
      findSubscription(db, payment.subscription_id),
      findInvoiceByPayment(db, payment.id),
    ]);
    return { payment, subscription, invoice };
  }

  /** The refund the customer may ask for now (amount and why), or the reason they may not. */
  async function refundOffer(target: RefundTarget, now: Date) {
    return offerOf(target, await listRefundsForPayment(db, target.payment.id), now);
  }

  function offerOf(target: RefundTarget, refunds: readonly Refund[], now: Date) {
    const refund = refundCase(target, refunds);
    const quote = quoteFor(refund, config.refundPolicy, now);
    const refusal = customerRefundCheck(refund, quote, now);
    return { quote, refusal };
  }

  async function ownPayment(ctx: AppContext, rawTxnid: string | undefined): Promise<Payment> {
    const parsed = Txnid.safeParse(rawTxnid);
    if (!parsed.success) throw notFound('No such payment.');
    const payment = await findPaymentByTxnid(db, parsed.data);
    if (!payment || payment.user_id !== currentUser(ctx).id) throw notFound('No such payment.');
    return payment;
  }

  /** Every payment attempt of the session user with its outcome, refund and refund offer. */
  router.get('/payments', requireUser(), async (ctx) => {
    const user = currentUser(ctx);
    const now = new Date();
    // A fixed number of statements however many attempts there are (up to 100).
    const [payments, refunds] = await Promise.all([
      listPaymentsForUser(db, user.id),
      listRefundsForUser(db, user.id),
    ]);
    const paymentIds = payments.map((p) => p.id);
    const [subscriptions, invoices, autopayRoles] = await Promise.all([
      findSubscriptionsByIds(db, [...new Set(payments.map((p) => p.subscription_id))]),
      findInvoicesByPayments(db, paymentIds),
      autopayRolesOfPayments(db, paymentIds),
    ]);
    ctx.body = {
      payments: payments.map((payment) => {
        const target: RefundTarget = {
          payment,
          subscription: subscriptions.get(payment.subscription_id) ?? null,
          invoice: invoices.get(payment.id) ?? null,
        };
        const own = refunds.filter((r) => r.payment_id === payment.id);
        return paymentAttemptBody(
          target,
          own,
          offerOf(target, own, now),
          config.checkout,
          autopayRoles.get(payment.id) ?? null,
        );
      }),
    };
  });

  router.get('/payments/:txnid', requireUser(), async (ctx) => {
    const payment = await ownPayment(ctx, ctx.params.txnid);
    const target = await targetOf(payment);
    ctx.body = paymentAttemptBody(
      target,
      await listRefundsForPayment(db, payment.id),
      await refundOffer(target, new Date()),
      config.checkout,
      (await autopayRolesOfPayments(db, [payment.id])).get(payment.id) ?? null,
    );
  });

  /** The customer asks for the policy's refund of a running plan, having seen the amount. */
  router.post('/payments/:txnid/refund', requireUser(), validate(RefundRequestBody), async (ctx) => {
    const payment = await ownPayment(ctx, ctx.params.txnid);
    const { confirmAmountPaise } = input<RefundRequestBody>(ctx);
    const target = await targetOf(payment);
    const { quote, refusal } = await refundOffer(target, new Date());
    if (refusal || !quote)
      throw conflict(customerRefundMessage(refusal ?? 'not-paid', { nextCheckAt: payment.next_check_at }));
    if (quote.quote.refundPaise !== confirmAmountPaise) {
      throw conflict(
        'The refund amount has changed since you looked (a new day of the plan began). Please check it again.',
      );
    }
    const { refund, created } = await requestRefund(db, boss, {
      payment,
      amountPaise: quote.quote.refundPaise,
      quote: quote.quote,
      source: 'customer',
    });
    ctx.state.log.info(
      { txnid: payment.txnid, refundId: refund.id, created },
      'refund requested by the customer',
    );
    ctx.status = created ? 202 : 200;
    ctx.body = paymentAttemptBody(
      target,
      await listRefundsForPayment(db, payment.id),
      await refundOffer(target, new Date()),
      config.checkout,
      (await autopayRolesOfPayments(db, [payment.id])).get(payment.id) ?? null,
    );
  });

  async function statusOf(payment: Payment) {
    const [subscription, invoice] = await Promise.all([
      findSubscription(db, payment.subscription_id),
      findInvoiceByPayment(db, payment.id),
    ]);
    return paymentStatusBody(payment, subscription, invoice);
  }

  return router;
}
