import { describe, expect, it } from 'vitest';
import { AUTOPAY_RETRIES, RENEWAL_STATES, type MandateStatus, type RenewalState } from './autopay.ts';
import {
  debitDue,
  decideRenewal,
  mandateCheck,
  noticeOutcome,
  renewalToOpen,
  settledDebitOutcome,
  type RenewalStep,
} from './renewal.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOTICE_MINUTES = 2880;
/** An instant given as India time. */
const ist = (text: string) => new Date(`${text}+05:30`);

// A card plan ending 15 August at 19:40: the debit is due an hour before.
const PLAN_ENDS = ist('2026-08-15T19:40:00');
const DEBIT_AT = ist('2026-08-15T18:40:00');

describe('a renewal opens', () => {
  const open = (over: Partial<Parameters<typeof renewalToOpen>[0]>) =>
    renewalToOpen({
      mandateStatus: 'active',
      method: 'card',
      plan: { status: 'active', expiresAt: PLAN_ENDS },
      noticeMinutes: NOTICE_MINUTES,
      now: ist('2026-08-13T18:40:00'),
      ...over,
    });

  it.each([
    ['no plan to renew', { plan: null }],
    ['a plan refunded', { plan: { status: 'cancelled' as const, expiresAt: PLAN_ENDS } }],
    ['a plan that ended unrenewed', { plan: { status: 'expired' as const, expiresAt: PLAN_ENDS } }],
    ['a plan with no end', { plan: { status: 'active' as const, expiresAt: null } }],
  ])('not for %s: the mandate follows the next plan bought', (_, over) => {
    expect(open(over)).toEqual({ kind: 'nothing-to-renew' });
  });

  it('for an active mandate once its notice falls due (a little early), not before', () => {
    const noticeDue = DEBIT_AT.getTime() - NOTICE_MINUTES * MINUTE - 10 * MINUTE;
    expect(open({ now: noticeDue - 1 })).toEqual({ kind: 'not-yet' });
    expect(open({ now: noticeDue })).toEqual({
      kind: 'open',
      state: 'noticing',
      renewalAt: PLAN_ENDS,
      debitAt: DEBIT_AT,
      periodKey: '2026-08-15',
    });
  });

  it('for a paused mandate at once, recorded as skipped (no notice is owed)', () => {
    expect(open({ mandateStatus: 'paused', now: ist('2026-08-01T00:00:00') })).toMatchObject({
      kind: 'open',
      state: 'skipped',
      periodKey: '2026-08-15',
    });
  });

  it("a UPI mandate's debit moves out of peak hours", () => {
    const ends = ist('2026-08-15T12:30:00');
    expect(
      open({ method: 'upi', plan: { status: 'active', expiresAt: ends }, now: ist('2026-08-13T12:00:00') }),
    ).toMatchObject({ kind: 'open', debitAt: ist('2026-08-15T09:55:00') });
  });
});

describe('a debit is due', () => {
  const noticedAt = ist('2026-08-13T18:00:00');
  it.each<[string, RenewalState, Date | null, Date, boolean]>([
    ['noticed in time, at its date', 'noticed', noticedAt, DEBIT_AT, true],
    ['noticed in time, before its date', 'noticed', noticedAt, new Date(DEBIT_AT.getTime() - 1), false],
    // PayU accepted the notice late: the whole lead after it, never sooner.
    ['noticed late, at its date', 'noticed', ist('2026-08-14T18:40:00'), DEBIT_AT, false],
    ['noticed late, the lead after', 'noticed', ist('2026-08-14T18:40:00'), ist('2026-08-16T18:40:00'), true],
    ['noticed with no notice time', 'noticed', null, ist('2026-09-01T00:00:00'), false],
    ['retrying (its next attempt is the query’s)', 'retrying', null, DEBIT_AT, true],
    ['still noticing', 'noticing', null, ist('2026-09-01T00:00:00'), false],
    ['being debited', 'debiting', noticedAt, ist('2026-09-01T00:00:00'), false],
  ])('%s: %s', (_, state, noticeSentAt, now, due) => {
    expect(debitDue({ state, debitAt: DEBIT_AT, noticeSentAt }, NOTICE_MINUTES, now)).toBe(due);
  });

  it('in no final state', () => {
    for (const state of ['renewed', 'failed', 'skipped', 'cancelled', 'superseded', 'manual'] as const)
      expect(
        debitDue({ state, debitAt: DEBIT_AT, noticeSentAt: DEBIT_AT }, 0, ist('2027-01-01T00:00:00')),
      ).toBe(false);
  });
});

describe('what a held renewal does next', () => {
  const decide = (
    state: RenewalState,
    over: {
      mandate?: { status: MandateStatus; registered: boolean } | null;
      plan?: Parameters<typeof decideRenewal>[0]['plan'];
      now?: Date;
      noticeSentAt?: Date | null;
      problem?: string | null;
    } = {},
  ): RenewalStep =>
    decideRenewal({
      renewal: {
        state,
        renewalAt: PLAN_ENDS,
        debitAt: DEBIT_AT,
        noticeSentAt: over.noticeSentAt === undefined ? ist('2026-08-13T18:00:00') : over.noticeSentAt,
        problem: over.problem ?? null,
      },
      mandate: over.mandate === undefined ? { status: 'active', registered: true } : over.mandate,
      plan: over.plan === undefined ? { status: 'active' } : over.plan,
      noticeMinutes: NOTICE_MINUTES,
      now: over.now ?? ist('2026-08-13T18:40:00'),
    });

  describe('noticing', () => {
    it.each<[string, { status: MandateStatus; registered: boolean } | null, RenewalStep['kind'], string?]>([
      ['an active, registered mandate', { status: 'active', registered: true }, 'send-notice'],
      ['a paused mandate', { status: 'paused', registered: true }, 'move', 'skipped'],
      ['a revoked mandate', { status: 'revoked', registered: true }, 'move', 'cancelled'],
      ['a cancelled mandate', { status: 'cancelled', registered: true }, 'move', 'cancelled'],
      ['a failed mandate', { status: 'failed', registered: false }, 'move', 'cancelled'],
      ['a mandate PayU never registered', { status: 'active', registered: false }, 'move', 'cancelled'],
      ['a mandate gone', null, 'move', 'cancelled'],
    ])('%s: %s', (_, mandate, kind, to) => {
      const step = decide('noticing', { mandate });
      expect(step.kind).toBe(kind);
      if (to) expect(step).toMatchObject({ to });
    });

    it('the plan ended with no notice PayU accepted: fails without a debit, saying why', () => {
      expect(decide('noticing', { now: PLAN_ENDS })).toEqual({
        kind: 'fail-without-debit',
        reason: 'PayU did not accept the pre-debit notice',
      });
      expect(decide('noticing', { now: PLAN_ENDS, problem: 'PayU refused the notice: limit' })).toMatchObject(
        {
          kind: 'fail-without-debit',
          reason: 'PayU refused the notice: limit',
        },
      );
      expect(decide('noticing', { now: new Date(PLAN_ENDS.getTime() - 1) }).kind).toBe('send-notice');
    });

    it('a paused mandate is skipped even after the plan ended (the mandate is read first)', () => {
      expect(
        decide('noticing', { mandate: { status: 'paused', registered: true }, now: PLAN_ENDS }),
      ).toMatchObject({
        kind: 'move',
        to: 'skipped',
      });
    });
  });

  describe('noticed or retrying', () => {
    const due = ist('2026-08-15T18:40:00');
    it.each<['noticed' | 'retrying']>([['noticed'], ['retrying']])('%s: debits when due', (state) => {
      expect(decide(state, { now: due }).kind).toBe('debit');
    });

    it('a noticed debit not due yet waits (a retrying one is due when the query names it)', () => {
      expect(decide('noticed', { now: new Date(due.getTime() - 1) }).kind).toBe('wait');
      expect(decide('noticed', { now: due, noticeSentAt: null }).kind).toBe('wait');
      expect(decide('retrying', { now: new Date(due.getTime() - DAY) }).kind).toBe('debit');
    });

    it.each<['noticed' | 'retrying', Parameters<typeof decideRenewal>[0]['plan']]>([
      ['noticed', { status: 'cancelled' }],
      ['retrying', { status: 'cancelled' }],
      ['noticed', null],
    ])('%s with the plan refunded or gone meanwhile (%j): cancelled', (state, plan) => {
      expect(decide(state, { now: due, plan })).toMatchObject({ kind: 'move', to: 'cancelled' });
    });

    it('an ended plan is still renewed (a retry after the end)', () => {
      expect(decide('retrying', { now: due, plan: { status: 'expired' } }).kind).toBe('debit');
    });

    it('a mandate not registered at PayU, or gone, waits: the claim checks the mandate is active', () => {
      expect(decide('noticed', { now: due, mandate: { status: 'active', registered: false } }).kind).toBe(
        'wait',
      );
      expect(decide('retrying', { now: due, mandate: null }).kind).toBe('wait');
    });
  });

  it('every other state waits: the sweep does not hold them', () => {
    const others = RENEWAL_STATES.filter((s) => !['noticing', 'noticed', 'retrying'].includes(s));
    expect(others).toEqual(['debiting', 'renewed', 'failed', 'skipped', 'cancelled', 'superseded', 'manual']);
    for (const state of others) expect(decide(state, { now: PLAN_ENDS }).kind).toBe('wait');
  });
});

describe("PayU's word on the mandate", () => {
  it.each([
    ['active', { kind: 'go' }],
    ['unreachable', { kind: 'later', alert: false }],
    ['unknown', { kind: 'later', alert: true }],
    ['paused', { kind: 'paused' }],
    ['revoked', { kind: 'revoked' }],
    ['not-found', { kind: 'revoked' }],
  ] as const)('%s: %j', (reading, answer) => {
    expect(mandateCheck(reading)).toEqual(answer);
  });
});

describe("PayU's answer to the notice", () => {
  it('accepted', () => {
    expect(noticeOutcome({ kind: 'accepted', invoiceId: 'inv1' }, 0)).toEqual({ kind: 'accepted' });
  });

  it.each([
    [0, false],
    [2, false],
    [3, true],
    [5, true],
  ])('refused after %i earlier notices: tried again, an operator told: %s', (attempts, alert) => {
    expect(
      noticeOutcome({ kind: 'refused', message: 'limit exceeded', mandateInactive: false }, attempts),
    ).toEqual({ kind: 'not-accepted', problem: 'PayU refused the notice: limit exceeded', alert });
  });

  it('unreadable: tried again, an operator told at once', () => {
    expect(noticeOutcome({ kind: 'unknown' }, 0)).toEqual({
      kind: 'not-accepted',
      problem: 'PayU answered the notice unreadably',
      alert: true,
    });
  });
});

describe('a settled debit that did not renew', () => {
  const failedAt = ist('2026-08-15T18:45:00');
  const settle = (over: Partial<Parameters<typeof settledDebitOutcome>[0]>) =>
    settledDebitOutcome({
      payment: { status: 'failure', problem: null, failureReason: 'insufficient funds' },
      mandate: { status: 'active', method: 'card' },
      attemptsDone: 1,
      keptUntil: PLAN_ENDS.getTime() + 7 * DAY,
      now: failedAt,
      ...over,
    });

  it('paid yet refused by the activation: the attempt fails with its problem (the payment refunds itself)', () => {
    expect(settle({ payment: { status: 'success', problem: null, failureReason: null } })).toEqual({
      kind: 'paid-not-activated',
      problem: 'paid but not activated',
    });
    expect(
      settle({ payment: { status: 'success', problem: 'another plan took over', failureReason: null } }),
    ).toEqual({ kind: 'paid-not-activated', problem: 'another plan took over' });
  });

  it('failed with tries left while the machine is kept: tried again a day later', () => {
    expect(settle({})).toEqual({
      kind: 'retry',
      at: ist('2026-08-16T18:45:00'),
      reason: 'insufficient funds',
    });
  });

  it.each<[string, Partial<Parameters<typeof settledDebitOutcome>[0]>]>([
    ['no try left', { attemptsDone: 1 + AUTOPAY_RETRIES }],
    ['the mandate paused', { mandate: { status: 'paused', method: 'card' } }],
    ['the mandate revoked', { mandate: { status: 'revoked', method: 'card' } }],
    ['the machine not kept so long', { keptUntil: failedAt.getTime() + HOUR }],
    ['no end known', { keptUntil: null }],
  ])('fails with %s', (_, over) => {
    expect(settle(over)).toEqual({ kind: 'fail', reason: 'insufficient funds' });
  });

  it("the reason: the bank's, else 'no answer from the bank' for one abandoned, else none", () => {
    expect(settle({ payment: { status: 'abandoned', problem: null, failureReason: null } })).toMatchObject({
      reason: 'no answer from the bank',
    });
    expect(
      settle({ payment: { status: 'abandoned', problem: null, failureReason: 'timed out' } }),
    ).toMatchObject({
      reason: 'timed out',
    });
    expect(settle({ payment: { status: 'failure', problem: null, failureReason: null } })).toMatchObject({
      kind: 'retry',
      reason: null,
    });
  });
});
