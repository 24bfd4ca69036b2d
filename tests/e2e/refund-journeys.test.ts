import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DESKTOP, hasBrowser, MOBILE, screenshot, useBrowser, type Page } from '../support/browser.ts';
import { buy, logIn, paymentVerified, registeredUser } from '../support/e2eUsers.ts';
import { formatLongDate } from '../../core/domain/time.ts';
import { waitFor } from '../support/waitFor.ts';

/**
 * Refunds that read as refunds (history, dashboard, the GST credit note beside the invoice) and
 * checkouts PayU never answers (when we check again; then that no money was taken), in Chromium
 * at 360 and 1280 px.
 */
const browser = useBrowser();
const db = hasBrowser() ? new pg.Pool({ connectionString: inject('stackDatabaseUrl'), max: 2 }) : null;
afterAll(async () => {
  await db?.end();
});

const SIZES = [
  [MOBILE, 360],
  [DESKTOP, 1280],
] as const;

/**
 * The sandbox PayU answers a refund's status checks QUEUED, then SUCCESS; the checks are a
 * minute and more apart (REFUND_STATUS_POLL_SECONDS, doubling). Each follow-up job waiting is
 * made due now, until the page shows `done`.
 */
async function refundChecksNow(email: string, done: () => Promise<boolean>) {
  await waitFor(
    `the refund of ${email} to complete`,
    async () => {
      if (await done()) return true;
      await db!.query(
        `UPDATE pgboss.job SET start_after = now()
       WHERE name = 'payment-refund' AND state = 'created' AND start_after > now()
         AND data->>'refundId' IN (SELECT r.id::text FROM refunds r JOIN payments p ON p.id = r.payment_id
                                    JOIN users u ON u.id = p.user_id WHERE u.email = $1)`,
        [email],
      );
      return false;
    },
    45_000,
    500,
  );
}

async function waitForText(page: Page, text: string | RegExp, timeout = 30_000) {
  await page.getByText(text).first().waitFor({ timeout });
}

describe.skipIf(!hasBrowser())('a refunded plan', () => {
  it('history says "Refunded ₹X on <date>", the credit note stands beside the invoice, the dashboard says the plan ended', async () => {
    const user = await registeredUser('Nisha Pillai', 'credit');
    const first = await browser.newPage(MOBILE);
    await logIn(first, user.email);
    await buy(first, 'LEGEND', 30, '₹1,450.00');
    await paymentVerified(first);
    await first.goto('/history');
    const attempt = first.locator('article.attempt-success').first();
    await attempt.getByRole('button', { name: 'Cancel plan and request refund' }).click();
    await attempt.getByRole('button', { name: 'Confirm refund of ₹815.00' }).click();
    await waitForText(first, /^Refund of ₹815\.00 accepted by PayU and on its way|^Refunded ₹815\.00 on /);
    const today = formatLongDate(new Date());
    const refunded = attempt.getByText(`Refunded ₹815.00 on ${today}`);
    await refundChecksNow(user.email, () => refunded.isVisible());
    await first.close();

    for (const [viewport, size] of SIZES) {
      const page = await browser.newPage(viewport);
      await logIn(page, user.email);
      await page.goto('/history');
      const invoiceCard = page.locator('article.invoice-card').first();
      await invoiceCard.getByText('Refunded and ended').waitFor({ timeout: 20_000 });
      await invoiceCard.getByText(`Refunded ₹815.00 on ${today}`).waitFor();
      await expect(invoiceCard.getByText('Expires').count()).resolves.toBe(0);
      const noteCard = page.locator('article.credit-note-card');
      await noteCard.waitFor();
      const invoiceId = (await invoiceCard.locator('dd').first().textContent())!;
      await noteCard.getByText(invoiceId).waitFor();
      await page.locator('article.attempt-success').getByText(`Refunded ₹815.00 on ${today}`).waitFor();
      await screenshot(page, `refund-history-${size}`);

      await noteCard.getByRole('link', { name: 'View credit note' }).click();
      await page.waitForURL(/\/credit-note\?creditNoteId=/);
      const doc = page.getByRole('article', { name: /^Credit note CN\// });
      await doc.getByRole('heading', { name: 'Credit Note' }).waitFor();
      await doc.getByText(invoiceId, { exact: true }).waitFor();
      await doc.getByText('₹815.00', { exact: true }).first().waitFor();
      await screenshot(page, `refund-credit-note-${size}`);

      await page.goto('/dashboard');
      const card = page.locator('.plan-refunded');
      await card
        .getByText('Your LEGEND plan (30 hours) was refunded and has ended.')
        .waitFor({ timeout: 20_000 });
      await expect(page.getByText('You have no plan yet').count()).resolves.toBe(0);
      await screenshot(page, `refund-dashboard-${size}`);
      if (size === 1280) {
        await card.getByRole('link', { name: 'Choose a plan' }).click();
        await page.waitForURL('**/select-vm');
      }
      await page.close();
    }
  });
});

describe.skipIf(!hasBrowser())('a checkout PayU never answers', () => {
  it('history says at once that no money was taken and when we check again, and after the configured wait that it was not completed', async () => {
    const user = await registeredUser('Arjun Mehta', 'abandon');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await page.goto('/select-vm');
    const card = page.getByRole('article', { name: 'LEGEND', exact: true });
    await card.getByRole('radio', { name: '30 h' }).check();
    await card.getByRole('button', { name: /^(Choose Plan|Renew Plan|Renew .+ \d+ h)$/ }).click();
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹1,450.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    // The customer closes PayU's page without paying.
    await page.close();

    for (const [viewport, size] of SIZES) {
      const view = await browser.newPage(viewport);
      await logIn(view, user.email);
      await view.goto('/history');
      const attempt = view.locator('article.attempt-initiated').first();
      // PayU never heard back from: not completed from the start, with when we ask again.
      await attempt.getByText('Not completed yet', { exact: true }).waitFor();
      await attempt
        .getByText(
          /^Not completed yet: no money has been taken\. We (check with PayU again at \d{1,2}:\d{2} [ap]m IST|are checking with PayU now)/,
        )
        .waitFor();
      await screenshot(view, `checkout-waiting-${size}`);
      await view.close();
    }

    // Half an hour without an answer from PayU (CHECKOUT_NO_ANSWER_MINUTES, default 30).
    await db!.query(
      `UPDATE payments SET created_at = created_at - interval '31 minutes'
       WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [user.email],
    );
    for (const [viewport, size] of SIZES) {
      const view = await browser.newPage(viewport);
      await logIn(view, user.email);
      await view.goto('/history');
      const attempt = view.locator('article.attempt-card').first();
      await attempt.getByText('Not completed', { exact: true }).waitFor();
      await attempt
        .getByText(
          'Not completed — no money was taken. If your bank shows a debit, it is returned automatically within 5 days.',
        )
        .waitFor();
      await screenshot(view, `checkout-not-completed-${size}`);
      await view.close();
    }
  });
});
