import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshot,
  screenshotsAtBothWidths,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { logIn, paymentVerified, registeredUser, waitForMail } from '../support/e2eUsers.ts';
import { stackDatabase } from '../support/stackDb.ts';

/**
 * AutoPay in the browser, on the real stack (`npm start`: worker, sandbox PayU playing standing
 * instructions): the opt-in on Confirm & Pay, PayU's page with the standing instruction, and the
 * dashboard's automatic-renewal card with Pause, Resume and Cancel at 360 and 1280 px. A month
 * cannot pass in a test, so for the notice and a failed debit the renewal's dates are moved in
 * the stack's database and the renewal sweep is run at once (`npm run jobs -- run autopay-renewal`,
 * the operators' command).
 */

const browser = useBrowser();
const db = stackDatabase();
/** Until `check` answers something, running the renewal sweep now and then. */
const untilSwept = <T>(what: string, check: () => Promise<T | undefined>) =>
  db.untilSwept('autopay-renewal', what, check);
const one = db.one;

const panel = (page: Page) => page.getByRole('region', { name: 'Automatic renewal' });

/** The card alone at 360 px, to read it closely (the full-page shots are long). */
async function cardAt360(page: Page, name: string) {
  await page.setViewportSize(MOBILE);
  await page.waitForFunction((width) => window.innerWidth === width, MOBILE.width);
  await panel(page).screenshot({ path: `screenshots/${name}-card-360.png` });
  await page.setViewportSize(DESKTOP);
}

/** /select-vm → LEGEND 45 h → /payment with "Renew automatically every month" ticked → PayU by UPI AutoPay. */
async function buyWithAutoPay(page: Page, shots?: string) {
  await page.goto('/select-vm');
  const card = page.getByRole('article', { name: 'LEGEND', exact: true });
  await card.getByRole('radio', { name: '45 h' }).check();
  await card.getByRole('button', { name: /^(Choose Plan|Renew Plan|Renew .+ \d+ h)$/ }).click();
  await page.waitForURL('**/payment');
  const optIn = page.getByRole('checkbox', { name: 'Renew automatically every month' });
  await optIn.waitFor();
  // Off unless the customer ticks it; the terms say amount, first renewal, notice, cancel.
  await expect(optIn.isChecked()).resolves.toBe(false);
  const terms = await page.locator('#autopay-terms').innerText();
  expect(terms).toMatch(/^₹1,830\.00 is charged on \d{1,2} \w+ \d{4} and every month after/);
  expect(terms).toContain('a notice 48 hours before each debit');
  expect(terms).toContain('cancel any time');
  await optIn.check();
  if (shots) await screenshotsAtBothWidths(page, shots);
  await page.getByRole('button', { name: 'Pay ₹1,830.00' }).click();
  await page.waitForURL('**/sandbox/payu/_payment');
  await page.getByText('Standing instruction').waitFor();
  await expect(page.locator('dd', { hasText: '₹1830.00 monthly' }).count()).resolves.toBe(1);
  if (shots) await screenshot(page, `${shots}-payu-1280`);
  await page.getByRole('button', { name: 'Pay ₹1,830.00 with UPI AutoPay (success)' }).click();
  await page.waitForURL(/\/payment-success\?txnid=/);
  await paymentVerified(page);
  await page.goto('/dashboard');
  await panel(page).getByText('On: your plan renews itself every month').waitFor({ timeout: 20_000 });
}

describe.skipIf(!hasBrowser())('AutoPay in the browser', () => {
  it('opts in at checkout; the dashboard card pauses, resumes and cancels, at 360 and 1280 px', async () => {
    const user = await registeredUser('Divya Menon', 'autopay');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await buyWithAutoPay(page, 'autopay-checkout');

    const card = panel(page);
    await card.getByText('UPI AutoPay').waitFor();
    await card.getByText('₹1,830.00 a month').waitFor();
    await card.getByText('Next debit').waitFor();
    await screenshotsAtBothWidths(page, 'autopay-dashboard-on');
    await cardAt360(page, 'autopay-on');

    // Pause and resume, at the narrow width.
    await page.setViewportSize(MOBILE);
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByText('Paused: the next renewal is skipped').waitFor();
    await expect(card.getByText('Next debit').count()).resolves.toBe(0);
    await screenshot(page, 'autopay-dashboard-paused-360');
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByText('On: your plan renews itself every month').waitFor();

    // Cancel asks first, in the page's own dialog.
    await page.setViewportSize(DESKTOP);
    await card.getByRole('button', { name: 'Cancel automatic renewal' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel automatic renewal?' });
    await dialog.getByText('the mandate is revoked at PayU').waitFor();
    await screenshot(page, 'autopay-cancel-dialog-1280');
    await dialog.getByRole('button', { name: 'Yes, cancel it' }).click();
    await card.getByText('Cancelled: your plan will not renew itself').waitFor();
    await expect(card.getByRole('button', { name: 'Pause' }).count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'autopay-dashboard-cancelled');
    await cardAt360(page, 'autopay-cancelled');
    // Revoked at PayU by the worker.
    await expect
      .poll(
        async () =>
          (
            await one<{ revoked_at: Date | null }>(
              `SELECT m.revoked_at FROM autopay_mandates m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
              [user.email],
            )
          )?.revoked_at ?? null,
        { timeout: 20_000 },
      )
      .not.toBeNull();
  });

  it('shows the notice, then a failed debit with its retry; Pay now renews through the checkout', async () => {
    const user = await registeredUser('Rohan Pillai', 'autopay-fail');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await buyWithAutoPay(page);

    // The plan ends in a day: its notice is due now.
    await db.query(
      `UPDATE subscriptions SET expires_at = now() + interval '24 hours'
       WHERE user_id = (SELECT id FROM users WHERE email = $1) AND status = 'active'`,
      [user.email],
    );
    await db.query(
      `UPDATE autopay_mandates SET next_debit_at = now() WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [user.email],
    );
    const noticed = await untilSwept('the notice', () =>
      one<{ id: string; authpayuid: string }>(
        `SELECT r.id, m.authpayuid FROM autopay_renewals r JOIN autopay_mandates m ON m.id = r.mandate_id
         JOIN users u ON u.id = r.user_id WHERE u.email = $1 AND r.state = 'noticed'`,
        [user.email],
      ),
    );
    await waitForMail(user.email, 'will debit ₹1,830.00');
    await page.reload();
    await panel(page)
      .getByText(/^Notice sent on \d{1,2} \w+ \d{4}: ₹1,830\.00 will be debited on/)
      .waitFor();
    await screenshotsAtBothWidths(page, 'autopay-dashboard-notice');
    await cardAt360(page, 'autopay-notice');

    // 48 hours on, the bank refuses the debit: the customer is told, a retry is set.
    await db.query(
      `UPDATE autopay_renewals SET notice_sent_at = now() - interval '49 hours', debit_at = now() - interval '1 minute'
       WHERE id = $1`,
      [noticed.id],
    );
    const control = await fetch(`${baseUrl()}/sandbox/payu/_control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        action: 'si-fail-next-debit',
        authpayuid: noticed.authpayuid,
        reason: 'Insufficient funds',
      }),
    });
    expect(control.status).toBe(200);
    await untilSwept('the failed debit to be retried', () =>
      one<{ id: string }>(`SELECT id FROM autopay_renewals WHERE id = $1 AND state = 'retrying'`, [
        noticed.id,
      ]),
    );
    await waitForMail(user.email, 'We could not renew your LEGEND plan');
    await page.reload();
    const card = panel(page);
    await card
      .getByText(
        'The last renewal debit did not go through. Your bank declined the payment: not enough balance.',
      )
      .waitFor();
    await card.getByText(/^We try again on /).waitFor();
    await screenshotsAtBothWidths(page, 'autopay-dashboard-failed');
    await expect(card.getByText(/^Notice sent on/).count()).resolves.toBe(0);
    await cardAt360(page, 'autopay-failed');

    // Pay now: the same plan through the ordinary checkout, renewing the same machine.
    await card.getByRole('button', { name: 'Pay now ₹1,830.00' }).click();
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹1,830.00' }).waitFor();
    await expect(
      page.getByRole('checkbox', { name: 'Renew automatically every month' }).count(),
    ).resolves.toBe(0);
    await page.getByRole('button', { name: 'Pay ₹1,830.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    await page.getByRole('button', { name: 'Pay ₹1,830.00 (success)' }).click();
    await page.waitForURL(/\/payment-success\?txnid=/);
    await paymentVerified(page);
    await expect
      .poll(
        async () =>
          (await one<{ state: string }>(`SELECT state FROM autopay_renewals WHERE id = $1`, [noticed.id]))
            ?.state,
        { timeout: 20_000 },
      )
      .toBe('renewed');
    await page.goto('/dashboard');
    await panel(page).getByText('On: your plan renews itself every month').waitFor();
    await expect(panel(page).getByText('did not go through').count()).resolves.toBe(0);
    await screenshot(page, 'autopay-dashboard-renewed-1280');
  });
});
