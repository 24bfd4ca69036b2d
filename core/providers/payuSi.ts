import {
  createPostService,
  formatAmount,
  parseVerifyPayment,
  PayUError,
  type PayUClientOptions,
  type PayUConfig,
  type VerifyPaymentResult,
} from './payu.ts';

/**
 * PayU standing instructions (recurring payments), the server calls: the pre-debit notice, the
 * debit, its verification, and the mandate's status and revoke, UPI and card alike. Wire facts
 * in shared/INTEGRATIONS.md and docs/autopay.md. This is transport only: each call answers
 * PayU's JSON as it came, and core/domain/autopay.ts says what it means (an answer it cannot
 * read is never taken as success). The debit's verification has the verify_payment shape and is
 * read by payu.ts's parser.
 */

export type SiMethod = 'upi' | 'card';

export type PayUSiClient = {
  /** pre_debit_SI: the notice PayU relays to the customer, naming amount and date. */
  preDebit(input: {
    authpayuid: string;
    requestId: string;
    debitDate: string;
    amountPaise: number;
    invoiceDisplayNumber?: string;
  }): Promise<unknown>;
  /** si_transaction: the debit, under our txnid (PayU refuses a txnid twice: the idempotency key). */
  debit(input: {
    authpayuid: string;
    txnid: string;
    amountPaise: number;
    email: string;
    phone: string;
    firstname: string;
    invoiceDisplayNumber?: string;
  }): Promise<unknown>;
  /** verify_si_payment: what happened to a debit (same answer shape as verify_payment). */
  verifyDebit(txnid: string): Promise<VerifyPaymentResult>;
  /** upi_mandate_status or check_mandate_status. */
  mandateStatus(method: SiMethod, input: { authpayuid: string; requestId: string }): Promise<unknown>;
  /** upi_mandate_revoke or mandate_revoke. */
  revoke(method: SiMethod, input: { authpayuid: string; requestId: string }): Promise<unknown>;
};

const ID = /^[A-Za-z0-9_-]{1,40}$/;

function check(name: string, value: string, pattern: RegExp): void {
  if (!pattern.test(value)) throw new PayUError('invalid-request', `${name} is not one PayU accepts`);
}

export function createPayUSiClient(config: PayUConfig, options: PayUClientOptions = {}): PayUSiClient {
  const call = createPostService(config, options);
  // var1 is JSON; a "|" in it would not shift the hash (var1 is one field), but PayU's own
  // examples never carry one and we have no reason to send one.
  const json = (value: Record<string, unknown>) => JSON.stringify(value);

  return {
    async preDebit(input) {
      check('authpayuid', input.authpayuid, /^\d{1,25}$/);
      check('requestId', input.requestId, ID);
      check('debitDate', input.debitDate, /^\d{4}-\d{2}-\d{2}$/);
      return call('pre_debit_SI', {
        var1: json({
          authpayuid: input.authpayuid,
          requestid: input.requestId,
          debitdate: input.debitDate,
          amount: formatAmount(input.amountPaise),
          ...(input.invoiceDisplayNumber ? { invoiceDisplayNumber: input.invoiceDisplayNumber } : {}),
        }),
      });
    },

    async debit(input) {
      check('authpayuid', input.authpayuid, /^\d{1,25}$/);
      check('txnid', input.txnid, /^[A-Za-z0-9_-]{1,25}$/);
      return call('si_transaction', {
        var1: json({
          authpayuid: input.authpayuid,
          ...(input.invoiceDisplayNumber ? { invoiceDisplayNumber: input.invoiceDisplayNumber } : {}),
          amount: formatAmount(input.amountPaise),
          txnid: input.txnid,
          phone: input.phone,
          email: input.email,
          firstname: input.firstname,
          udf2: '',
          udf3: '',
          udf4: '',
          udf5: '',
        }),
      });
    },

    async verifyDebit(txnid) {
      check('txnid', txnid, /^[A-Za-z0-9_-]{1,25}$/);
      return parseVerifyPayment(txnid, await call('verify_si_payment', { var1: txnid }));
    },

    async mandateStatus(method, input) {
      check('authpayuid', input.authpayuid, /^\d{1,25}$/);
      check('requestId', input.requestId, ID);
      return call(method === 'upi' ? 'upi_mandate_status' : 'check_mandate_status', {
        var1: json({ authPayuId: input.authpayuid, requestId: input.requestId }),
      });
    },

    async revoke(method, input) {
      check('authpayuid', input.authpayuid, /^\d{1,25}$/);
      check('requestId', input.requestId, ID);
      return call(method === 'upi' ? 'upi_mandate_revoke' : 'mandate_revoke', {
        var1: json({ authPayuId: input.authpayuid, requestId: input.requestId }),
      });
    },
  };
}
