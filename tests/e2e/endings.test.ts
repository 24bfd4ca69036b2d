import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
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
import {
  logIn,
  mailsTo,
  paymentVerified,
  registeredUser,
  runningLegendMachine,
  waitForMail,
} from '../support/e2eUsers.ts';
import { stackDatabase } from '../support/stackDb.ts';
import { waitFor } from '../support/waitFor.ts';
import { formatMomentInZone } from '../../core/domain/time.ts';

/**
 * How plans end and money comes back, in the browser on the real stack, at 360 and 1280 px: an
 * AutoPay purchase, its debit, the debit refunded with its credit note; a refund PayU refuses
 * (mailed, shown as refused, not offered again until an operator has looked); the plan's last
 * days and its end on the dashboard; every AutoPay change confirmed by mail. A month cannot pass
 * in a test, so dates are moved in the stack's database and the sweeps run at once with the
 * operators' `npm run jobs -- run <sweep>`.
 */

const run = promisify(execFile);
const browser = useBrowser();
const db = stackDatabase();
const IST = 'Asia/Kolkata';

async function sandboxPayU(body: Record<string, unknown>) {
  const response = await fetch(`${baseUrl()}/sandbox/payu/_control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

const panel = (page: Page) => page.getByRole('region', { name: 'Automatic renewal' });
const banner = (page: Page) => page.locator('section.plan-end');
const userId = `(SELECT id FROM users WHERE email = $1)`;

/** /select-vm → LEGEND 45 h → /payment with "Renew automatically every month" ticked → PayU by UPI AutoPay. */
async function buyWithAutoPay(page: Page) {
  await page.goto('/select-vm');
  const card = page.getByRole('article', { name: 'LEGEND', exact: true });
  await card.getByRole('radio', { name: '45 h' }).check();
  await card.getByRole('button', { name: /^(Choose Plan|Renew Plan|Renew .+ \d+ h)$/ }).click();
  await page.waitForURL('**/payment');
  await page.getByRole('checkbox', { name: 'Renew automatically every month' }).check();
  await page.getByRole('button', { name: 'Pay ₹1,830.00' }).click();
  await page.waitForURL('**/sandbox/payu/_payment');
  await page.getByRole('button', { name: 'Pay ₹1,830.00 with UPI AutoPay (success)' }).click();
  await page.waitForURL(/\/payment-success\?txnid=/);
  await paymentVerified(page);
  await page.goto('/dashboard');
  await panel(page).getByText('On: your plan renews itself every month').waitFor({ timeout: 20_000 });
}

/** The plan ends in `hours` (its renewal's notice falls due for an AutoPay customer). */
async function planEndsIn(email: string, hours: number) {
  await db.query(
    `UPDATE subscriptions SET expires_at = now() + make_interval(secs => $2)
     WHERE user_id = ${userId} AND status = 'active'`,
    [email, hours * 3600],
  );
}

/** The renewal's notice, then its debit (48 h later, moved), swept at once; answers the debit's txnid. */
async function debitRenewal(email: string): Promise<string> {
  await planEndsIn(email, 24);
  await db.query(`UPDATE autopay_mandates SET next_debit_at = now() WHERE user_id = ${userId}`, [email]);
  const noticed = await db.untilSwept('autopay-renewal', 'the notice', () =>
    db.one<{ id: string }>(
      `SELECT r.id FROM autopay_renewals r WHERE r.user_id = ${userId} AND r.state = 'noticed'`,
      [email],
    ),
  );
  await db.query(
    `UPDATE autopay_renewals SET notice_sent_at = now() - interval '49 hours', debit_at = now() - interval '1 minute'
     WHERE id = $1`,
    [noticed.id],
  );
  const renewed = await db.untilSwept('autopay-renewal', 'the renewal', () =>
    db.one<{ txnid: string }>(
      `SELECT p.txnid FROM autopay_renewals r JOIN payments p ON p.id = r.payment_id
       WHERE r.id = $1 AND r.state = 'renewed'`,
      [noticed.id],
    ),
  );
  return renewed.txnid;
}

/** One part of the page alone at 360 px, to read it closely (the full-page shots are long). */
async function partAt360(page: Page, part: ReturnType<Page['locator']>, name: string) {
  await page.setViewportSize(MOBILE);
  await page.waitForFunction((width) => window.innerWidth === width, MOBILE.width);
  await part.screenshot({ path: `screenshots/${name}-part-360.png` });
  await page.setViewportSize(DESKTOP);
}

/** The history's card of one payment attempt. */
const attemptCard = (page: Page, txnid: string) => page.getByRole('article', { name: `Payment ${txnid}` });

describe.skipIf(!hasBrowser())('how plans end and money comes back', () => {
  it('AutoPay purchase → the last days with AutoPay on → debit → refund → credit note, at 360 and 1280 px', async () => {
    const user = await registeredUser('Lakshmi Rao', 'endings-autopay');
    const page = await browser.newPage(DESKTOP, { timezoneId: IST });
    await logIn(page, user.email);
    await buyWithAutoPay(page);
    const setUp = await waitForMail(user.email, 'Automatic renewal is on for your LEGEND plan');
    expect(setUp.text).toContain('through UPI AutoPay');

    // A day before the end: the banner says AutoPay renews it, nothing stops. (The debit is an hour
    // before the end, as the mandate's schedule puts it.)
    await planEndsIn(user.email, 24);
    await db.query(
      `UPDATE autopay_mandates SET next_debit_at = now() + interval '23 hours' WHERE user_id = ${userId}`,
      [user.email],
    );
    await page.reload();
    await banner(page).getByText('AutoPay renews it').waitFor();
    await screenshotsAtBothWidths(page, 'endings-banner-autopay');
    await partAt360(page, banner(page), 'endings-banner-autopay');

    const txnid = await debitRenewal(user.email);
    const receipt = await waitForMail(user.email, 'AutoPay debit of ₹1,830.00 done');
    expect(receipt.subject).toContain('plan renewed');

    // History marks the debit; the refund is offered as for a checkout: day 1, 70 % less ₹200.
    await page.goto('/history');
    const card = attemptCard(page, txnid);
    await card.getByText('AutoPay debit', { exact: true }).waitFor();
    await screenshotsAtBothWidths(page, 'endings-history-autopay-debit');
    await card.getByRole('button', { name: 'Cancel plan and request refund' }).click();
    await card.getByText(/Today is day 1 of your plan: the policy refunds 70%/).waitFor();
    await card.getByRole('button', { name: 'Confirm refund of ₹1,081.00' }).click();
    await card
      .getByText(/^(Refund of ₹1,081\.00 accepted by PayU and on its way|Refunded ₹1,081\.00 on )/)
      .waitFor({ timeout: 30_000 });
    await card.getByText('You asked for it.').waitFor();
    await expect(card.getByText('(accepted by PayU)').count()).resolves.toBe(0);

    // The refund completes at its first status check, made due now rather than a minute away.
    const done = await waitFor(
      'the refund to complete',
      async () => {
        const mail = (await mailsTo(user.email)).find((m) => m.subject === `Refund completed (${txnid})`);
        if (mail) return mail;
        await db.query(
          `UPDATE pgboss.job SET start_after = now()
           WHERE name = 'payment-refund' AND state = 'created' AND start_after > now()
             AND data->>'refundId' IN (SELECT r.id::text FROM refunds r JOIN payments p ON p.id = r.payment_id
                                        WHERE p.txnid = $1)`,
          [txnid],
        );
        return undefined;
      },
      45_000,
      500,
    );
    const note = /GST credit note (CN\/\d{2}-\d{2}\/\d{6})/.exec(done.text)?.[1];
    expect(note).toBeDefined();
    await page.reload();
    await page.getByRole('article', { name: `Credit note ${note}` }).waitFor();
    await attemptCard(page, txnid)
      .getByText(/^Refunded ₹1,081\.00 on /)
      .waitFor();
    await screenshotsAtBothWidths(page, 'endings-history-debit-refunded');
    // The refunded plan's AutoPay stopped with it, and the customer was told.
    await waitForMail(user.email, 'Automatic renewal of your plan has stopped');
  });

  it('a refund PayU refuses: mailed with the reason, shown as refused, not offered again until an operator has looked', async () => {
    const user = await registeredUser('Harish Menon', 'endings-refused');
    const page = await browser.newPage(MOBILE);
    await runningLegendMachine(page, user.email);
    const { txnid } = (await db.one<{ txnid: string }>(
      `SELECT txnid FROM payments WHERE user_id = ${userId} AND status = 'success'`,
      [user.email],
    ))!;
    await sandboxPayU({ action: 'refuse-refund', txnid, errorCode: 232 });

    await page.goto('/history');
    const card = attemptCard(page, txnid);
    await card.getByRole('button', { name: 'Cancel plan and request refund' }).click();
    await card.getByRole('button', { name: 'Confirm refund of ₹815.00' }).click();
    await card
      .getByText('Refund of ₹815.00 refused: your bank does not accept refunds of this kind of payment.')
      .waitFor({ timeout: 30_000 });
    await card
      .getByText('Your plan keeps running. Our team is looking into it and will write to you.')
      .waitFor();
    await expect(card.getByRole('button', { name: 'Cancel plan and request refund' }).count()).resolves.toBe(
      0,
    );
    await screenshotsAtBothWidths(page, 'endings-refund-refused');

    const mail = await waitForMail(user.email, `Refund refused by PayU (${txnid})`);
    expect(mail.text).toContain('PayU refused your refund of ₹815.00: your bank does not accept refunds');
    expect(mail.text).toContain('You do not need to ask again.');
    // Still not offered after a reload: the refusal waits for an operator.
    await page.reload();
    await attemptCard(page, txnid)
      .getByText(/refused: your bank/)
      .waitFor();
    await expect(
      attemptCard(page, txnid).getByRole('button', { name: 'Cancel plan and request refund' }).count(),
    ).resolves.toBe(0);

    // The operator looks: `npm run alerts` lists it, `resolve` marks it handled.
    const databaseUrl = inject('stackDatabaseUrl');
    const env = { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'test' };
    const listed = await run(process.execPath, ['scripts/alerts.ts'], { env });
    expect(listed.stdout).toContain('refund-failed');
    expect(listed.stdout).toContain(`of ${txnid}`);
    const alert = (await db.one<{ id: string }>(
      `SELECT id FROM operator_alerts WHERE kind = 'refund-failed' AND details->>'txnid' = $1 AND resolved_at IS NULL`,
      [txnid],
    ))!;
    await run(process.execPath, ['scripts/alerts.ts', 'resolve', alert.id], { env });
    await page.reload();
    const reviewed = attemptCard(page, txnid);
    await reviewed.getByText('Our team has looked into it; you can ask for a refund again.').waitFor();
    await reviewed.getByRole('button', { name: 'Cancel plan and request refund' }).waitFor();
    await screenshot(page, 'endings-refund-refused-reviewed-360');
  });

  it("the last 72 hours and the plan's end: the banner, the lesser remaining time, START refused, the renewal offered first", async () => {
    const user = await registeredUser('Tanvi Kulkarni', 'endings-banner');
    const page = await browser.newPage(DESKTOP, { timezoneId: IST });
    await logIn(page, user.email);
    await page.goto('/select-vm');
    const card = page.getByRole('article', { name: 'LEGEND', exact: true });
    await card.getByRole('radio', { name: '45 h' }).check();
    await card.getByRole('button', { name: /^(Choose Plan|Renew Plan)$/ }).click();
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹1,830.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    await page.getByRole('button', { name: 'Pay ₹1,830.00 (success)' }).click();
    await paymentVerified(page);
    await page.goto('/dashboard');
    await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    // A month away: no banner.
    await expect(banner(page).count()).resolves.toBe(0);

    // 20 hours before the end: the exact end in the customer's zone, what happens, what to do.
    await planEndsIn(user.email, 20);
    const { expires_at } = (await db.one<{ expires_at: Date }>(
      `SELECT expires_at FROM subscriptions WHERE user_id = ${userId} AND status = 'active'`,
      [user.email],
    ))!;
    await page.reload();
    const ending = banner(page);
    await ending
      .getByRole('heading', { name: `Your LEGEND plan ends on ${formatMomentInZone(expires_at, IST)}` })
      .waitFor();
    await ending.getByText('Your PC stops then.').waitFor();
    await ending.getByText(/^Its files are kept for 7 days, until /).waitFor();
    await ending.getByText('Unused hours lapse: they do not carry over to a new plan.').waitFor();
    await ending.getByText('To keep going, renew after it ends').waitFor();
    // 45 hours of plan, 20 hours of time: the time to the end is what is left, and says so.
    await page
      .locator('[data-field="time-remaining-label"]', {
        hasText: 'until your plan ends, before your hours run out',
      })
      .waitFor();
    await expect(page.locator('[data-field="time-remaining"]').innerText()).resolves.toMatch(/^19h 5\dm/);
    await screenshotsAtBothWidths(page, 'endings-banner-72h');
    await partAt360(page, banner(page), 'endings-banner-72h');
    await partAt360(page, page.locator('section.vm-card'), 'endings-remaining-72h');

    // The end moves (bought more time): the banner follows the record.
    await planEndsIn(user.email, 24 * 20);
    await page.reload();
    await page
      .locator('[data-field="time-remaining-label"]', { hasText: 'hours left on your plan' })
      .waitFor();
    await expect(banner(page).count()).resolves.toBe(0);

    // The end: the sweep stops the PC; START is refused with the reason, hours read "plan ended".
    await db.query(
      `UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE user_id = ${userId} AND status = 'active'`,
      [user.email],
    );
    await db.untilSwept('plan-expiry', 'the machine to stop', () =>
      db.one<{ id: string }>(`SELECT id FROM vms WHERE user_id = ${userId} AND state = 'stopped'`, [
        user.email,
      ]),
    );
    await page.reload();
    const ended = banner(page);
    await ended.getByRole('heading', { name: 'Your LEGEND plan has ended' }).waitFor();
    await ended.getByText(/Your PC is stopped and cannot be started until you renew/).waitFor();
    const start = page.getByRole('button', { name: 'START VM' });
    await start.waitFor();
    await expect(start.isDisabled()).resolves.toBe(true);
    await page
      .locator('#start-blocked')
      .getByText('Your plan has expired. Renew your plan to start your VM again.')
      .waitFor();
    await expect(page.locator('[data-field="time-remaining"]').innerText()).resolves.toBe('Plan ended');
    await screenshotsAtBothWidths(page, 'endings-plan-ended');
    await partAt360(page, banner(page), 'endings-plan-ended');
    await partAt360(page, page.locator('section.vm-card'), 'endings-start-refused');

    // The plans page offers the plan the customer had, first.
    await ended.getByRole('link', { name: 'Renew LEGEND 45 h' }).click();
    await page.waitForURL('**/select-vm');
    const first = page.locator('.pricing-grid > li').first().getByRole('article');
    await first.getByRole('button', { name: 'Renew LEGEND 45 h' }).waitFor();
    await expect(first.getByRole('heading', { level: 2 }).innerText()).resolves.toBe('LEGEND');
    await expect(page.getByRole('button', { name: 'Renew Plan', exact: true }).count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'endings-renew-offer');
  });

  it('confirms every AutoPay change by mail: set up, paused with the stop date, resumed, cancelled with the last day, revoked from the UPI app', async () => {
    const user = await registeredUser('Gaurav Joshi', 'endings-mails');
    const page = await browser.newPage(MOBILE, { timezoneId: IST });
    await logIn(page, user.email);
    await buyWithAutoPay(page);
    await waitForMail(user.email, 'Automatic renewal is on for your LEGEND plan');
    const { expires_at } = (await db.one<{ expires_at: Date }>(
      `SELECT expires_at FROM subscriptions WHERE user_id = ${userId} AND status = 'active'`,
      [user.email],
    ))!;

    const card = panel(page);
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByText('Paused: the next renewal is skipped').waitFor();
    // The paused card says when the PC will stop.
    await card
      .getByText(/^Your PC stops on .+, when your plan ends, unless you resume before then\.$/)
      .waitFor();
    await screenshotsAtBothWidths(page, 'endings-autopay-paused');
    await partAt360(page, card, 'endings-autopay-paused');
    await page.setViewportSize(MOBILE);
    const paused = await waitForMail(user.email, 'Automatic renewal paused');
    expect(paused.text).toContain('will stop on');
    expect(paused.subject).toMatch(/your PC stops on \d{1,2} \w+ \d{4}$/);
    expect(paused.text).toContain('unused hours lapse');

    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByText('On: your plan renews itself every month').waitFor();
    await waitForMail(user.email, 'Automatic renewal resumed for your LEGEND plan');

    await card.getByRole('button', { name: 'Cancel automatic renewal' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel automatic renewal?' })
      .getByRole('button', { name: 'Yes, cancel it' })
      .click();
    await card.getByText('Cancelled: your plan will not renew itself').waitFor();
    const cancelled = await waitForMail(user.email, 'Automatic renewal cancelled');
    expect(cancelled.subject).toContain("your plan's last day is");
    expect(cancelled.text).toContain(`Your plan runs until`);
    expect(cancelled.text).toContain(String(new Date(expires_at).getUTCFullYear()));

    // Another customer revokes the mandate from their UPI app: found before the notice, mailed.
    const other = await registeredUser('Nisha Pillai', 'endings-revoked');
    const second = await browser.newPage(DESKTOP, { timezoneId: IST });
    await logIn(second, other.email);
    await buyWithAutoPay(second);
    const { authpayuid } = (await db.one<{ authpayuid: string }>(
      `SELECT authpayuid FROM autopay_mandates WHERE user_id = ${userId}`,
      [other.email],
    ))!;
    await sandboxPayU({ action: 'si-set-mandate', authpayuid, status: 'revoked' });
    await planEndsIn(other.email, 24);
    await db.query(`UPDATE autopay_mandates SET next_debit_at = now() WHERE user_id = ${userId}`, [
      other.email,
    ]);
    await db.untilSwept('autopay-renewal', 'the revocation to be seen', () =>
      db.one<{ id: string }>(
        `SELECT id FROM autopay_mandates WHERE user_id = ${userId} AND status = 'revoked'`,
        [other.email],
      ),
    );
    const revoked = await waitForMail(other.email, 'Automatic renewal of your plan has stopped');
    expect(revoked.text).toContain('Automatic renewal was cancelled from your UPI app or bank.');
    await second.reload();
    await panel(second).getByText('Automatic renewal was cancelled from your UPI app or bank.').waitFor();
    await screenshotsAtBothWidths(second, 'endings-autopay-revoked');

    // Every mail, once each (the debit's failure and success mails are in the AutoPay and first tests).
    const subjects = (await mailsTo(user.email)).map((m) => m.subject);
    for (const start of [
      'Automatic renewal is on',
      'Automatic renewal paused',
      'Automatic renewal resumed',
      'Automatic renewal cancelled',
    ])
      expect(subjects.filter((s) => s.startsWith(start))).toHaveLength(1);
  });
});
