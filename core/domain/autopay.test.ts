import { describe, expect, it } from 'vitest';
import {
  AUTOPAY_MESSAGES,
  AUTOPAY_RETRIES,
  autoRenewOffer,
  autoRenewRecord,
  autoRenewRefusal,
  debitAllowedAt,
  expiryRemindersWanted,
  mandateMethodOf,
  noticeDueAt,
  noticedDebitAt,
  periodKey,
  readDebitAnswer,
  readMandateStatus,
  readPreDebitAnswer,
  readRevokeAnswer,
  renewalExpiry,
  resumedState,
  retryAt,
  scheduledDebitAt,
  siDetails,
} from './autopay.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** An instant given as India time. */
const ist = (text: string) => new Date(`${text}+05:30`);

describe('when the debit goes', () => {
  it('an hour before the plan ends, on the renewal date', () => {
    expect(scheduledDebitAt(ist('2026-08-15T19:40:00'), 'card')).toEqual(ist('2026-08-15T18:40:00'));
    // Just after midnight: not the day before (the notice names the renewal's date).
    expect(scheduledDebitAt(ist('2026-08-15T00:30:00'), 'card')).toEqual(ist('2026-08-15T00:00:00'));
    expect(periodKey(ist('2026-08-15T00:30:00'))).toBe('2026-08-15');
  });

  it("moves a UPI debit out of NPCI's peak hours, earlier on the same day; a card's stays", () => {
    // 11:30 is in 10:00–13:00: the UPI debit goes at 09:55.
    expect(scheduledDebitAt(ist('2026-08-15T12:30:00'), 'upi')).toEqual(ist('2026-08-15T09:55:00'));
    expect(scheduledDebitAt(ist('2026-08-15T12:30:00'), 'card')).toEqual(ist('2026-08-15T11:30:00'));
    // 20:00 is in 17:00–21:30.
    expect(scheduledDebitAt(ist('2026-08-15T21:00:00'), 'upi')).toEqual(ist('2026-08-15T16:55:00'));
    // 21:30 is just outside.
    expect(scheduledDebitAt(ist('2026-08-15T22:30:00'), 'upi')).toEqual(ist('2026-08-15T21:30:00'));
  });

  it('the notice goes the lead before; a late notice pushes the debit, never the lead', () => {
    const debit = ist('2026-08-15T18:40:00');
    // A little early, so a sweep running late still leaves the whole lead.
    expect(noticeDueAt(debit, 2880)).toEqual(new Date(debit.getTime() - 2 * DAY - 10 * 60_000));
    expect(noticedDebitAt(debit, ist('2026-08-13T08:00:00'), 2880)).toEqual(debit);
    expect(noticedDebitAt(debit, ist('2026-08-14T08:00:00'), 2880)).toEqual(ist('2026-08-16T08:00:00'));
    // PayU accepted the notice late: the debit waits the whole lead after it.
    expect(debitAllowedAt(debit, ist('2026-08-14T00:00:00'), 2880)).toEqual(ist('2026-08-16T00:00:00'));
    expect(debitAllowedAt(debit, ist('2026-08-13T00:00:00'), 2880)).toEqual(debit);
  });

  it(`retries ${AUTOPAY_RETRIES} times a day apart, outside peak hours for UPI, while the machine is kept`, () => {
    const failed = ist('2026-08-15T18:40:00');
    const kept = ist('2026-08-22T19:40:00');
    expect(retryAt(failed, 1, 'card', kept)).toEqual(ist('2026-08-16T18:40:00'));
    // 18:40 is in the evening peak: UPI retries at 21:35.
    expect(retryAt(failed, 1, 'upi', kept)).toEqual(ist('2026-08-16T21:35:00'));
    expect(retryAt(failed, AUTOPAY_RETRIES, 'card', kept)).not.toBeNull();
    expect(retryAt(failed, AUTOPAY_RETRIES + 1, 'card', kept)).toBeNull();
    // No retry after the ended plan's machine is gone.
    expect(retryAt(failed, 1, 'card', ist('2026-08-16T10:00:00'))).toBeNull();
  });

  it('a renewal runs a month from the old end, or from payment when that is later', () => {
    expect(renewalExpiry(ist('2026-08-15T19:40:00'), ist('2026-08-15T18:41:00'))).toEqual(
      ist('2026-09-15T19:40:00'),
    );
    expect(renewalExpiry(ist('2026-08-15T19:40:00'), ist('2026-08-17T10:00:00'))).toEqual(
      ist('2026-09-17T10:00:00'),
    );
  });
});

describe('the checkout opt-in', () => {
  it("si_details: the amount monthly from the first renewal's date, five years, exact amount", () => {
    expect(siDetails('1830.00', ist('2026-08-15T19:40:00'))).toEqual({
      billingAmount: '1830.00',
      billingCurrency: 'INR',
      billingCycle: 'MONTHLY',
      billingInterval: 1,
      paymentStartDate: '2026-08-15',
      paymentEndDate: '2031-08-15',
      billingLimit: 'AFTER',
      billingRule: 'EXACT',
    });
    expect(siDetails('1830.00', ist('2028-02-29T10:00:00')).paymentEndDate).toBe('2033-02-28');
  });

  it('is offered for monthly plans when available, never for a trial', () => {
    const now = ist('2026-07-15T19:40:00');
    expect(
      autoRenewOffer({ available: true, isTrial: false, pricePaise: 183000, now, noticeMinutes: 2880 }),
    ).toEqual({
      amountPaise: 183000,
      firstRenewalDate: ist('2026-08-15T19:40:00').toISOString(),
      noticeHours: 48,
    });
    expect(
      autoRenewOffer({ available: true, isTrial: true, pricePaise: 4000, now, noticeMinutes: 2880 }),
    ).toBeNull();
    expect(
      autoRenewOffer({ available: false, isTrial: false, pricePaise: 183000, now, noticeMinutes: 2880 }),
    ).toBeNull();
  });

  it('refuses a trial, an unavailable product, and a price the customer did not see', () => {
    const ok = { available: true, isTrial: false, pricePaise: 183000 };
    expect(autoRenewRefusal({ ...ok, clientAmount: 1830 })).toBeNull();
    expect(autoRenewRefusal({ ...ok, clientAmount: '1830.00' })).toBeNull();
    expect(autoRenewRefusal({ ...ok, clientAmount: 1450 })).toBe(AUTOPAY_MESSAGES.priceChanged);
    expect(autoRenewRefusal({ ...ok, clientAmount: undefined })).toBe(AUTOPAY_MESSAGES.priceChanged);
    expect(autoRenewRefusal({ ...ok, isTrial: true, clientAmount: 1830 })).toBe(
      AUTOPAY_MESSAGES.trialNeverRenews,
    );
    expect(autoRenewRefusal({ ...ok, available: false, clientAmount: 1830 })).toBe(
      AUTOPAY_MESSAGES.unavailable,
    );
  });
});

describe("what PayU's answers mean (unknown shapes are never success)", () => {
  it('pre_debit_SI', () => {
    expect(
      readPreDebitAnswer({
        status: 1,
        action: 'MANDATE_PRE_DEBIT',
        message: 'Request Processed Successfully',
        invoiceId: 'ADDA049409',
      }),
    ).toEqual({ kind: 'accepted', invoiceId: 'ADDA049409' });
    expect(
      readPreDebitAnswer({ status: 0, action: 'MANDATE_PRE_DEBIT', message: 'Mandate is not active' }),
    ).toEqual({
      kind: 'refused',
      message: 'Mandate is not active',
      mandateInactive: true,
    });
    expect(
      readPreDebitAnswer({ status: 'QC', action: 'MANDATE_PRE_DEBIT', message: 'MANDATE HAS BEEN REVOKED' }),
    ).toEqual({ kind: 'refused', message: 'MANDATE HAS BEEN REVOKED', mandateInactive: true });
    expect(readPreDebitAnswer({ status: 1, action: 'SOMETHING_ELSE' })).toEqual({ kind: 'unknown' });
    expect(readPreDebitAnswer({ ok: true })).toEqual({ kind: 'unknown' });
    expect(readPreDebitAnswer('success')).toEqual({ kind: 'unknown' });
  });

  it('si_transaction (a hint only)', () => {
    expect(
      readDebitAnswer(
        {
          status: 1,
          message: 'Transaction Processed successfully',
          details: { T1: { transactionid: 'T1', payuid: '6611427463', status: 'captured', field9: 'ok' } },
        },
        'T1',
      ),
    ).toEqual({ kind: 'accepted', payuStatus: 'captured', payuId: '6611427463', reason: 'ok' });
    expect(readDebitAnswer({ status: 0, message: 'Duplicate Txnid' }, 'T1')).toEqual({
      kind: 'refused',
      message: 'Duplicate Txnid',
    });
    // Success for another txnid is not ours.
    expect(readDebitAnswer({ status: 1, details: { T2: { status: 'captured' } } }, 'T1')).toEqual({
      kind: 'unknown',
    });
  });

  it('mandate status and revoke', () => {
    expect(readMandateStatus({ status: 'active', action: 'MANDATE_STATUS' })).toBe('active');
    expect(readMandateStatus({ status: 'cancelled', action: 'check_mandate_status' })).toBe('revoked');
    expect(readMandateStatus({ status: 'paused' })).toBe('paused');
    expect(readMandateStatus({ status: 0, message: 'Consent is Not Mandated' })).toBe('not-found');
    expect(readMandateStatus({ status: 422, errorMessage: 'SI is not valid' })).toBe('not-found');
    expect(readMandateStatus({ status: 'weird' })).toBe('unknown');
    expect(readRevokeAnswer({ status: 1, action: 'MANDATE_REVOKE', message: 'Request Initiated' })).toBe(
      'revoked',
    );
    expect(readRevokeAnswer({ statusCode: 1, action: 'MANDATE_REVOKE', message: 'ok' })).toBe('revoked');
    expect(readRevokeAnswer({ status: 0, action: 'MANDATE_REVOKE', message: 'Mandate is not active' })).toBe(
      'already-inactive',
    );
    expect(readRevokeAnswer({ status: 0, action: 'MANDATE_REVOKE', message: 'Try later' })).toBe('refused');
    expect(readRevokeAnswer({ status: 1, action: 'MANDATE_STATUS' })).toBe('unknown');
    expect(readRevokeAnswer(null)).toBe('unknown');
  });

  it("the method from PayU's mode", () => {
    expect(mandateMethodOf('UPI')).toBe('upi');
    expect(mandateMethodOf('CC')).toBe('card');
    expect(mandateMethodOf('DC')).toBe('card');
    expect(mandateMethodOf('NB')).toBeNull();
    expect(mandateMethodOf(undefined)).toBeNull();
  });
});

describe('customer actions and the dashboard', () => {
  it('a resume brings a skipped renewal back only before the plan ends', () => {
    const renewalAt = ist('2026-08-15T19:40:00');
    expect(
      resumedState({ state: 'skipped', renewalAt, noticeSentAt: null }, ist('2026-08-14T10:00:00')),
    ).toBe('noticing');
    expect(
      resumedState(
        { state: 'skipped', renewalAt, noticeSentAt: ist('2026-08-13T10:00:00') },
        ist('2026-08-14T10:00:00'),
      ),
    ).toBe('noticed');
    expect(
      resumedState({ state: 'skipped', renewalAt, noticeSentAt: null }, ist('2026-08-16T10:00:00')),
    ).toBeNull();
    expect(
      resumedState({ state: 'failed', renewalAt, noticeSentAt: null }, ist('2026-08-14T10:00:00')),
    ).toBeNull();
  });

  const mandate = {
    status: 'active' as const,
    amountPaise: 183000,
    method: 'upi' as const,
    nextDebitAt: ist('2026-08-15T09:55:00'),
    problem: null,
  };
  const renewal = {
    state: 'noticed' as const,
    noticeSentAt: ist('2026-08-13T09:55:00'),
    debitAt: ist('2026-08-15T09:55:00'),
    nextAttemptAt: null,
    failureReason: null,
    renewalAt: ist('2026-08-15T12:30:00'),
  };

  it('shows the next debit, the notice, a failure with its retry, and cancelled', () => {
    expect(autoRenewRecord(mandate, renewal)).toMatchObject({
      status: 'active',
      nextDebitAt: ist('2026-08-15T09:55:00').toISOString(),
      amount: 1830,
      method: 'upi',
      noticeSentAt: ist('2026-08-13T09:55:00').toISOString(),
      debiting: false,
      lastFailure: null,
      payNow: false,
    });
    const retrying = {
      ...renewal,
      state: 'retrying' as const,
      failureReason: 'Insufficient funds',
      nextAttemptAt: ist('2026-08-16T09:55:00'),
    };
    expect(autoRenewRecord(mandate, retrying)).toMatchObject({
      lastFailure: {
        reason: 'Your bank declined the payment: not enough balance.',
        retryAt: ist('2026-08-16T09:55:00').toISOString(),
      },
      payNow: true,
      // The notice named the first debit, not the retry.
      noticeSentAt: null,
    });
    expect(autoRenewRecord({ ...mandate, status: 'cancelled', nextDebitAt: null }, renewal)).toMatchObject({
      status: 'cancelled',
      nextDebitAt: null,
      noticeSentAt: null,
      payNow: false,
    });
    expect(
      autoRenewRecord({ ...mandate, status: 'revoked', problem: AUTOPAY_MESSAGES.revokedOutside }, null),
    ).toMatchObject({
      status: 'cancelled',
      note: AUTOPAY_MESSAGES.revokedOutside,
    });
    expect(autoRenewRecord({ ...mandate, status: 'paused' }, renewal)).toMatchObject({
      status: 'paused',
      nextDebitAt: null,
    });
    expect(autoRenewRecord({ ...mandate, status: 'pending' }, null)).toBeNull();
    expect(autoRenewRecord(null, null)).toBeNull();
  });
});

describe('expiry reminders beside AutoPay', () => {
  const plan = 'plan-1';
  const active = { status: 'active' as const, currentSubscriptionId: plan };
  it('a plan AutoPay renews gets no "renew after it expires" reminder', () => {
    expect(expiryRemindersWanted(plan, { mandate: active, renewal: null })).toBe(false);
    for (const state of ['noticing', 'noticed', 'debiting', 'retrying', 'renewed'] as const)
      expect(expiryRemindersWanted(plan, { mandate: active, renewal: { state } })).toBe(false);
  });
  it('a plan left to end is reminded as anyone', () => {
    expect(expiryRemindersWanted(plan, undefined)).toBe(true);
    expect(expiryRemindersWanted(plan, { mandate: null, renewal: null })).toBe(true);
    expect(expiryRemindersWanted(plan, { mandate: { ...active, status: 'paused' }, renewal: null })).toBe(
      true,
    );
    // The mandate follows another plan (the customer bought a different one meanwhile).
    expect(
      expiryRemindersWanted(plan, { mandate: { ...active, currentSubscriptionId: 'plan-2' }, renewal: null }),
    ).toBe(true);
    for (const state of ['failed', 'skipped', 'cancelled', 'superseded', 'manual'] as const)
      expect(expiryRemindersWanted(plan, { mandate: active, renewal: { state } })).toBe(true);
  });
});
