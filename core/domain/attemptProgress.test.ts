import { describe, expect, it } from 'vitest';
import { attemptProgress } from './payments.ts';

const settings = { noAnswerMinutes: 30, failedDebitReturnDays: 5 };
const created = new Date('2026-03-10T08:00:00Z'); // 1:30 pm IST
const at = (minutes: number) => new Date(created.getTime() + minutes * 60_000);

describe('how an unanswered checkout reads', () => {
  it('while waiting, says when we ask PayU again (India time)', () => {
    const view = attemptProgress(
      { status: 'pending', createdAt: created, nextCheckAt: at(15) },
      at(10),
      settings,
    );
    expect(view).toEqual({
      label: 'Waiting for your bank',
      detail: 'We check with PayU again at 1:45 pm IST.',
      nextCheckAt: at(15),
    });
    expect(
      attemptProgress({ status: 'initiated', createdAt: created, nextCheckAt: at(2) }, at(3), settings)
        .detail,
    ).toBe('We are checking with PayU now.');
  });

  it('a checkout PayU never answered reads "Not completed yet: no money has been taken" from the start', () => {
    const view = attemptProgress(
      { status: 'initiated', createdAt: created, nextCheckAt: at(2), heardFromPayU: false },
      at(1),
      settings,
    );
    expect(view.label).toBe('Not completed yet');
    expect(view.detail).toBe(
      'Not completed yet: no money has been taken. We check with PayU again at 1:32 pm IST. If you did pay, your plan starts by itself.',
    );
    // PayU posted something (the bank is deciding): that one is waiting for the bank, not abandoned.
    expect(
      attemptProgress(
        { status: 'initiated', createdAt: created, nextCheckAt: at(2), heardFromPayU: true },
        at(1),
        settings,
      ).label,
    ).toBe('Waiting for PayU');
  });

  it('names the day when the next check is not today', () => {
    const late = new Date('2026-03-10T18:00:00Z'); // 11:30 pm IST
    const view = attemptProgress(
      { status: 'pending', createdAt: late, nextCheckAt: new Date(late.getTime() + 60 * 60_000) },
      new Date(late.getTime() + 20 * 60_000),
      settings,
    );
    expect(view.detail).toBe('We check with PayU again at 12:30 am IST on 11 March 2026.');
  });

  it('after the configured wait, or once abandoned: not completed, no money taken, N days for a debit', () => {
    const sentence =
      'Not completed — no money was taken. If your bank shows a debit, it is returned automatically within 5 days.';
    for (const view of [
      attemptProgress({ status: 'pending', createdAt: created, nextCheckAt: at(60) }, at(30), settings),
      attemptProgress({ status: 'initiated', createdAt: created, nextCheckAt: at(60) }, at(45), settings),
      attemptProgress({ status: 'abandoned', createdAt: created, nextCheckAt: null }, at(5000), settings),
    ]) {
      expect(view).toEqual({ label: 'Not completed', detail: sentence, nextCheckAt: null });
    }
    expect(
      attemptProgress({ status: 'pending', createdAt: created, nextCheckAt: at(60) }, at(29), {
        noAnswerMinutes: 10,
        failedDebitReturnDays: 7,
      }).detail,
    ).toContain('within 7 days');
  });

  it('says nothing more under a paid or failed attempt', () => {
    for (const status of ['success', 'failure'] as const) {
      expect(
        attemptProgress({ status, createdAt: created, nextCheckAt: null }, at(90), settings).detail,
      ).toBeNull();
    }
  });
});
