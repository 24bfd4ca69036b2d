import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshot,
  screenshotsAtBothWidths,
  useBrowser,
} from '../support/browser.ts';
import { logIn, paymentVerified, registeredUser, runningLegendMachine } from '../support/e2eUsers.ts';
import { stackDatabase } from '../support/stackDb.ts';
import { HANDOVER_MESSAGES } from '../../core/domain/planHandover.ts';
import { IDLE_MESSAGES } from '../../core/domain/idle.ts';

/**
 * The smaller things of the second journey walk: the idle setting says it saved; the login
 * link reads "Forgot password?"; a plan bought during a trial shows "Upgrading…" (unused trial
 * minutes end) instead of the trial's clock and address until the machine serves the plan.
 */

const browser = useBrowser();
const db = stackDatabase();
const SIZES = [
  { viewport: MOBILE, width: 360 },
  { viewport: DESKTOP, width: 1280 },
];

describe.skipIf(!hasBrowser())('journey details', () => {
  it.each(SIZES)('the login page links "Forgot password?" at $width px', async ({ viewport, width }) => {
    const page = await browser.newPage(viewport);
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(`${baseUrl()}/forgot-password`);
    await page.goBack();
    await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
    await screenshot(page, `login-forgot-link-${width}`);
  });

  it('the idle setting says Saved when a choice is stored (1280 and 360 px)', async () => {
    const user = await registeredUser('Zoya Qureshi', 'idle');
    const page = await browser.newPage(DESKTOP);
    await runningLegendMachine(page, user.email);
    const card = page.locator('.idle-card');
    const setting = card.getByLabel('Stop after idle minutes');
    await setting.waitFor();
    await setting.selectOption('15');
    await card.getByText(IDLE_MESSAGES.settingSaved(15)).waitFor();
    await screenshotsAtBothWidths(page, 'idle-setting-saved');
    await setting.selectOption('off');
    await card.getByText(IDLE_MESSAGES.settingSaved(null)).waitFor();
    // The choice is stored, not only shown: a reload finds it.
    await page.reload();
    await expect(card.getByLabel('Stop after idle minutes').inputValue()).resolves.toBe('off');
  });

  it('a plan paid during the trial shows Upgrading…, not the trial clock and address (1280 and 360 px)', async () => {
    const user = await registeredUser('Kunal Bose', 'upgrade');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await page.goto('/trial');
    await page.getByRole('button', { name: 'Start Now' }).click();
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹40.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    await page.getByRole('button', { name: 'Pay ₹40.00 (success)' }).click();
    await paymentVerified(page);
    await page.goto('/dashboard');
    await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    const trialIp = await page.locator('[data-field="public-ip"]').innerText();

    // The plan is paid: what payment-verify writes (the trial gives way, PRO LEGEND is active),
    // here without the vm-provision job that follows, so the moment before the handover stays.
    await db.query(
      `WITH u AS (SELECT id FROM users WHERE email = $1),
       trial AS (
         UPDATE subscriptions SET status = 'expired', expires_at = least(expires_at, now())
         WHERE user_id = (SELECT id FROM u) AND is_trial AND status = 'active' RETURNING id)
       INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                  status, purchased_at, expires_at)
       SELECT id, 'pro-legend', 'PRO LEGEND', 30, 225, 'g4dn.2xlarge', 189900, 'active',
              now(), now() + interval '30 days' FROM u WHERE EXISTS (SELECT 1 FROM trial)`,
      [user.email],
    );
    await page.reload();
    const status = page.locator('[data-field="status"]');
    await status.getByText(HANDOVER_MESSAGES.upgrading).waitFor();
    await page.locator('.dashboard-notice').getByText(HANDOVER_MESSAGES.fromTrial).waitFor();
    await expect(page.locator('[data-field="public-ip"]').innerText()).resolves.not.toBe(trialIp);
    await expect(page.locator('[data-field="time-used"]').innerText()).resolves.toBe('0h 00m 00s');
    await expect(page.locator('[data-field="time-remaining"]').innerText()).resolves.toBe('30h 00m 00s');
    await expect(page.getByRole('button', { name: 'STOP VM' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Download desktop file' }).count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'trial-upgrading');
  });
});
