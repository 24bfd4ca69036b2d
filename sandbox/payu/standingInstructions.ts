import { z } from 'zod';
import { addedOn, amountToPaise, digits, paiseToAmount, verifyAnswer } from './wire.ts';

/**
 * PayU's standing instructions (recurring payments), played: mandates registered by checkouts
 * posted with si=1, and the server API commands that use them — pre_debit_SI, si_transaction,
 * verify_si_payment, upi_mandate_status / check_mandate_status, upi_mandate_revoke /
 * mandate_revoke — answering in the shapes docs.payu.in documents (docs/autopay.md lists them).
 * The sandbox's clock is the real one while the app's sweeps run on a moved clock in tests, so
 * it checks order, not time: a debit needs a notice for its amount first.
 *
 * Control (through /_control): fail the next debit (insufficient funds, a bank down), or change
 * a mandate's state as a customer would from their UPI app or bank.
 */

export type SandboxMandate = {
  /** PayU's id of the registration (its mihpayid): what every later call names. */
  authpayuid: string;
  registrationTxnid: string;
  method: 'upi' | 'card';
  status: 'active' | 'paused' | 'revoked';
  billingAmount: string;
  amountPaise: number;
  siDetails: Record<string, unknown>;
  email: string;
  createdAt: string;
  notices: Array<{
    requestId: string;
    debitDate: string;
    amountPaise: number;
    invoiceId: string;
    at: string;
  }>;
  /** Notices not yet spent on a successful debit. */
  unspentNotices: number;
  revokedAt: string | null;
};

/** A refund's states as check_action_status reports them. */
export type RefundState = 'QUEUED' | 'IN PROGRESS' | 'REQUESTED' | 'SUCCESS' | 'FAILURE';

export type SandboxSiDebit = {
  txnid: string;
  authpayuid: string;
  /** PayU's id of this debit (si_transaction's `payuid`, verify_si_payment's `mihpayid`): what a refund names. */
  mihpayid: string;
  amountPaise: number;
  /** `pending` while the customer's bank has not confirmed it (UPI AutoPay debits can take hours). */
  status: 'success' | 'failure' | 'pending';
  reason: string | null;
  mode: 'UPI' | 'CC';
  at: string;
  verifyCalls: number;
  /** Refunded so far through cancel_refund_transaction, like a checkout's. */
  refundedPaise: number;
  /** check_action_status answers for this debit's refunds, one per call (the last one stays). */
  refundScript: RefundState[];
};

const Json = z.record(z.string(), z.unknown());

export const SiControl = z.discriminatedUnion('action', [
  /** The next si_transaction (for this mandate, or any) fails with this reason. */
  z.object({
    action: z.literal('si-fail-next-debit'),
    authpayuid: z.string().optional(),
    reason: z.string().min(1).max(200).default('Insufficient funds in the account'),
  }),
  /** What the customer did from their UPI app or bank. */
  z.object({
    action: z.literal('si-set-mandate'),
    authpayuid: z.string(),
    status: z.enum(['active', 'paused', 'revoked']),
  }),
  /** The next si_transaction (for this mandate, or any) stays pending: the bank has not confirmed it yet. */
  z.object({ action: z.literal('si-hold-next-debit'), authpayuid: z.string().optional() }),
  /** The bank's word on a pending debit. */
  z.object({
    action: z.literal('si-settle-debit'),
    txnid: z.string(),
    outcome: z.enum(['success', 'failure']),
    reason: z.string().min(1).max(200).default('Transaction declined by the bank'),
  }),
]);

const SI_COMMANDS = new Set([
  'pre_debit_SI',
  'si_transaction',
  'verify_si_payment',
  'upi_mandate_status',
  'check_mandate_status',
  'upi_mandate_revoke',
  'mandate_revoke',
]);

/** si_details as a checkout must post it; null when it is not PayU's shape. */
export function readSiDetails(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const shape = z.object({
    billingAmount: z.string().regex(/^\d+(\.\d{1,2})?$/),
    billingCurrency: z.literal('INR'),
    billingCycle: z.enum(['ONCE', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY', 'ADHOC']),
    billingInterval: z.coerce.number().int().min(1),
    paymentStartDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    paymentEndDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  });
  const result = shape.safeParse(parsed);
  return result.success ? (parsed as Record<string, unknown>) : null;
}

export function createStandingInstructions(options: { newMihpayid: () => string }) {
  const mandates = new Map<string, SandboxMandate>();
  const debits = new Map<string, SandboxSiDebit>();
  const preDebitAnswers = new Map<string, Record<string, unknown>>();
  const failNext: Array<{ authpayuid?: string | undefined; reason: string }> = [];
  const holdNext: Array<{ authpayuid?: string | undefined }> = [];

  function parseVar1(var1: string): Record<string, unknown> | null {
    try {
      const parsed = Json.safeParse(JSON.parse(var1));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
  const str = (value: unknown) =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

  function preDebit(var1: string): Record<string, unknown> {
    const refuse = (message: string) => ({ status: 0, action: 'MANDATE_PRE_DEBIT', message });
    const v = parseVar1(var1);
    if (!v) return refuse('Invalid var1: not JSON');
    const requestId = str(v.requestid ?? v.requestId);
    // The same request id again answers as the first time: PayU's idempotency for notices.
    const earlier = preDebitAnswers.get(requestId);
    if (earlier) return earlier;
    const mandate = mandates.get(str(v.authpayuid ?? v.authPayuId));
    if (!mandate) return refuse('Invalid authpayuid');
    if (mandate.status !== 'active') return refuse('Mandate is not active');
    const debitDate = str(v.debitdate ?? v.debitDate);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(debitDate)) return refuse('debitDate is mandatory');
    const amountPaise = amountToPaise(str(v.amount));
    if (amountPaise === null || amountPaise === 0 || amountPaise > mandate.amountPaise)
      return refuse('Invalid amount: more than the mandate allows');
    if (requestId === '') return refuse('requestId is mandatory');
    const invoiceId = `SBXPDN${digits(8)}`;
    mandate.notices.push({ requestId, debitDate, amountPaise, invoiceId, at: new Date().toISOString() });
    mandate.unspentNotices++;
    const answer = {
      status: 1,
      action: 'MANDATE_PRE_DEBIT',
      message: 'Request Processed Successfully',
      invoiceId,
    };
    preDebitAnswers.set(requestId, answer);
    return answer;
  }

  function debitEntry(debit: SandboxSiDebit, mandate: SandboxMandate | undefined) {
    const success = debit.status === 'success';
    const pending = debit.status === 'pending';
    return {
      transactionid: debit.txnid,
      amount: paiseToAmount(debit.amountPaise),
      payuid: debit.mihpayid,
      status: success ? 'captured' : pending ? 'pending' : 'failed',
      field9: success
        ? 'Transaction Completed Successfully'
        : pending
          ? 'Transaction is pending with the bank'
          : debit.reason,
      phone: '',
      email: mandate?.email ?? '',
      udf2: '',
      udf3: '',
      udf4: '',
      udf5: '',
    };
  }

  function siTransaction(var1: string): Record<string, unknown> {
    const refuse = (message: string) => ({ status: 0, message });
    const v = parseVar1(var1);
    if (!v) return refuse('Invalid var1: not JSON');
    const txnid = str(v.txnid);
    if (!/^[A-Za-z0-9_-]{1,25}$/.test(txnid)) return refuse('Invalid txnid');
    // A txnid is spent once, whatever became of it: the debit's idempotency key.
    if (debits.has(txnid)) return refuse('Duplicate Txnid: this transaction was already processed');
    const mandate = mandates.get(str(v.authpayuid));
    if (!mandate) return refuse('Invalid authpayuid');
    if (mandate.status !== 'active') return refuse('Mandate is not active');
    const amountPaise = amountToPaise(str(v.amount));
    // billingRule EXACT: the amount agreed, no other.
    if (amountPaise !== mandate.amountPaise) return refuse('Amount does not match the mandate');
    if (mandate.unspentNotices < 1) return refuse('Pre-debit notification not sent for this debit');
    const scripted = failNext.findIndex(
      (f) => f.authpayuid === undefined || f.authpayuid === mandate.authpayuid,
    );
    const failure = scripted >= 0 ? failNext.splice(scripted, 1)[0] : undefined;
    const held = failure
      ? -1
      : holdNext.findIndex((h) => h.authpayuid === undefined || h.authpayuid === mandate.authpayuid);
    if (held >= 0) holdNext.splice(held, 1);
    const debit: SandboxSiDebit = {
      txnid,
      authpayuid: mandate.authpayuid,
      mihpayid: options.newMihpayid(),
      amountPaise,
      status: failure ? 'failure' : held >= 0 ? 'pending' : 'success',
      reason: failure?.reason ?? null,
      mode: mandate.method === 'upi' ? 'UPI' : 'CC',
      at: new Date().toISOString(),
      verifyCalls: 0,
      refundedPaise: 0,
      refundScript: ['QUEUED', 'SUCCESS'],
    };
    debits.set(txnid, debit);
    // A notice covers one cycle: spent by the debit that succeeds (a retry may follow a failure).
    if (debit.status === 'success') mandate.unspentNotices--;
    return {
      status: 1,
      message: 'Transaction Processed successfully',
      details: { [txnid]: debitEntry(debit, mandate) },
    };
  }

  function verifyEntry(debit: SandboxSiDebit): Record<string, unknown> {
    const success = debit.status === 'success';
    if (debit.status === 'pending') {
      const amount = paiseToAmount(debit.amountPaise);
      return {
        mihpayid: debit.mihpayid,
        txnid: debit.txnid,
        amt: amount,
        transaction_amount: amount,
        mode: debit.mode,
        payment_source: 'payuSI',
        status: 'pending',
        unmappedstatus: 'pending',
        error_code: '',
        error_Message: '',
        field9: 'Transaction is pending with the bank',
        addedon: addedOn(new Date(debit.at)),
        net_amount_debit: 0,
      };
    }
    const amount = paiseToAmount(debit.amountPaise);
    return {
      mihpayid: debit.mihpayid,
      request_id: '',
      bank_ref_num: success ? digits(12) : '',
      amt: amount,
      transaction_amount: amount,
      txnid: debit.txnid,
      additional_charges: '0.00',
      productinfo: 'Recurring payment',
      firstname: '',
      bankcode: debit.mode === 'UPI' ? 'UPI' : 'CC',
      udf1: '',
      udf2: '',
      udf3: '',
      udf4: '',
      udf5: '',
      field2: '',
      field9: success ? 'Transaction Completed Successfully' : (debit.reason ?? 'Transaction Failed'),
      error_code: success ? 'E000' : 'E308',
      addedon: addedOn(new Date(debit.at)),
      payment_source: 'payuSI',
      error_Message: success ? 'NO ERROR' : (debit.reason ?? 'Transaction failed'),
      net_amount_debit: success ? debit.amountPaise / 100 : 0,
      disc: '0.00',
      mode: debit.mode,
      PG_TYPE: debit.mode === 'UPI' ? 'UPI-PG' : 'CC-PG',
      status: debit.status,
      unmappedstatus: success ? 'captured' : 'failed',
    };
  }

  function verifySiPayment(var1: string): Record<string, unknown> {
    return verifyAnswer(var1, (txnid) => {
      const debit = debits.get(txnid);
      if (!debit) return undefined;
      debit.verifyCalls++;
      return verifyEntry(debit);
    });
  }

  function mandateOf(var1: string, method: 'upi' | 'card'): SandboxMandate | null {
    const v = parseVar1(var1);
    const mandate = v ? mandates.get(str(v.authPayuId ?? v.authpayuid)) : undefined;
    return mandate && mandate.method === method ? mandate : null;
  }

  function mandateStatus(var1: string, method: 'upi' | 'card'): Record<string, unknown> {
    const action = method === 'upi' ? 'MANDATE_STATUS' : 'check_mandate_status';
    const mandate = mandateOf(var1, method);
    if (!mandate) return { status: 0, message: 'Consent is Not Mandated', action };
    const status =
      mandate.status === 'revoked' ? (method === 'upi' ? 'revoked' : 'cancelled') : mandate.status;
    return {
      status,
      action,
      authpayuid: mandate.authpayuid,
      amount: mandate.billingAmount,
      mandateStartDate: String(mandate.siDetails.paymentStartDate ?? ''),
      mandateEndDate: String(mandate.siDetails.paymentEndDate ?? ''),
    };
  }

  function revoke(var1: string, method: 'upi' | 'card'): Record<string, unknown> {
    const mandate = mandateOf(var1, method);
    const inactive = !mandate || mandate.status === 'revoked';
    if (mandate && !inactive) {
      mandate.status = 'revoked';
      mandate.revokedAt = new Date().toISOString();
    }
    // UPI answers `status`; cards (and net banking) document `statusCode`.
    return method === 'upi'
      ? inactive
        ? { status: 0, action: 'MANDATE_REVOKE', message: 'Mandate is not active' }
        : { status: 1, action: 'MANDATE_REVOKE', message: 'Request Initiated' }
      : inactive
        ? { statusCode: 0, action: 'MANDATE_REVOKE', message: 'Mandate is not active' }
        : { statusCode: 1, action: 'MANDATE_REVOKE', message: 'Mandate revoked successfully' };
  }

  return {
    handles: (command: string) => SI_COMMANDS.has(command),

    answer(command: string, var1: string): Record<string, unknown> {
      switch (command) {
        case 'pre_debit_SI':
          return preDebit(var1);
        case 'si_transaction':
          return siTransaction(var1);
        case 'verify_si_payment':
          return verifySiPayment(var1);
        case 'upi_mandate_status':
          return mandateStatus(var1, 'upi');
        case 'check_mandate_status':
          return mandateStatus(var1, 'card');
        case 'upi_mandate_revoke':
          return revoke(var1, 'upi');
        default:
          return revoke(var1, 'card');
      }
    },

    /** The debit PayU knows by this id (what cancel_refund_transaction names), if any. */
    debitByMihpayid(mihpayid: string): SandboxSiDebit | undefined {
      for (const debit of debits.values()) if (debit.mihpayid === mihpayid) return debit;
      return undefined;
    },

    debitByTxnid: (txnid: string): SandboxSiDebit | undefined => debits.get(txnid),

    /** A checkout posted with si=1 was paid: PayU registers the mandate under its mihpayid. */
    register(txn: {
      mihpayid: string;
      txnid: string;
      email: string;
      mode: 'UPI' | 'CC';
      siDetails: Record<string, unknown>;
    }): void {
      const billingAmount = String(txn.siDetails.billingAmount);
      mandates.set(txn.mihpayid, {
        authpayuid: txn.mihpayid,
        registrationTxnid: txn.txnid,
        method: txn.mode === 'UPI' ? 'upi' : 'card',
        status: 'active',
        billingAmount,
        amountPaise: amountToPaise(billingAmount) ?? 0,
        siDetails: txn.siDetails,
        email: txn.email,
        createdAt: new Date().toISOString(),
        notices: [],
        unspentNotices: 0,
        revokedAt: null,
      });
    },

    /** A control request this module answers, or null when it is not one of its actions. */
    control(body: unknown): { status: number; body: Record<string, unknown> } | null {
      const action = (body as { action?: unknown } | null)?.action;
      if (typeof action !== 'string' || !action.startsWith('si-')) return null;
      const parsed = SiControl.safeParse(body);
      if (!parsed.success)
        return { status: 400, body: { message: 'not a control request', issues: parsed.error.issues } };
      const command = parsed.data;
      if (command.action === 'si-fail-next-debit') {
        failNext.push({ authpayuid: command.authpayuid, reason: command.reason });
        return { status: 200, body: { ok: true, failNext } };
      }
      if (command.action === 'si-hold-next-debit') {
        holdNext.push({ authpayuid: command.authpayuid });
        return { status: 200, body: { ok: true, holdNext } };
      }
      if (command.action === 'si-settle-debit') {
        const debit = debits.get(command.txnid);
        if (!debit) return { status: 404, body: { message: 'no such debit' } };
        if (debit.status !== 'pending')
          return { status: 409, body: { message: `the debit is ${debit.status}` } };
        debit.status = command.outcome;
        if (command.outcome === 'failure') debit.reason = command.reason;
        const mandate = mandates.get(debit.authpayuid);
        if (command.outcome === 'success' && mandate) mandate.unspentNotices--;
        return { status: 200, body: { ok: true, debit } };
      }
      const mandate = mandates.get(command.authpayuid);
      if (!mandate) return { status: 404, body: { message: 'no such mandate' } };
      mandate.status = command.status;
      if (command.status === 'revoked') mandate.revokedAt = new Date().toISOString();
      return { status: 200, body: { ok: true, mandate } };
    },

    state(filter: { authpayuid?: string | undefined; txnid?: string | undefined } = {}) {
      return {
        mandates: [...mandates.values()].filter(
          (m) =>
            (filter.authpayuid === undefined || m.authpayuid === filter.authpayuid) &&
            (filter.txnid === undefined || m.registrationTxnid === filter.txnid),
        ),
        siDebits: [...debits.values()].filter(
          (d) =>
            (filter.authpayuid === undefined || d.authpayuid === filter.authpayuid) &&
            (filter.txnid === undefined || d.txnid === filter.txnid),
        ),
        failNext: [...failNext],
        holdNext: [...holdNext],
      };
    },
  };
}
