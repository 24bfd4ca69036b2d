import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { formatAmountForPayU, parseRupeeAmount } from '../domain/money.ts';

/**
 * PayU India hosted checkout, our side of it: the request hash for the payment form, the
 * reverse hash of what PayU posts back, and the two server calls we make (verify_payment,
 * cancel_refund_transaction). Wire facts are in shared/INTEGRATIONS.md. The same code talks
 * to the sandbox stand-in and to PayU; only the config differs.
 *
 * Money is integer paise; PayU's `amount` string is formatted from it once by
 * `formatAmount` (over core/domain/money.ts, the one implementation), and that exact string is
 * what gets hashed and posted.
 */

export type PayUConfig = {
  key: string;
  salt: string;
  /** The hosted checkout URL the browser posts the form to, e.g. https://secure.payu.in/_payment */
  checkoutUrl: string;
  /** Base of the server API, e.g. https://info.payu.in (we append /merchant/postservice.php?form=2) */
  apiUrl: string;
};

export type PayUErrorKind =
  /** Our input broke a PayU rule before anything was sent. */
  | 'invalid-request'
  /** Could not reach PayU (DNS, refused, reset). */
  | 'network'
  /** PayU did not answer within the timeout. */
  | 'timeout'
  /** PayU answered 5xx. */
  | 'server'
  /** PayU answered something we cannot read (4xx, not JSON, wrong shape). */
  | 'protocol'
  /** PayU read the request and refused it (bad hash, bad key, unknown command). */
  | 'rejected';

/**
 * Every failure of this module. `retryable` tells a job whether trying again later can help:
 * true for network trouble, timeouts and 5xx; false when the request itself is wrong.
 */
export class PayUError extends Error {
  override name = 'PayUError';
  readonly kind: PayUErrorKind;
  readonly retryable: boolean;
  readonly httpStatus: number | undefined;

  constructor(kind: PayUErrorKind, message: string, options: { httpStatus?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.kind = kind;
    this.retryable = kind === 'network' || kind === 'timeout' || kind === 'server';
    this.httpStatus = options.httpStatus;
  }
}

const TXNID_MAX = 25;
const PRODUCTINFO_MAX = 100;
export const FIRSTNAME_MAX = 60;
const REFUND_TOKEN_MAX = 23;
const UDF_MAX = 255;

function sha512(input: string): string {
  return createHash('sha512').update(input, 'utf8').digest('hex');
}

// ---------------------------------------------------------------------------------------
// Amounts

/** Integer paise → PayU's amount string with two decimals: 145000 → '1450.00' (core/domain/money.ts). */
export function formatAmount(paise: number): string {
  if (!Number.isSafeInteger(paise) || paise <= 0) {
    throw new PayUError('invalid-request', `amount must be a positive whole number of paise, got ${paise}`);
  }
  return formatAmountForPayU(paise);
}

/**
 * An amount as PayU writes it ('10', '10.00', '1450.5', 10, 1450.5) → integer paise, or
 * null when it is not a plain non-negative amount with at most two meaningful decimals.
 * Strings are read by core/domain/money.ts and never go through a float, so '0.29' is 29 exactly.
 */
export function parseAmountToPaise(value: unknown): number | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value > 1e13) return null;
    // A number has already been through a float; accept it only if it is whole paise.
    const paise = Math.round(value * 100);
    return Math.abs(paise - value * 100) < 1e-6 ? paise : null;
  }
  if (typeof value !== 'string') return null;
  // PayU sometimes pads to three or four decimals ('10.500'); zeros past the paise mean nothing.
  return parseRupeeAmount(value.trim().replace(/^(\d+\.\d{2})0+$/, '$1'));
}

// ---------------------------------------------------------------------------------------
// Request hash and checkout form

export type Udfs = { udf1?: string; udf2?: string; udf3?: string; udf4?: string; udf5?: string };

export type RequestHashFields = {
  key: string;
  txnid: string;
  amount: string;
  productinfo: string;
  firstname: string;
  email: string;
} & Udfs;

/**
 * `sha512(key|txnid|amount|productinfo|firstname|email|udf1|udf2|udf3|udf4|udf5||||||SALT)`,
 * lowercase hex. Absent udfs stay as empty fields. A standing-instruction registration (si=1)
 * hashes its `si_details` string too, just before the salt:
 * `…|udf5||||||si_details|SALT` (docs.payu.in, UPI Consent Transaction).
 */
export function requestHash(fields: RequestHashFields, salt: string, siDetails?: string): string {
  const parts = [
    fields.key,
    fields.txnid,
    fields.amount,
    fields.productinfo,
    fields.firstname,
    fields.email,
    fields.udf1 ?? '',
    fields.udf2 ?? '',
    fields.udf3 ?? '',
    fields.udf4 ?? '',
    fields.udf5 ?? '',
    // udf6..udf10 are reserved by PayU and always empty.
    '',
    '',
    '',
    '',
    '',
    ...(siDetails === undefined ? [] : [siDetails]),
    salt,
  ];
  return sha512(parts.join('|'));
}

/** A fresh transaction id: unique, 24 lowercase alphanumerics (PayU allows 25), URL-safe. */
export function newTxnId(): string {
  // Time first keeps ids roughly sortable in PayU's dashboard; 14 random base-36 chars
  // (~72 bits) make a collision practically impossible even within one millisecond.
  const time = Date.now().toString(36).padStart(9, '0').slice(-9);
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  const bytes = randomBytes(14);
  let random = '';
  for (const byte of bytes) random += alphabet[byte % 36];
  return `lc${time}${random}`.slice(0, 25);
}

export type CheckoutInput = {
  txnid: string;
  amountPaise: number;
  productinfo: string;
  firstname: string;
  email: string;
  phone: string;
  surl: string;
  furl: string;
  /**
   * A standing-instruction registration (AutoPay): PayU's `si_details` JSON, posted with
   * `si=1` and `api_version=7` and covered by the hash.
   */
  siDetails?: Record<string, unknown>;
} & Udfs;

/** The spec's payment-start fields: the SPA posts all but `action` as a form to `action`. */
export type PaymentStart = {
  action: string;
  key: string;
  txnid: string;
  amount: string;
  productinfo: string;
  firstname: string;
  email: string;
  phone: string;
  surl: string;
  furl: string;
  hash: string;
  udf1: string;
  udf2: string;
  udf3: string;
  udf4: string;
  udf5: string;
  /** Only on a standing-instruction registration. */
  si?: '1';
  api_version?: '7';
  si_details?: string;
};

function invalid(message: string): never {
  throw new PayUError('invalid-request', message);
}

function checkText(name: string, value: string, max: number, required: boolean): void {
  if (required && value.trim() === '') invalid(`${name} is required`);
  if (value.length > max) invalid(`${name} is longer than PayU allows (${max})`);
  // A pipe would shift the hash's fields: a different split of the same string would hash the same.
  if (value.includes('|')) invalid(`${name} must not contain "|"`);
}

function checkUrl(name: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid(`${name} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') invalid(`${name} must be an http(s) URL`);
}

/** Validates the checkout against PayU's limits and answers the signed payment-start fields. */
export function buildCheckout(config: PayUConfig, input: CheckoutInput): PaymentStart {
  checkText('txnid', input.txnid, TXNID_MAX, true);
  if (!/^[A-Za-z0-9_-]+$/.test(input.txnid)) invalid('txnid must be letters, digits, "-" or "_"');
  checkText('productinfo', input.productinfo, PRODUCTINFO_MAX, true);
  checkText('firstname', input.firstname, FIRSTNAME_MAX, true);
  checkText('email', input.email, 254, true);
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) invalid('email is not an email address');
  checkText('phone', input.phone, 20, true);
  checkUrl('surl', input.surl);
  checkUrl('furl', input.furl);
  const udfs = {
    udf1: input.udf1 ?? '',
    udf2: input.udf2 ?? '',
    udf3: input.udf3 ?? '',
    udf4: input.udf4 ?? '',
    udf5: input.udf5 ?? '',
  };
  for (const [name, value] of Object.entries(udfs)) checkText(name, value, UDF_MAX, false);
  const amount = formatAmount(input.amountPaise);
  const siDetails = input.siDetails === undefined ? undefined : JSON.stringify(input.siDetails);
  if (siDetails?.includes('|')) invalid('si_details must not contain "|"');
  const signed = {
    key: config.key,
    txnid: input.txnid,
    amount,
    productinfo: input.productinfo,
    firstname: input.firstname,
    email: input.email,
    ...udfs,
  };
  return {
    action: config.checkoutUrl,
    ...signed,
    phone: input.phone,
    surl: input.surl,
    furl: input.furl,
    hash: requestHash(signed, config.salt, siDetails),
    ...(siDetails === undefined
      ? {}
      : { si: '1' as const, api_version: '7' as const, si_details: siDetails }),
  };
}

// ---------------------------------------------------------------------------------------
// Reverse hash of PayU's posts (surl, furl, webhook)

/** A form-encoded body as a body parser hands it over: repeated fields may arrive as arrays. */
export type PostedFields = Record<string, unknown>;

function field(posted: PostedFields, name: string): string | undefined {
  const value = posted[name];
  return typeof value === 'string' ? value : undefined;
}

/** The reverse hash PayU computes for a response, from its posted fields. */
export function responseHash(posted: PostedFields, salt: string): string {
  const f = (name: string) => field(posted, name) ?? '';
  const parts = [
    salt,
    f('status'),
    // udf10..udf6, always empty for us.
    '',
    '',
    '',
    '',
    '',
    f('udf5'),
    f('udf4'),
    f('udf3'),
    f('udf2'),
    f('udf1'),
    f('email'),
    f('firstname'),
    f('productinfo'),
    f('amount'),
    f('txnid'),
    f('key'),
  ];
  const additionalCharges = field(posted, 'additionalCharges') || field(posted, 'additional_charges');
  if (additionalCharges) parts.unshift(additionalCharges);
  return sha512(parts.join('|'));
}

/**
 * True only when PayU's post carries a reverse hash matching its fields under our salt.
 * Compared in constant time. Any field posted twice (an array) makes the post invalid: we
 * cannot know which copy PayU meant.
 */
export function verifyResponseHash(posted: PostedFields, salt: string): boolean {
  const hash = field(posted, 'hash');
  for (const name of ['status', 'txnid', 'key', 'amount']) {
    if (!field(posted, name)) return false;
  }
  for (const name of ['udf1', 'udf2', 'udf3', 'udf4', 'udf5', 'email', 'firstname', 'productinfo']) {
    if (posted[name] !== undefined && typeof posted[name] !== 'string') return false;
  }
  if (hash === undefined || !/^[0-9a-fA-F]{128}$/.test(hash)) return false;
  const expected = Buffer.from(responseHash(posted, salt), 'utf8');
  const actual = Buffer.from(hash.toLowerCase(), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

// ---------------------------------------------------------------------------------------
// Server API (postservice.php)

export type VerifyStatus = 'success' | 'failure' | 'pending' | 'not-found' | 'unknown';

export type VerifyPaymentResult = {
  txnid: string;
  found: boolean;
  /** Only 'success' means paid; everything else means not (yet) paid. */
  status: VerifyStatus;
  mihpayid: string | null;
  /** From `amt` (or `transaction_amount`), null when PayU sent nothing readable. */
  amountPaise: number | null;
  /** From `net_amount_debit`, which PayU sends as a number or a string. */
  netAmountDebitPaise: number | null;
  unmappedstatus: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** PayU's entry for this txnid (or the whole answer when it had none), for the record. */
  raw: unknown;
};

export type RefundInput = {
  mihpayid: string;
  /** Our unique token for this refund; PayU refuses a repeated one, which makes retries safe. */
  refundToken: string;
  amountPaise: number;
};

export type RefundResult = {
  /** True only for status 1 with error_code 102 (queued at PayU). */
  accepted: boolean;
  /** PayU's 106: this token was used before, so an earlier attempt may already have gone through. */
  duplicateToken: boolean;
  requestId: string | null;
  errorCode: number | null;
  message: string;
  raw: unknown;
};

/** PayU's states of a refund (check_action_status), reduced to what we act on. */
export type RefundProgress = 'in-progress' | 'success' | 'failure' | 'unknown';

export type RefundStatusResult = {
  requestId: string;
  /** PayU's own word: QUEUED, IN PROGRESS, REQUESTED, SUCCESS, FAILURE… */
  payuStatus: string;
  progress: RefundProgress;
  raw: unknown;
};

export type PayUClientOptions = { fetch?: typeof fetch; timeoutMs?: number };

export type PayUClient = {
  config: PayUConfig;
  buildCheckout(input: CheckoutInput): PaymentStart;
  /** Hash check plus our key: the post is PayU's answer about one of our transactions. */
  verifyResponse(posted: PostedFields): boolean;
  verifyPayment(txnid: string): Promise<VerifyPaymentResult>;
  /** One verify_payment call for several txnids (`var1` joined with "|"); one result per txnid asked. */
  verifyPayments(txnids: readonly string[]): Promise<VerifyPaymentResult[]>;
  refund(input: RefundInput): Promise<RefundResult>;
  /** check_action_status of a refund by PayU's request id. */
  refundStatus(requestId: string): Promise<RefundStatusResult>;
};

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapStatus(status: string | null): VerifyStatus {
  switch (status?.trim().toLowerCase()) {
    case 'success':
      return 'success';
    case 'failure':
    case 'failed':
      return 'failure';
    case 'pending':
    case 'in progress':
    case 'initiated':
      return 'pending';
    case 'not found':
      return 'not-found';
    default:
      return 'unknown';
  }
}

/** Reads a verify_payment answer for one txnid. Exported for tests. */
export function parseVerifyPayment(txnid: string, body: unknown): VerifyPaymentResult {
  if (!isRecord(body))
    throw new PayUError('protocol', 'verify_payment answered something that is not an object');
  const details = body.transaction_details;
  const entry = isRecord(details) ? details[txnid] : undefined;
  if (!isRecord(entry)) {
    // No entry for our txnid: PayU refused the call itself (bad hash, bad key…).
    const message = text(body.msg) ?? 'no transaction_details in the answer';
    throw new PayUError(Number(body.status) === 0 ? 'rejected' : 'protocol', `verify_payment: ${message}`);
  }
  const status = mapStatus(text(entry.status));
  const found = status !== 'not-found';
  const mihpayid = text(entry.mihpayid);
  const amountPaise = parseAmountToPaise(entry.amt) ?? parseAmountToPaise(entry.transaction_amount);
  return {
    txnid,
    found,
    status,
    mihpayid: found && mihpayid !== null && mihpayid.toLowerCase() !== 'not found' ? mihpayid : null,
    amountPaise: found ? amountPaise : null,
    netAmountDebitPaise: found ? parseAmountToPaise(entry.net_amount_debit) : null,
    unmappedstatus: text(entry.unmappedstatus),
    errorCode: text(entry.error_code),
    errorMessage: text(entry.error_Message),
    raw: entry,
  };
}

/**
 * Reads a verify_payment answer for several txnids. A txnid missing from the answer counts as
 * not found; a call PayU refused as a whole (bad hash, bad key) throws.
 */
export function parseVerifyPayments(txnids: readonly string[], body: unknown): VerifyPaymentResult[] {
  if (!isRecord(body))
    throw new PayUError('protocol', 'verify_payment answered something that is not an object');
  if (!isRecord(body.transaction_details)) {
    const message = text(body.msg) ?? 'no transaction_details in the answer';
    throw new PayUError(Number(body.status) === 0 ? 'rejected' : 'protocol', `verify_payment: ${message}`);
  }
  const details = body.transaction_details;
  return txnids.map((txnid) =>
    isRecord(details[txnid])
      ? parseVerifyPayment(txnid, body)
      : parseVerifyPayment(txnid, { transaction_details: { [txnid]: { status: 'Not Found' } } }),
  );
}

function mapRefundProgress(status: string): RefundProgress {
  const s = status.trim().toLowerCase();
  if (s === 'success' || s === 'refunded' || s === 'completed') return 'success';
  if (s === 'failure' || s === 'failed' || s === 'cancelled') return 'failure';
  if (s === 'queued' || s === 'in progress' || s === 'requested' || s === 'pending') return 'in-progress';
  return 'unknown';
}

/**
 * Reads a check_action_status answer: `transaction_details.<request_id>` holds the refund (or a
 * map of them keyed by PayU's id), each with a `status`. Exported for tests.
 */
export function parseRefundStatus(requestId: string, body: unknown): RefundStatusResult {
  if (!isRecord(body))
    throw new PayUError('protocol', 'check_action_status answered something that is not an object');
  const details = isRecord(body.transaction_details) ? body.transaction_details[requestId] : undefined;
  let entry: Record<string, unknown> | undefined;
  if (isRecord(details)) {
    entry = typeof details.status === 'string' ? details : Object.values(details).find(isRecord);
  }
  if (!entry) {
    const message = text(body.msg) ?? 'no transaction_details in the answer';
    throw new PayUError(
      Number(body.status) === 0 ? 'rejected' : 'protocol',
      `check_action_status: ${message}`,
    );
  }
  const payuStatus = text(entry.status) ?? '';
  return { requestId, payuStatus, progress: mapRefundProgress(payuStatus), raw: entry };
}

/** Reads a cancel_refund_transaction answer. Exported for tests. */
export function parseRefund(body: unknown): RefundResult {
  if (!isRecord(body))
    throw new PayUError('protocol', 'cancel_refund_transaction answered something that is not an object');
  const code = body.error_code === undefined || body.error_code === null ? null : Number(body.error_code);
  const errorCode = code !== null && Number.isInteger(code) ? code : null;
  const accepted = Number(body.status) === 1 && errorCode === 102;
  return {
    accepted,
    duplicateToken: errorCode === 106,
    requestId: accepted ? text(body.request_id) : null,
    errorCode,
    message: text(body.msg) ?? '',
    raw: body,
  };
}

/** One postservice.php command: form-encoded in, JSON out, every failure a PayUError. */
export type PostService = (
  command: string,
  vars: { var1: string; var2?: string; var3?: string },
) => Promise<unknown>;

/**
 * PayU's server API (`…/merchant/postservice.php?form=2`) for one merchant: `hash =
 * sha512(key|command|var1|SALT)`, a timeout on every call, and transport failures sorted into
 * PayUError kinds. The checkout client and the standing-instruction client (payuSi.ts) share it.
 */
export function createPostService(config: PayUConfig, options: PayUClientOptions = {}): PostService {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const endpoint = `${config.apiUrl.replace(/\/+$/, '')}/merchant/postservice.php?form=2`;

  return async function call(command, vars) {
    const body = new URLSearchParams({
      key: config.key,
      command,
      ...vars,
      hash: sha512(`${config.key}|${command}|${vars.var1}|${config.salt}`),
    });
    let response: Response;
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut =
        error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new PayUError(
        timedOut ? 'timeout' : 'network',
        `${command}: ${timedOut ? `no answer within ${timeoutMs} ms` : 'PayU unreachable'}`,
        { cause: error },
      );
    }
    let raw: string;
    try {
      raw = await response.text();
    } catch (error) {
      throw new PayUError('network', `${command}: the answer was cut off`, { cause: error });
    }
    if (response.status >= 500) {
      throw new PayUError('server', `${command}: PayU answered ${response.status}`, {
        httpStatus: response.status,
      });
    }
    if (!response.ok) {
      throw new PayUError('protocol', `${command}: PayU answered ${response.status}`, {
        httpStatus: response.status,
      });
    }
    try {
      return JSON.parse(raw) as unknown;
    } catch (error) {
      throw new PayUError('protocol', `${command}: the answer is not JSON`, {
        httpStatus: response.status,
        cause: error,
      });
    }
  };
}

/** A PayU client bound to one merchant configuration. */
export function createPayUClient(config: PayUConfig, options: PayUClientOptions = {}): PayUClient {
  const call = createPostService(config, options);

  return {
    config,
    buildCheckout: (input) => buildCheckout(config, input),
    verifyResponse: (posted) =>
      field(posted, 'key') === config.key && verifyResponseHash(posted, config.salt),

    async verifyPayment(txnid) {
      if (txnid === '' || txnid.length > TXNID_MAX || txnid.includes('|')) invalid('not a txnid');
      return parseVerifyPayment(txnid, await call('verify_payment', { var1: txnid }));
    },

    async verifyPayments(txnids) {
      if (txnids.length === 0) return [];
      for (const txnid of txnids) {
        if (txnid === '' || txnid.length > TXNID_MAX || txnid.includes('|')) invalid('not a txnid');
      }
      return parseVerifyPayments(txnids, await call('verify_payment', { var1: txnids.join('|') }));
    },

    async refundStatus(requestId) {
      if (!/^[A-Za-z0-9_-]{1,40}$/.test(requestId)) invalid('not a PayU request id');
      return parseRefundStatus(requestId, await call('check_action_status', { var1: requestId }));
    },

    async refund(input) {
      if (!/^\d+$/.test(input.mihpayid)) invalid('mihpayid must be PayU’s numeric id');
      if (!/^[A-Za-z0-9_-]{1,23}$/.test(input.refundToken)) {
        invalid(`refundToken must be 1–${REFUND_TOKEN_MAX} letters, digits, "-" or "_"`);
      }
      const amount = formatAmount(input.amountPaise);
      return parseRefund(
        await call('cancel_refund_transaction', {
          var1: input.mihpayid,
          var2: input.refundToken,
          var3: amount,
        }),
      );
    },
  };
}
