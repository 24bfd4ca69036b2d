/**
 * Plans that renew themselves (UPI AutoPay and card standing instructions through PayU): every
 * decision about money and time, and what each of PayU's answers means. Pure: no I/O. The sweep
 * (core/commands/autopayRenewal.ts) gathers rows, asks these rules, and acts.
 *
 * The cycle of one renewal: the notice (PayU's pre_debit_SI) goes `noticeMinutes` before the
 * debit; the debit (si_transaction) goes on the renewal's own India date, an hour before the
 * plan ends so that a debit that succeeds renews without the PC stopping, and never earlier than
 * `noticeMinutes` after PayU accepted the notice. A failed debit is retried at most
 * AUTOPAY_RETRIES times, a day apart, while the ended plan's machine is still kept; the
 * customer can also pay by hand at any time ("Pay now").
 */
import { addOneMonth } from './plans.ts';
import { formatRupees, parseRupeeAmount } from './money.ts';
import { plainFailureReason } from './payments.ts';
import { DAY_MS, formatLongDate, indiaDate, toEpochMs, type Instant } from './time.ts';

const MINUTE_MS = 60_000;

/** PayU asks for the pre-debit notice 48 hours ahead (RBI's floor is 24): the default and production's minimum. */
export const AUTOPAY_NOTICE_MINUTES_DEFAULT = 2880;
export const AUTOPAY_NOTICE_MINUTES_PRODUCTION_MIN = 2880;

/** The debit goes this long before the plan ends, so a debit that succeeds renews before the PC would stop. */
export const AUTOPAY_DEBIT_LEAD_MS = 60 * MINUTE_MS;

/** A failed debit is tried again at most this many times (NPCI: one attempt, up to three retries). */
export const AUTOPAY_RETRIES = 3;
/** At least this long between two attempts (one retry a day). */
export const AUTOPAY_RETRY_GAP_MS = DAY_MS;

/**
 * The notice falls due this much before the lead: a sweep that runs a minute or two late still
 * leaves the whole lead, and the debit keeps its date.
 */
export const AUTOPAY_NOTICE_EARLY_MS = 10 * MINUTE_MS;

/** A notice PayU did not accept (or did not answer) is asked again after this long. */
export const AUTOPAY_NOTICE_RETRY_MS = 15 * MINUTE_MS;
/** How long a sweep holds a renewal while it talks to PayU; a crashed sweep's hold runs out. */
export const AUTOPAY_LEASE_MS = 2 * MINUTE_MS;
/** A debit PayU never answered (the sweep died in the call) is sent again, same txnid, after this long. */
export const AUTOPAY_REDRIVE_AFTER_MS = 5 * MINUTE_MS;

/** The mandate's paymentEndDate: this many years after the first renewal. */
export const AUTOPAY_MANDATE_YEARS = 5;

/** Renewals and mandates a sweep takes per run; the rest wait for the next minute. */
export const AUTOPAY_BATCH = 100;

export type MandateMethod = 'upi' | 'card';
export const MANDATE_STATUSES = ['pending', 'active', 'paused', 'cancelled', 'revoked', 'failed'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];
export const RENEWAL_STATES = [
  'noticing',
  'noticed',
  'debiting',
  'retrying',
  'renewed',
  'failed',
  'skipped',
  'cancelled',
  'superseded',
  'manual',
] as const;
export type RenewalState = (typeof RENEWAL_STATES)[number];

/** Renewals the sweep still moves; the rest are final (a skipped one can come back on resume). */
export const OPEN_RENEWAL_STATES = [
  'noticing',
  'noticed',
  'debiting',
  'retrying',
] as const satisfies readonly RenewalState[];

export const AUTOPAY_MESSAGES = {
  optInLabel: 'Renew automatically every month',
  trialNeverRenews: 'A trial does not renew. Choose a monthly plan to renew it automatically.',
  unavailable: 'Automatic renewal is not available at the moment. You can still pay for this month.',
  priceChanged:
    'The price has changed since you looked. Please check the amount before you turn on automatic renewal.',
  noMandate: 'Automatic renewal is not on for your plan.',
  notPaused: 'Automatic renewal is not paused.',
  cannotPause: 'Automatic renewal can be paused only while it is on.',
  debitInFlight: 'Your renewal payment is with your bank right now. Please wait a minute and try again.',
  nothingToPay: 'There is no renewal waiting for payment.',
  alreadyOn: 'Automatic renewal is already on for this plan.',
  revokedOutside: 'Automatic renewal was cancelled from your UPI app or bank.',
  registrationFailed: 'Automatic renewal could not be set up with this payment method. Your plan is paid.',
  changedPlan: 'Automatic renewal stopped because you bought a different plan.',
  refunded: 'Automatic renewal stopped because the plan it renewed was refunded and has ended.',
} as const;

// ---------------------------------------------------------------------------------------
// Time: India keeps no daylight saving, so India time is UTC+05:30 all year.

const IST_OFFSET_MS = 330 * MINUTE_MS;

function istMinuteOfDay(ms: number): number {
  return Math.floor(((((ms + IST_OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
}

function startOfIndiaDay(ms: number): number {
  return ms - ((((ms + IST_OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS);
}

/** "2026-08-15": the India date of an instant, as PayU's date fields and our period keys write it. */
export function indiaDateString(at: Instant): string {
  const d = indiaDate(at);
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** A renewal's key: the India date of the end of the plan it renews. */
export function periodKey(renewalAt: Instant): string {
  return indiaDateString(renewalAt);
}

/**
 * NPCI's peak hours (India time), in which UPI AutoPay debits are not executed: 10:00–13:00 and
 * 17:00–21:30 (NPCI's circular effective 1 August 2025, as reported; see docs/autopay.md).
 */
export const UPI_PEAK_WINDOWS: ReadonlyArray<readonly [number, number]> = [
  [10 * 60, 13 * 60],
  [17 * 60, 21 * 60 + 30],
];
/** A debit moved out of a peak window lands this far outside it. */
const PEAK_MARGIN_MS = 5 * MINUTE_MS;

function peakWindowAt(ms: number): readonly [number, number] | undefined {
  const minute = istMinuteOfDay(ms);
  return UPI_PEAK_WINDOWS.find(([from, to]) => minute >= from && minute < to);
}

/** Moves a UPI debit due in a peak window to just before it (same India date). */
function beforePeak(ms: number, method: MandateMethod | null): number {
  const window = method === 'card' ? undefined : peakWindowAt(ms);
  return window ? startOfIndiaDay(ms) + window[0] * MINUTE_MS - PEAK_MARGIN_MS : ms;
}

/** Moves a UPI retry due in a peak window to just after it. */
function afterPeak(ms: number, method: MandateMethod | null): number {
  const window = method === 'card' ? undefined : peakWindowAt(ms);
  return window ? startOfIndiaDay(ms) + window[1] * MINUTE_MS + PEAK_MARGIN_MS : ms;
}

/**
 * When the debit of a plan ending at `renewalAt` is due: AUTOPAY_DEBIT_LEAD_MS before the end,
 * but on the renewal's own India date, and for UPI outside NPCI's peak hours.
 */
export function scheduledDebitAt(renewalAt: Instant, method: MandateMethod | null): Date {
  const end = toEpochMs(renewalAt);
  const due = Math.max(end - AUTOPAY_DEBIT_LEAD_MS, startOfIndiaDay(end));
  return new Date(beforePeak(due, method));
}

/** When the notice for a debit due at `debitAt` falls due (a little before the lead: AUTOPAY_NOTICE_EARLY_MS). */
export function noticeDueAt(debitAt: Instant, noticeMinutes: number): Date {
  return new Date(toEpochMs(debitAt) - noticeMinutes * MINUTE_MS - AUTOPAY_NOTICE_EARLY_MS);
}

/**
 * The debit date a notice sent at `now` names: the schedule's, unless the notice goes late (a
 * resume, PayU refusing for a while) and the lead would be shorter than `noticeMinutes`.
 */
export function noticedDebitAt(scheduled: Instant, now: Instant, noticeMinutes: number): Date {
  return new Date(Math.max(toEpochMs(scheduled), toEpochMs(now) + noticeMinutes * MINUTE_MS));
}

/** The debit may go at its date, and never earlier than `noticeMinutes` after PayU accepted the notice. */
export function debitAllowedAt(debitAt: Instant, noticeSentAt: Instant, noticeMinutes: number): Date {
  return new Date(Math.max(toEpochMs(debitAt), toEpochMs(noticeSentAt) + noticeMinutes * MINUTE_MS));
}

/**
 * When to try a failed debit again, or null when no try is left: after `attemptsDone` attempts,
 * AUTOPAY_RETRY_GAP_MS after the failure (for UPI outside peak hours), and only while the ended
 * plan's machine is still kept (`keptUntil`): past that there is nothing left to renew.
 */
export function retryAt(
  failedAt: Instant,
  attemptsDone: number,
  method: MandateMethod | null,
  keptUntil: Instant,
): Date | null {
  if (attemptsDone >= 1 + AUTOPAY_RETRIES) return null;
  const at = afterPeak(toEpochMs(failedAt) + AUTOPAY_RETRY_GAP_MS, method);
  return at < toEpochMs(keptUntil) ? new Date(at) : null;
}

/**
 * A renewal's period: one month from where the renewed plan ends (the debit goes a little before,
 * and nothing is lost), or from when it was paid when that is later (a retry after the end).
 */
export function renewalExpiry(previousExpiresAt: Instant, paidAt: Instant): Date {
  return addOneMonth(Math.max(toEpochMs(previousExpiresAt), toEpochMs(paidAt)));
}

// ---------------------------------------------------------------------------------------
// Registration at checkout

/** PayU's si_details for a monthly renewal of `amount` (PayU's two-decimal string). */
export type SiDetails = {
  billingAmount: string;
  billingCurrency: 'INR';
  billingCycle: 'MONTHLY';
  billingInterval: 1;
  paymentStartDate: string;
  paymentEndDate: string;
  /** AFTER: a retry may debit on a later day than the cycle's date. */
  billingLimit: 'AFTER';
  /** EXACT: every debit is the amount agreed, never more or less. */
  billingRule: 'EXACT';
};

export function siDetails(amount: string, firstRenewalAt: Instant): SiDetails {
  const start = indiaDate(firstRenewalAt);
  const end = { ...start, year: start.year + AUTOPAY_MANDATE_YEARS };
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    billingAmount: amount,
    billingCurrency: 'INR',
    billingCycle: 'MONTHLY',
    billingInterval: 1,
    paymentStartDate: indiaDateString(firstRenewalAt),
    // 29 February has no twin five years on; the 28th is close enough for an end date.
    paymentEndDate: `${end.year}-${pad(end.month)}-${pad(end.month === 2 && end.day === 29 ? 28 : end.day)}`,
    billingLimit: 'AFTER',
    billingRule: 'EXACT',
  };
}

/** What the Confirm & Pay page offers: the amount, the first renewal's date, the notice lead. */
export type AutoRenewOffer = { amountPaise: number; firstRenewalDate: string; noticeHours: number };

export function autoRenewOffer(input: {
  available: boolean;
  isTrial: boolean;
  pricePaise: number;
  now: Instant;
  noticeMinutes: number;
}): AutoRenewOffer | null {
  if (!input.available || input.isTrial) return null;
  return {
    amountPaise: input.pricePaise,
    firstRenewalDate: addOneMonth(input.now).toISOString(),
    noticeHours: Math.round(input.noticeMinutes / 60),
  };
}

/** The sentence under the opt-in: amount, first renewal date, the notice, cancel any time. */
export function autoRenewTerms(offer: AutoRenewOffer): string {
  return `${formatRupees(offer.amountPaise)} is charged on ${formatLongDate(offer.firstRenewalDate)} and every month after, through PayU (UPI AutoPay or your card). You get a notice ${offer.noticeHours} hours before each debit, and you can cancel any time from your dashboard.`;
}

/**
 * Why a checkout may not turn automatic renewal on, or null when it may. The price must be the
 * one the customer saw (the amount sent): they agree to that amount every month.
 */
export function autoRenewRefusal(input: {
  available: boolean;
  isTrial: boolean;
  pricePaise: number;
  clientAmount: unknown;
}): string | null {
  if (input.isTrial) return AUTOPAY_MESSAGES.trialNeverRenews;
  if (!input.available) return AUTOPAY_MESSAGES.unavailable;
  const sent =
    typeof input.clientAmount === 'number' && Number.isFinite(input.clientAmount)
      ? Math.round(input.clientAmount * 100)
      : typeof input.clientAmount === 'string'
        ? parseRupeeAmount(input.clientAmount)
        : null;
  return sent === input.pricePaise ? null : AUTOPAY_MESSAGES.priceChanged;
}

// ---------------------------------------------------------------------------------------
// What PayU's answers mean. Anything not read here is 'unknown': recorded, alerted, and never
// taken as success.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function isOne(value: unknown): boolean {
  return value === 1 || value === '1';
}

function isZero(value: unknown): boolean {
  return value === 0 || value === '0';
}

/** The payment method of a registration, from PayU's `mode` (verify answer or callback). */
export function mandateMethodOf(mode: unknown): MandateMethod | null {
  const m = text(mode)?.trim().toUpperCase();
  if (m === 'UPI') return 'upi';
  if (m === 'CC' || m === 'DC' || m === 'CREDITCARD' || m === 'DEBITCARD' || m === 'CARD') return 'card';
  return null;
}

export type PreDebitReading =
  | { kind: 'accepted'; invoiceId: string | null }
  | { kind: 'refused'; message: string; mandateInactive: boolean }
  | { kind: 'unknown' };

/**
 * pre_debit_SI: `{status: 1, action: "MANDATE_PRE_DEBIT", message, invoiceId}` accepted;
 * `status: 0` refused by PayU (try again later, or the mandate is not active); a bank or NPCI
 * code as `status` ("QC") refused by the bank.
 */
export function readPreDebitAnswer(body: unknown): PreDebitReading {
  if (!isRecord(body)) return { kind: 'unknown' };
  if (body.action !== undefined && body.action !== 'MANDATE_PRE_DEBIT') return { kind: 'unknown' };
  if (isOne(body.status)) return { kind: 'accepted', invoiceId: text(body.invoiceId) };
  const message = text(body.message) ?? text(body.msg);
  const bankCode = typeof body.status === 'string' && /^[A-Z0-9]{1,6}$/.test(body.status);
  if ((isZero(body.status) || bankCode) && message) {
    return { kind: 'refused', message, mandateInactive: /not active|revoked|paused|cancel/i.test(message) };
  }
  return { kind: 'unknown' };
}

export type DebitReading =
  | { kind: 'accepted'; payuStatus: string; payuId: string | null; reason: string | null }
  | { kind: 'refused'; message: string }
  | { kind: 'unknown' };

/**
 * si_transaction: `{status: 1, message, details: {<txnid>: {status: "captured"|…, payuid, field9}}}`
 * or `{status: 0, message}`. Only a hint: verify_si_payment decides what happened to the money.
 */
export function readDebitAnswer(body: unknown, txnid: string): DebitReading {
  if (!isRecord(body)) return { kind: 'unknown' };
  const entry = isRecord(body.details) ? body.details[txnid] : undefined;
  if (isOne(body.status) && isRecord(entry) && text(entry.status)) {
    return {
      kind: 'accepted',
      payuStatus: String(text(entry.status)).toLowerCase(),
      payuId: text(entry.payuid),
      reason: text(entry.field9),
    };
  }
  const message = text(body.message) ?? text(body.msg);
  if (isZero(body.status) && message) return { kind: 'refused', message };
  return { kind: 'unknown' };
}

export type MandateReading = 'active' | 'paused' | 'revoked' | 'not-found' | 'unknown';

/** upi_mandate_status / check_mandate_status: the mandate's state at PayU. */
export function readMandateStatus(body: unknown): MandateReading {
  if (!isRecord(body)) return 'unknown';
  const status = typeof body.status === 'string' ? body.status.trim().toLowerCase() : null;
  if (status === 'active') return 'active';
  if (status === 'paused' || status === 'suspended') return 'paused';
  if (
    status &&
    ['revoked', 'cancelled', 'canceled', 'deleted', 'discarded', 'expired', 'inactive'].includes(status)
  )
    return 'revoked';
  const message = text(body.message) ?? text(body.errorMessage);
  if ((isZero(body.status) || body.status === 422) && message) return 'not-found';
  return 'unknown';
}

export type RevokeReading = 'revoked' | 'already-inactive' | 'refused' | 'unknown';

/**
 * upi_mandate_revoke / mandate_revoke: `{status: 1, action: "MANDATE_REVOKE", message}` (cards and
 * net banking document `statusCode`); `status: 0` "Mandate is not active" means there is nothing
 * left to revoke; any other refusal is tried again.
 */
export function readRevokeAnswer(body: unknown): RevokeReading {
  if (!isRecord(body)) return 'unknown';
  if (body.action !== undefined && body.action !== 'MANDATE_REVOKE') return 'unknown';
  if (isOne(body.status) || isOne(body.statusCode)) return 'revoked';
  const message = text(body.message) ?? text(body.msg);
  if ((isZero(body.status) || isZero(body.statusCode)) && message) {
    return /not active|already|revoked|cancel/i.test(message) ? 'already-inactive' : 'refused';
  }
  return 'unknown';
}

// ---------------------------------------------------------------------------------------
// Customer actions

/** Whether a skipped renewal comes back when the customer resumes, and in which state. */
export function resumedState(
  renewal: { state: RenewalState; renewalAt: Instant; noticeSentAt: Instant | null },
  now: Instant,
): 'noticing' | 'noticed' | null {
  if (renewal.state !== 'skipped' || toEpochMs(now) >= toEpochMs(renewal.renewalAt)) return null;
  return renewal.noticeSentAt ? 'noticed' : 'noticing';
}

/** Whether the customer's renewal can be paid by hand now ("Pay now"). */
export function payNowOpen(renewal: { state: RenewalState } | null): boolean {
  return (
    renewal !== null &&
    (renewal.state === 'retrying' || renewal.state === 'failed' || renewal.state === 'manual')
  );
}

// ---------------------------------------------------------------------------------------
// The dashboard's view

/** `autoRenew` in the dashboard record. */
export type AutoRenewRecord = {
  status: 'active' | 'paused' | 'cancelled' | 'failed';
  /** When the next debit is due (ISO); null when none is scheduled. */
  nextDebitAt: string | null;
  /** Rupees, like selectedPrice. */
  amount: number;
  method: MandateMethod | null;
  /** The pre-debit notice for the next debit went out then (ISO), or null. */
  noticeSentAt: string | null;
  /** A debit is with the bank right now. */
  debiting: boolean;
  /** The last debit failed: PayU's reason in plain words and when it is tried again (ISO, or null). */
  lastFailure: { reason: string; retryAt: string | null } | null;
  /** The renewal can be paid by hand ("Pay now"). */
  payNow: boolean;
  /** A plain sentence when something needs saying (cancelled outside, set-up failed). */
  note: string | null;
};

export type MandateView = {
  status: MandateStatus;
  amountPaise: number;
  method: MandateMethod | null;
  nextDebitAt: Date | null;
  problem: string | null;
};

export type RenewalView = {
  state: RenewalState;
  noticeSentAt: Date | null;
  debitAt: Date;
  nextAttemptAt: Date | null;
  failureReason: string | null;
  renewalAt: Date;
};

/** What the dashboard shows of a customer's latest mandate and its latest renewal. */
export function autoRenewRecord(
  mandate: MandateView | null,
  renewal: RenewalView | null,
): AutoRenewRecord | null {
  if (!mandate || mandate.status === 'pending') return null;
  const status =
    mandate.status === 'revoked' ? 'cancelled' : mandate.status === 'failed' ? 'failed' : mandate.status;
  const live = status === 'active' || status === 'paused';
  const open = live && renewal !== null && (OPEN_RENEWAL_STATES as readonly string[]).includes(renewal.state);
  const failed =
    renewal && (renewal.state === 'retrying' || renewal.state === 'failed' || renewal.state === 'manual');
  const payNow = live && payNowOpen(renewal);
  return {
    status,
    nextDebitAt: live && status === 'active' ? (mandate.nextDebitAt?.toISOString() ?? null) : null,
    amount: mandate.amountPaise / 100,
    method: mandate.method,
    // The notice announces one debit: shown until that debit is made (a retry is not what it named).
    noticeSentAt:
      status === 'active' &&
      (renewal?.state === 'noticed' || renewal?.state === 'debiting') &&
      renewal.noticeSentAt
        ? renewal.noticeSentAt.toISOString()
        : null,
    debiting: open && renewal.state === 'debiting',
    lastFailure:
      live && failed
        ? {
            reason: plainFailureReason(renewal.failureReason),
            retryAt: renewal.state === 'retrying' ? (renewal.nextAttemptAt?.toISOString() ?? null) : null,
          }
        : null,
    payNow,
    note: mandate.problem,
  };
}

/**
 * Whether a plan's expiry reminders ("your plan expires …, renew after it expires") go out. Not
 * while AutoPay renews it: the mandate is active, follows this plan, and its renewal, if begun, is
 * still under way. That customer has nothing to renew; the pre-debit notice says what is debited
 * and when, and a debit that fails is mailed at once with "Pay now". A paused, cancelled or
 * revoked mandate, one following another plan, or a renewal that failed, was skipped or was
 * stopped leaves the plan to end: the reminders go as for anyone.
 */
/** What AutoPay holds for one plan: the customer's live mandate (active or paused) and the plan's renewal, if begun. */
export type PlanAutopay = {
  mandate: { status: MandateStatus; currentSubscriptionId: string | null } | null;
  renewal: { state: RenewalState } | null;
};

export function expiryRemindersWanted(subscriptionId: string, autopay: PlanAutopay | undefined): boolean {
  const mandate = autopay?.mandate;
  if (!mandate || mandate.status !== 'active' || mandate.currentSubscriptionId !== subscriptionId)
    return true;
  const renewal = autopay?.renewal;
  if (!renewal || renewal.state === 'renewed') return false;
  return !(OPEN_RENEWAL_STATES as readonly RenewalState[]).includes(renewal.state);
}
