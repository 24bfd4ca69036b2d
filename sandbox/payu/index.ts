import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { AUTOSUBMIT_JS, checkoutPage, errorPage, returnPage } from './pages.ts';
import { createStandingInstructions, readSiDetails, type RefundState } from './standingInstructions.ts';
import {
  addedOn,
  amountToPaise,
  commandHash,
  digits,
  newMihpayid,
  paiseToAmount,
  requestHash,
  reverseHash,
  verifyAnswer,
  type CheckoutFields,
} from './wire.ts';

/**
 * A stand-in for PayU India: the hosted checkout (`_payment`), the server API
 * (`merchant/postservice.php?form=2`: verify_payment in batches, cancel_refund_transaction,
 * check_action_status), scripted answers (pending then success or failure, refund states), the
 * server-to-server webhook, and a control API for tests (`_control`, `_state`) that
 * replays, forges and tampers callbacks and makes PayU's server-side answer differ from
 * what the browser was shown. Routes are relative; it is mounted at /sandbox/payu.
 */

/** The sandbox merchant's credentials. Public on purpose: they only ever work here. */
export const SANDBOX_PAYU_KEY = 'LCSBX1';
export const SANDBOX_PAYU_SALT = 'legend-sandbox-payu-salt-not-a-secret';

export type SandboxPayUOptions = {
  key: string;
  salt: string;
  /** Where to send the server-to-server callback after every completion (PayU's dashboard setting). */
  webhookUrl?: string;
  /** Shown on the checkout page. */
  merchantName?: string;
  /** For the sandbox's own outgoing posts (surl/furl replays, webhooks). */
  fetch?: typeof fetch;
};

type ServerStatus = 'pending' | 'success' | 'failure';

export type SandboxPayUTransaction = CheckoutFields & {
  /** The amount exactly as the merchant posted (and hashed) it. */
  postedAmount: string;
  amountPaise: number;
  mihpayid: string;
  createdAt: string;
  /** What the checkout page told the browser. */
  browserStatus: 'initiated' | 'success' | 'failure';
  /** How the customer paid (PayU's `mode`): a card unless they chose UPI. */
  mode: 'CC' | 'UPI';
  /** A standing-instruction registration (si=1): its si_details; paying registers the mandate. */
  siDetails: Record<string, unknown> | null;
  /** What verify_payment answers; normally the same as browserStatus once completed. */
  serverStatus: ServerStatus;
  unmappedstatus: string;
  completedAt: string | null;
  bankRefNum: string;
  /** Overrides the default webhook for this transaction; null turns it off. */
  webhookUrl: string | null | undefined;
  /** The last callback built for this transaction, as posted to surl/furl and the webhook. */
  lastCallback: Record<string, string> | null;
  refundedPaise: number;
  /** What the next verify_payment calls answer, one status per call (the last one stays). */
  verifyScript: ServerStatus[];
  /** verify_payment calls that asked about this transaction. */
  verifyCalls: number;
  /** check_action_status answers for this transaction's refunds, one per call (the last one stays). */
  refundScript: RefundState[];
};

export type SandboxPayURefund = {
  token: string;
  mihpayid: string;
  txnid: string;
  amount: string;
  amountPaise: number;
  requestId: string;
  at: string;
  /** What check_action_status still has to answer, one per call; the last one stays. */
  states: RefundState[];
  statusChecks: number;
};

export type SandboxPayUDelivery = {
  txnid: string;
  target: 'surl' | 'furl' | 'webhook';
  url: string;
  kind: 'completion' | 'replay' | 'forged' | 'tampered';
  status: number | null;
  error: string | null;
  at: string;
};

const KEEP_TRANSACTIONS = 50_000;
const KEEP_DELIVERIES = 2_000;

const Text = z.string();
const Optional = z.string().optional().default('');
const PaymentForm = z.object({
  key: Text,
  txnid: Text,
  amount: Text,
  productinfo: Text,
  firstname: Text,
  email: Text,
  phone: Text,
  surl: Text,
  furl: Text,
  hash: Text,
  udf1: Optional,
  udf2: Optional,
  udf3: Optional,
  udf4: Optional,
  udf5: Optional,
  si: Optional,
  si_details: Optional,
  api_version: Optional,
});
const REQUIRED = [
  'key',
  'txnid',
  'amount',
  'productinfo',
  'firstname',
  'email',
  'phone',
  'surl',
  'furl',
  'hash',
] as const;

const Target = z.enum(['surl', 'webhook', 'both']);
const Times = z.number().int().min(1).max(100).default(1);
const Control = z.discriminatedUnion('action', [
  /** Exactly what pressing a checkout button does, without a browser. */
  z.object({
    action: z.literal('complete'),
    txnid: Text,
    outcome: z.enum(['success', 'failure']),
    mode: z.enum(['CC', 'UPI']).default('CC'),
  }),
  /** The last callback again, unchanged and validly hashed. */
  z.object({
    action: z.literal('replay'),
    txnid: Text,
    times: Times,
    to: Target.default('surl'),
    concurrent: z.boolean().default(false),
  }),
  /** A callback whose hash was not made with the salt (an attacker's post). */
  z.object({
    action: z.literal('forge'),
    txnid: Text,
    status: z.enum(['success', 'failure']).default('success'),
    times: Times,
    to: Target.default('surl'),
  }),
  /** A callback with another amount; rehashed with the salt unless told not to. */
  z.object({
    action: z.literal('tamper-amount'),
    txnid: Text,
    amount: Text,
    rehash: z.boolean().default(true),
    to: Target.default('surl'),
  }),
  /** Change what verify_payment answers without telling anyone. */
  z.object({
    action: z.literal('set-status'),
    txnid: Text,
    status: z.enum(['pending', 'success', 'failure']),
    unmappedstatus: Text.optional(),
  }),
  /**
   * What PayU's server answers to the next verify_payment calls about this transaction, one
   * status per call; the last stays. `pending, pending, success` is a bank that decides on the
   * third check. Reaching success or failure completes the transaction (no callback is sent:
   * the browser was closed and the webhook lost).
   */
  z.object({
    action: z.literal('script-verify'),
    txnid: Text,
    statuses: z
      .array(z.enum(['pending', 'success', 'failure']))
      .min(1)
      .max(50),
  }),
  /** What check_action_status answers about this transaction's refunds, one state per call. */
  z.object({
    action: z.literal('script-refund'),
    txnid: Text,
    states: z
      .array(z.enum(['QUEUED', 'IN PROGRESS', 'REQUESTED', 'SUCCESS', 'FAILURE']))
      .min(1)
      .max(50),
  }),
  /** The webhook for one transaction, or the default when txnid is absent; null turns it off. */
  z.object({ action: z.literal('set-webhook'), url: z.url().nullable(), txnid: Text.optional() }),
  /**
   * cancel_refund_transaction refuses the next refund of this transaction (a checkout's or an
   * AutoPay debit's txnid) with this code and message, as PayU does for a bank that takes no
   * refunds (232) or a purged transaction (230). Once: a later request goes through.
   */
  z.object({
    action: z.literal('refuse-refund'),
    txnid: Text,
    errorCode: z.number().int().default(232),
    message: Text.default('Refund not accepted for txn'),
  }),
]);

function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function createSandboxPayU(options: SandboxPayUOptions): Router {
  const { key, salt } = options;
  const merchant = options.merchantName ?? 'Sandbox merchant';
  const send = options.fetch ?? fetch;
  let defaultWebhook: string | null = options.webhookUrl ?? null;

  const transactions = new Map<string, SandboxPayUTransaction>();
  const byMihpayid = new Map<string, string>();
  const refunds = new Map<string, SandboxPayURefund>();
  const deliveries: SandboxPayUDelivery[] = [];
  /** Every server API call received, by command name, newest first. */
  const serverCalls: Array<{ command: string; at: string }> = [];
  const standing = createStandingInstructions({ newMihpayid: () => newMihpayid((id) => byMihpayid.has(id)) });

  const router = new Router();
  const form = koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '64kb' });
  const json = koaBody({ urlencoded: false, json: true, text: false, multipart: false, jsonLimit: '64kb' });

  function html(ctx: Context, status: number, body: string): void {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  }

  function webhookFor(txn: SandboxPayUTransaction): string | null {
    return txn.webhookUrl === undefined ? defaultWebhook : txn.webhookUrl;
  }

  /** The fields PayU posts back after a payment attempt, reverse-hashed. */
  function callbackFields(
    txn: SandboxPayUTransaction,
    status: 'success' | 'failure',
  ): Record<string, string> {
    const success = status === 'success';
    const fields: Record<string, string> = {
      mihpayid: txn.mihpayid,
      mode: txn.mode,
      status,
      unmappedstatus: success ? 'captured' : 'failed',
      key: txn.key,
      txnid: txn.txnid,
      // PayU echoes amounts with two decimals whatever the merchant posted.
      amount: paiseToAmount(txn.amountPaise),
      productinfo: txn.productinfo,
      firstname: txn.firstname,
      email: txn.email,
      phone: txn.phone,
      udf1: txn.udf1,
      udf2: txn.udf2,
      udf3: txn.udf3,
      udf4: txn.udf4,
      udf5: txn.udf5,
      udf6: '',
      udf7: '',
      udf8: '',
      udf9: '',
      udf10: '',
      hash: '',
      error: success ? 'E000' : 'E308',
      error_Message: success ? 'No Error' : 'Transaction failed (sandbox: Fail payment was pressed)',
      bank_ref_num: success ? txn.bankRefNum : '',
      bankcode: txn.mode,
      PG_TYPE: `${txn.mode}-PG`,
      net_amount_debit: success ? paiseToAmount(txn.amountPaise) : '0',
      addedon: addedOn(new Date(txn.completedAt ?? txn.createdAt)),
      field1: success ? txn.bankRefNum : '',
      field2: success ? digits(6) : '',
      field3: '',
      field4: '',
      field5: '',
      field6: '',
      field7: success ? 'AUTHPOSITIVE' : 'AUTHNEGATIVE',
      field8: '',
      field9: success ? 'Transaction Completed Successfully' : 'Transaction Failed',
    };
    fields.hash = reverseHash(fields, salt);
    return fields;
  }

  function record(delivery: SandboxPayUDelivery): void {
    deliveries.unshift(delivery);
    deliveries.splice(KEEP_DELIVERIES);
  }

  /** Posts a callback form-encoded, as PayU's browser redirect or its webhook would, and logs it. */
  async function deliver(
    txn: SandboxPayUTransaction,
    target: SandboxPayUDelivery['target'],
    url: string,
    kind: SandboxPayUDelivery['kind'],
    fields: Record<string, string>,
  ): Promise<SandboxPayUDelivery> {
    const delivery: SandboxPayUDelivery = {
      txnid: txn.txnid,
      target,
      url,
      kind,
      status: null,
      error: null,
      at: new Date().toISOString(),
    };
    try {
      const response = await send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
        // The merchant answers a browser with a redirect; the sandbox only needs the status.
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = response.status;
      await response.body?.cancel();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    record(delivery);
    return delivery;
  }

  /** The deliveries one control call asks for: the return URL (surl or furl by status), the webhook, or both. */
  function targets(
    txn: SandboxPayUTransaction,
    to: z.infer<typeof Target>,
    fields: Record<string, string>,
  ): Array<{ target: SandboxPayUDelivery['target']; url: string }> {
    const list: Array<{ target: SandboxPayUDelivery['target']; url: string }> = [];
    if (to === 'surl' || to === 'both') {
      list.push(
        fields.status === 'success' ? { target: 'surl', url: txn.surl } : { target: 'furl', url: txn.furl },
      );
    }
    if (to === 'webhook' || to === 'both') {
      const url = webhookFor(txn);
      if (url) list.push({ target: 'webhook', url });
    }
    return list;
  }

  /** Pressing a checkout button: the outcome becomes PayU's record, then the webhook goes out. */
  function complete(
    txn: SandboxPayUTransaction,
    outcome: 'success' | 'failure',
    mode: 'CC' | 'UPI' = 'CC',
  ): { fields: Record<string, string>; webhook: Promise<SandboxPayUDelivery> | null } {
    txn.mode = mode;
    if (outcome === 'success' && txn.siDetails) {
      standing.register({
        mihpayid: txn.mihpayid,
        txnid: txn.txnid,
        email: txn.email,
        mode,
        siDetails: txn.siDetails,
      });
    }
    txn.browserStatus = outcome;
    txn.serverStatus = outcome;
    txn.unmappedstatus = outcome === 'success' ? 'captured' : 'failed';
    txn.completedAt = new Date().toISOString();
    const fields = callbackFields(txn, outcome);
    txn.lastCallback = fields;
    const url = webhookFor(txn);
    const webhook = url ? deliver(txn, 'webhook', url, 'completion', fields) : null;
    return { fields, webhook };
  }

  // -------------------------------------------------------------------------------------
  // Hosted checkout

  router.post('/_payment', form, (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const missing = REQUIRED.find((name) => typeof body[name] !== 'string' || body[name] === '');
    if (missing) return html(ctx, 400, errorPage(`Mandatory param ${missing} is missing`));
    const parsed = PaymentForm.safeParse(body);
    if (!parsed.success)
      return html(ctx, 400, errorPage('A parameter was sent more than once or is malformed'));
    const p = parsed.data;
    if (p.key !== key) return html(ctx, 400, errorPage('Invalid key'));
    if (p.txnid.length > 25) return html(ctx, 400, errorPage('txnid is longer than 25 characters'));
    if (p.productinfo.length > 100)
      return html(ctx, 400, errorPage('productinfo is longer than 100 characters'));
    if (p.firstname.length > 60) return html(ctx, 400, errorPage('firstname is longer than 60 characters'));
    const amountPaise = amountToPaise(p.amount);
    if (amountPaise === null || amountPaise === 0) return html(ctx, 400, errorPage('Invalid amount'));
    if (!isUrl(p.surl) || !isUrl(p.furl)) return html(ctx, 400, errorPage('Invalid surl or furl'));
    const fields: CheckoutFields = {
      key: p.key,
      txnid: p.txnid,
      amount: p.amount,
      productinfo: p.productinfo,
      firstname: p.firstname,
      email: p.email,
      phone: p.phone,
      surl: p.surl,
      furl: p.furl,
      udf1: p.udf1,
      udf2: p.udf2,
      udf3: p.udf3,
      udf4: p.udf4,
      udf5: p.udf5,
    };
    const siDetails = p.si === '1' ? readSiDetails(p.si_details) : null;
    if (p.si === '1' && !siDetails) return html(ctx, 400, errorPage('Invalid si_details'));
    if (requestHash(fields, salt, p.si === '1' ? p.si_details : undefined) !== p.hash.toLowerCase()) {
      return html(ctx, 400, errorPage('Transaction failed due to incorrectly calculated hash parameter.'));
    }
    if (transactions.has(p.txnid))
      return html(ctx, 400, errorPage('Duplicate transaction: this txnid was already used'));

    const mihpayid = newMihpayid((id) => byMihpayid.has(id));
    const txn: SandboxPayUTransaction = {
      ...fields,
      postedAmount: p.amount,
      amountPaise,
      mihpayid,
      createdAt: new Date().toISOString(),
      browserStatus: 'initiated',
      mode: 'CC',
      siDetails,
      serverStatus: 'pending',
      unmappedstatus: 'initiated',
      completedAt: null,
      bankRefNum: digits(16),
      webhookUrl: undefined,
      lastCallback: null,
      refundedPaise: 0,
      verifyScript: [],
      verifyCalls: 0,
      refundScript: ['QUEUED', 'SUCCESS'],
    };
    transactions.set(txn.txnid, txn);
    byMihpayid.set(mihpayid, txn.txnid);
    if (transactions.size > KEEP_TRANSACTIONS) {
      const oldest = transactions.keys().next().value;
      if (oldest !== undefined) {
        byMihpayid.delete(transactions.get(oldest)?.mihpayid ?? '');
        transactions.delete(oldest);
      }
    }
    html(ctx, 200, checkoutPage({ merchant, ...txn, si: siDetails }));
  });

  router.post('/_complete', form, (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const txn = typeof body.txnid === 'string' ? transactions.get(body.txnid) : undefined;
    const outcome = body.outcome;
    const mode = body.mode === 'UPI' ? 'UPI' : 'CC';
    if (!txn || (outcome !== 'success' && outcome !== 'failure')) {
      return html(ctx, 404, errorPage('No such transaction is waiting for payment'));
    }
    if (txn.browserStatus !== 'initiated') {
      return html(ctx, 409, errorPage('This transaction has already been completed'));
    }
    const { fields } = complete(txn, outcome, mode);
    html(ctx, 200, returnPage(outcome, outcome === 'success' ? txn.surl : txn.furl, fields));
  });

  router.get('/autosubmit.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = AUTOSUBMIT_JS;
  });

  // -------------------------------------------------------------------------------------
  // Server API

  function verifyEntry(txn: SandboxPayUTransaction): Record<string, unknown> {
    const success = txn.serverStatus === 'success';
    const failure = txn.serverStatus === 'failure';
    const amount = paiseToAmount(txn.amountPaise);
    return {
      mihpayid: txn.mihpayid,
      request_id: '',
      bank_ref_num: success ? txn.bankRefNum : '',
      amt: amount,
      transaction_amount: amount,
      txnid: txn.txnid,
      additional_charges: '0.00',
      productinfo: txn.productinfo,
      firstname: txn.firstname,
      bankcode: txn.mode,
      udf1: txn.udf1,
      udf2: txn.udf2,
      udf3: txn.udf3,
      udf4: txn.udf4,
      udf5: txn.udf5,
      field2: '',
      field9: success ? 'No Error' : failure ? 'Transaction Failed' : '',
      error_code: success ? 'E000' : failure ? 'E308' : '',
      addedon: addedOn(new Date(txn.completedAt ?? txn.createdAt)),
      payment_source: 'payu',
      card_type: 'VISA',
      error_Message: success ? 'NO ERROR' : failure ? 'Transaction failed' : '',
      // PayU sends this one as a JSON number.
      net_amount_debit: success ? txn.amountPaise / 100 : 0,
      disc: '0.00',
      mode: txn.mode,
      PG_TYPE: `${txn.mode}-PG`,
      card_no: txn.mode === 'CC' ? '512345XXXXXX2346' : '',
      name_on_card: txn.firstname,
      status: txn.serverStatus,
      unmappedstatus: txn.unmappedstatus,
      Merchant_UTR: null,
      Settled_At: '0000-00-00 00:00:00',
    };
  }

  /** The next scripted answer, if any: PayU's server deciding on its own (bank delays). */
  function advanceScript(txn: SandboxPayUTransaction): void {
    txn.verifyCalls++;
    const next = txn.verifyScript.length > 1 ? txn.verifyScript.shift() : txn.verifyScript[0];
    if (next === undefined || next === txn.serverStatus) return;
    txn.serverStatus = next;
    txn.unmappedstatus = { pending: 'pending', success: 'captured', failure: 'failed' }[next];
    if (next !== 'pending') {
      if (next === 'success' && txn.siDetails) {
        standing.register({
          mihpayid: txn.mihpayid,
          txnid: txn.txnid,
          email: txn.email,
          mode: txn.mode,
          siDetails: txn.siDetails,
        });
      }
      txn.browserStatus = next;
      txn.completedAt = new Date().toISOString();
      txn.lastCallback = callbackFields(txn, next);
    }
  }

  function verifyPayment(var1: string): Record<string, unknown> {
    return verifyAnswer(var1, (txnid) => {
      const txn = transactions.get(txnid);
      if (!txn) return undefined;
      advanceScript(txn);
      return verifyEntry(txn);
    });
  }

  /** Refusals scripted by `refuse-refund`, by txnid: each answers one request. */
  const refundRefusals = new Map<string, { errorCode: number; message: string }>();

  /**
   * What cancel_refund_transaction names by its var1: a checkout's mihpayid or an AutoPay debit's
   * (si_transaction's `payuid`, verify_si_payment's `mihpayid`). PayU refunds either the same way;
   * the mandate's registration id (`authpayuid`) is the checkout that registered it, not a debit.
   */
  function refundable(mihpayid: string) {
    const txnid = byMihpayid.get(mihpayid);
    const txn = txnid === undefined ? undefined : transactions.get(txnid);
    if (txn) return { record: txn, captured: txn.serverStatus === 'success' };
    const debit = standing.debitByMihpayid(mihpayid);
    return debit ? { record: debit, captured: debit.status === 'success' } : null;
  }

  function refund(mihpayid: string, token: string, amount: string): Record<string, unknown> {
    const refused = (error_code: number, msg: string) => ({ status: 0, msg, error_code, mihpayid });
    if (token === '' || amount === '') return refused(124, 'Input Data missing');
    if (token.length > 23) return refused(124, 'Token length should not exceed 23 characters');
    const found = refundable(mihpayid);
    if (!found) return refused(116, 'Transaction Not Found');
    const txn = found.record;
    // Idempotency: a token is spent once, whatever happened to its first request.
    if (refunds.has(token)) return refused(106, 'Token already exists');
    // Only a captured transaction is refunded (docs.payu.in/docs/refund-transaction-api): a debit
    // the bank has not confirmed yet is not.
    if (!found.captured) return refused(111, 'Invalid transaction status');
    const scripted = refundRefusals.get(txn.txnid);
    if (scripted) {
      refundRefusals.delete(txn.txnid);
      return refused(scripted.errorCode, scripted.message);
    }
    const paise = amountToPaise(amount);
    if (paise === null || paise === 0) return refused(105, 'Invalid amount');
    const remaining = txn.amountPaise - txn.refundedPaise;
    if (paise > remaining)
      return refused(105, `Invalid amount: the remaining refundable amount is ${paiseToAmount(remaining)}`);
    const requestId = digits(9);
    txn.refundedPaise += paise;
    refunds.set(token, {
      token,
      mihpayid,
      txnid: txn.txnid,
      amount,
      amountPaise: paise,
      requestId,
      at: new Date().toISOString(),
      states: [...txn.refundScript],
      statusChecks: 0,
    });
    return {
      status: 1,
      msg: 'Refund Request Queued',
      request_id: requestId,
      bank_ref_num: null,
      mihpayid,
      error_code: 102,
    };
  }

  /** check_action_status by request_id: the refund's state, nested under its mihpayid as PayU does. */
  function actionStatus(requestId: string): Record<string, unknown> {
    const found = [...refunds.values()].find((r) => r.requestId === requestId);
    if (!found) return { status: 0, msg: 'No action status found' };
    found.statusChecks++;
    const state = (found.states.length > 1 ? found.states.shift() : found.states[0]) ?? 'QUEUED';
    return {
      status: 1,
      msg: '1 out of 1 Transactions Fetched Successfully',
      transaction_details: {
        [requestId]: {
          [found.mihpayid]: {
            mihpayid: found.mihpayid,
            bank_ref_num: state === 'SUCCESS' ? digits(12) : null,
            request_id: requestId,
            amt: paiseToAmount(found.amountPaise),
            mode: 'CC',
            action: 'refund',
            token: found.token,
            status: state,
            bank_arn: state === 'SUCCESS' ? digits(23) : null,
          },
        },
      },
    };
  }

  router.post('/merchant/postservice.php', form, (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const get = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    ctx.set('Cache-Control', 'no-store');
    // PayU answers 200 with status 0 for everything it refuses.
    if (get('key') !== key) {
      ctx.body = { status: 0, msg: 'Invalid key' };
      return;
    }
    const command = get('command');
    const var1 = get('var1');
    serverCalls.unshift({ command: command.slice(0, 60), at: new Date().toISOString() });
    serverCalls.splice(KEEP_DELIVERIES);
    if (get('hash').toLowerCase() !== commandHash(key, command, var1, salt)) {
      ctx.body = { status: 0, msg: 'Invalid Hash.' };
      return;
    }
    if (command === 'verify_payment') {
      ctx.body = verifyPayment(var1);
    } else if (command === 'cancel_refund_transaction') {
      ctx.body = refund(var1, get('var2'), get('var3'));
    } else if (command === 'check_action_status') {
      ctx.body = actionStatus(var1);
    } else if (standing.handles(command)) {
      ctx.body = standing.answer(command, var1);
    } else {
      ctx.body = { status: 0, msg: 'Invalid command' };
    }
  });

  // -------------------------------------------------------------------------------------
  // Control API for tests

  router.post('/_control', json, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const si = standing.control(ctx.request.body);
    if (si) {
      ctx.status = si.status;
      ctx.body = si.body;
      return;
    }
    const parsed = Control.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: 'not a control request', issues: parsed.error.issues };
      return;
    }
    const command = parsed.data;
    if (command.action === 'set-webhook' && command.txnid === undefined) {
      defaultWebhook = command.url;
      ctx.body = { ok: true, webhookUrl: defaultWebhook };
      return;
    }
    // Refund controls name an AutoPay debit's txnid as well as a checkout's.
    const debit = command.txnid === undefined ? undefined : standing.debitByTxnid(command.txnid);
    if (debit && command.action === 'script-refund') {
      debit.refundScript = [...command.states];
      for (const r of refunds.values()) if (r.txnid === debit.txnid) r.states = [...command.states];
      ctx.body = { ok: true, txnid: debit.txnid, states: command.states };
      return;
    }
    if (debit && command.action === 'refuse-refund') {
      refundRefusals.set(debit.txnid, { errorCode: command.errorCode, message: command.message });
      ctx.body = { ok: true, txnid: debit.txnid, errorCode: command.errorCode, message: command.message };
      return;
    }
    const txn = command.txnid === undefined ? undefined : transactions.get(command.txnid);
    if (!txn) {
      ctx.status = 404;
      ctx.body = { message: 'no such txnid' };
      return;
    }
    const fire = async (
      fields: Record<string, string>,
      to: z.infer<typeof Target>,
      kind: SandboxPayUDelivery['kind'],
      times: number,
      concurrent: boolean,
    ) => {
      const plan = Array.from({ length: times }, () => targets(txn, to, fields)).flat();
      if (concurrent) return Promise.all(plan.map((t) => deliver(txn, t.target, t.url, kind, fields)));
      const done: SandboxPayUDelivery[] = [];
      for (const t of plan) done.push(await deliver(txn, t.target, t.url, kind, fields));
      return done;
    };

    switch (command.action) {
      case 'script-verify':
        txn.verifyScript = [...command.statuses];
        ctx.body = { ok: true, txnid: txn.txnid, statuses: txn.verifyScript };
        return;
      case 'script-refund':
        txn.refundScript = [...command.states];
        for (const r of refunds.values()) if (r.txnid === txn.txnid) r.states = [...command.states];
        ctx.body = { ok: true, txnid: txn.txnid, states: command.states };
        return;
      case 'refuse-refund':
        refundRefusals.set(txn.txnid, { errorCode: command.errorCode, message: command.message });
        ctx.body = { ok: true, txnid: txn.txnid, errorCode: command.errorCode, message: command.message };
        return;
      case 'set-webhook':
        txn.webhookUrl = command.url;
        ctx.body = { ok: true, txnid: txn.txnid, webhookUrl: command.url };
        return;
      case 'set-status':
        txn.serverStatus = command.status;
        txn.unmappedstatus =
          command.unmappedstatus ??
          { pending: 'pending', success: 'captured', failure: 'failed' }[command.status];
        ctx.body = {
          ok: true,
          txnid: txn.txnid,
          status: txn.serverStatus,
          unmappedstatus: txn.unmappedstatus,
        };
        return;
      case 'complete': {
        if (txn.browserStatus !== 'initiated') {
          ctx.status = 409;
          ctx.body = { message: 'already completed' };
          return;
        }
        const { fields, webhook } = complete(txn, command.outcome, command.mode);
        ctx.body = {
          ok: true,
          fields,
          returnUrl: command.outcome === 'success' ? txn.surl : txn.furl,
          deliveries: webhook ? [await webhook] : [],
        };
        return;
      }
      case 'replay': {
        if (!txn.lastCallback) {
          ctx.status = 409;
          ctx.body = { message: 'nothing to replay: the transaction was never completed' };
          return;
        }
        const deliveries = await fire(
          txn.lastCallback,
          command.to,
          'replay',
          command.times,
          command.concurrent,
        );
        ctx.body = { ok: true, fields: txn.lastCallback, deliveries };
        return;
      }
      case 'forge': {
        const fields: Record<string, string> = {
          ...(txn.lastCallback ?? callbackFields(txn, command.status)),
          status: command.status,
        };
        // Hashed with a salt the attacker guessed: the right shape, the wrong value.
        fields.hash = reverseHash(fields, randomBytes(16).toString('hex'));
        ctx.body = {
          ok: true,
          fields,
          deliveries: await fire(fields, command.to, 'forged', command.times, false),
        };
        return;
      }
      case 'tamper-amount': {
        const fields: Record<string, string> = {
          ...(txn.lastCallback ?? callbackFields(txn, 'success')),
          amount: command.amount,
        };
        fields.net_amount_debit = command.amount;
        if (command.rehash) fields.hash = reverseHash(fields, salt);
        ctx.body = { ok: true, fields, deliveries: await fire(fields, command.to, 'tampered', 1, false) };
        return;
      }
    }
  });

  router.get('/_state', (ctx) => {
    const txnid = typeof ctx.query.txnid === 'string' ? ctx.query.txnid : undefined;
    const authpayuid = typeof ctx.query.authpayuid === 'string' ? ctx.query.authpayuid : undefined;
    const pick = <T extends { txnid: string }>(list: Iterable<T>) =>
      [...list].filter((x) => txnid === undefined || x.txnid === txnid);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      webhookUrl: defaultWebhook,
      transactions: pick(transactions.values()),
      refunds: pick(refunds.values()),
      deliveries: pick(deliveries),
      ...standing.state({ txnid, authpayuid }),
      serverCalls,
      serverCallCounts: serverCalls.reduce<Record<string, number>>((counts, call) => {
        counts[call.command] = (counts[call.command] ?? 0) + 1;
        return counts;
      }, {}),
    };
  });

  return router;
}
