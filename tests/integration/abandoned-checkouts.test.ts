import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * A checkout PayU never answers: the history says when we ask PayU again while it waits, and
 * after CHECKOUT_NO_ANSWER_MINUTES that it was not completed, no money was taken and a bank
 * debit comes back within FAILED_DEBIT_RETURN_DAYS (both configuration, set apart from the
 * defaults here to prove they are read).
 */
const stack = await startTestStack({
  env: { CHECKOUT_NO_ANSWER_MINUTES: '20', FAILED_DEBIT_RETURN_DAYS: '7' },
});
const db = stack.services.db;
const { buyer, checkout } = paymentHelpers(stack);

async function ageCheckout(txnid: string, minutes: number) {
  await db.query(sql.unsafe`
    UPDATE payments SET created_at = now() - make_interval(mins => ${minutes}),
      next_check_at = now() + interval '40 minutes'
    WHERE txnid = ${txnid}`);
}

describe('a checkout PayU does not answer', () => {
  it('says at once that no money was taken and when we check again, then after the configured wait that it was not completed', async () => {
    const { user, client } = await buyer();
    const start = await checkout(client, user.email);
    const nextCheckAt = await db.oneFirst(sql.type(z.object({ next_check_at: z.date() }))`
      SELECT next_check_at FROM payments WHERE txnid = ${start.txnid}`);

    // PayU has said nothing (the customer left its page): not completed, from the start.
    const waiting = (await client.call('/api/payments')).body.payments[0];
    expect(waiting).toMatchObject({
      txnid: start.txnid,
      status: 'initiated',
      statusLabel: 'Not completed yet',
      nextCheckAt: nextCheckAt.toISOString(),
      statusDetail: expect.stringMatching(
        /^Not completed yet: no money has been taken\. We check with PayU again at \d{1,2}:\d{2} [ap]m IST\. If you did pay, your plan starts by itself\.$/,
      ),
    });
    // Once PayU has posted about it (the bank is deciding), it is waiting, not abandoned.
    await db.query(sql.unsafe`UPDATE payments SET callback_count = 1 WHERE txnid = ${start.txnid}`);
    expect((await client.call(`/api/payments/${start.txnid}`)).body).toMatchObject({
      statusLabel: 'Waiting for PayU',
      statusDetail: expect.stringMatching(/^We check with PayU again at \d{1,2}:\d{2} [ap]m IST\.$/),
    });

    await ageCheckout(start.txnid, 21);
    const given = (await client.call(`/api/payments/${start.txnid}`)).body;
    expect(given).toMatchObject({
      status: 'initiated',
      statusLabel: 'Not completed',
      nextCheckAt: null,
      statusDetail:
        'Not completed — no money was taken. If your bank shows a debit, it is returned automatically within 7 days.',
    });
  });

  it('the refund policy page states the same number of days', async () => {
    const policy = await stack.api('/api/refund-policy');
    expect(policy.body).toMatchObject({ failedDebitReturnDays: 7, autoRefundHours: 24 });
  });
});
