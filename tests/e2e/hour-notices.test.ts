import { describe, expect, it } from 'vitest';
import {
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshot,
  screenshotsAtBothWidths,
  useBrowser,
} from '../support/browser.ts';
import { openProfileMenu, registeredUser, runningLegendMachine } from '../support/e2eUsers.ts';
import { formatIndiaClock } from '../../core/domain/time.ts';

/**
 * The hour-bank notices on the dashboard of a real running machine (real stack, sandbox PayU
 * and EC2). Spending 24 hours of a 30-hour plan is not something a test can wait for, so the
 * browser's clock is moved (Playwright's clock): the dashboard computes the notices from the
 * record it polls and the time, as it does for the ticking usage clock. The server's side (the
 * mails once per period) is tests/integration/hour-warnings.test.ts. Then the account-deletion
 * dialog for the same customer, listing what goes and what is kept.
 */

const browser = useBrowser();
const HOUR = 3_600_000;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.skipIf(!hasBrowser())('hour-bank notices', () => {
  it('80% used, then "your hours run out at HH:MM" in the last 10 minutes, then the stop; and the deletion dialog', async () => {
    const user = await registeredUser('Meera Iyer', 'hours');
    const page = await browser.newPage(DESKTOP);
    await runningLegendMachine(page, user.email);
    await expect(page.locator('.hour-bank').count()).resolves.toBe(0);

    const record = (await page.evaluate(() => fetch('/api/vm/dashboard').then((r) => r.json()))) as {
      vmUsageSeconds: number;
      vmLastStateChange: string;
    };
    // The moment this machine would have used `seconds` of its plan, running all along.
    const whenUsed = (seconds: number) =>
      Date.parse(record.vmLastStateChange) + (seconds - record.vmUsageSeconds) * 1000;

    await page.clock.install({ time: whenUsed(24 * 3600 + 5 * 60) });
    await page.reload();
    const eighty = page.locator('[data-notice="hours-80"]');
    await eighty.getByText("You have used 80% of your plan's hours.").waitFor();
    await eighty.getByText(/5h 5\dm \d\ds left/).waitFor();
    await screenshotsAtBothWidths(page, 'hours-80');

    const stopsAt = whenUsed((30 * HOUR) / 1000);
    // Seven and a half minutes before: "in 8 minutes" whichever second the page ticks at. The page
    // counts whole seconds from the record it polled, so its run-out time may be a second either
    // side of ours, and on a minute's edge that is the next or the last minute on the clock.
    await page.clock.setSystemTime(stopsAt - 450_000);
    const soon = page.locator('[data-notice="hours-stop-soon"]');
    const clocks = [...new Set([stopsAt - 2_000, stopsAt + 2_000].map((at) => formatIndiaClock(at)))];
    await soon
      .getByText(
        new RegExp(
          `^Your hours run out at (${clocks.map(escapeRegExp).join('|')}) \\(in 8 minutes\\) — save your work; your PC will stop then\\.$`,
        ),
      )
      .waitFor();
    await expect(eighty.count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'hours-stop-soon');

    await page.clock.setSystemTime(stopsAt + 5_000);
    await soon.getByText('Your hours have run out: your PC is being stopped. Save your work now.').waitFor();

    // The deletion dialog lists what goes and what is kept (nothing is confirmed here). It lives
    // in the profile menu, which folds away at another width: opened once per width.
    for (const viewport of [DESKTOP, MOBILE]) {
      await page.setViewportSize(viewport);
      await page.waitForFunction((width) => window.innerWidth === width, viewport.width);
      const menu = await openProfileMenu(page);
      await menu.getByRole('button', { name: 'Delete Account' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
      await dialog.getByText('Terminates your cloud PC (LEGEND, running).').waitFor();
      await dialog.getByText('Deletes its disk').waitFor();
      await dialog.getByText('Deletes any snapshot of its disk').waitFor();
      await dialog
        .getByTestId('deletion-keeps')
        .getByText('Your invoices and payment records are kept for 8 years')
        .waitFor();
      await screenshot(page, `delete-dialog-facts-${viewport.width}`);
      // The narrow dialog scrolls to its confirmation field; the list above it, too.
      await page.evaluate(() =>
        document.querySelectorAll('.modal, .modal-body, .modal-form').forEach((el) => el.scrollTo(0, 0)),
      );
      await screenshot(page, `delete-dialog-facts-${viewport.width}-top`);
      await dialog.getByRole('button', { name: 'Keep my account' }).click();
      await expect(dialog.count()).resolves.toBe(0);
    }
  });
});
