import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshotsAtBothWidths,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { logIn, PASSWORD, registeredUser, runningLegendMachine } from '../support/e2eUsers.ts';
import { ACCOUNT_MESSAGES } from '../../core/domain/account.ts';

/**
 * A session that ends under a signed-in page (here: the browser's cookies cleared, as when they
 * expire) puts the whole app in one state: "Your session has ended — log in again" with a link
 * back to the same page, the page frozen (no ticking clock, every button disabled), the header
 * signed out. STOP says the session ended, not that the machine could not stop; on /payment the
 * Pay button is disabled. Logging in again returns to the page, live.
 */

const browser = useBrowser();
// Every call after the cookies are gone answers 401, which Chromium logs: that is the subject here.
const EXPECTED_401 = /status of 401 \(Unauthorized\)/;

async function endedNotice(page: Page) {
  const notice = page.getByRole('alert').filter({ hasText: ACCOUNT_MESSAGES.sessionEnded }).first();
  await notice.waitFor();
  return notice;
}

describe.skipIf(!hasBrowser())('an expired session says so', () => {
  it('dashboard: STOP says the session ended, the clock stops, and logging in comes back live', async () => {
    const user = await registeredUser('Nisha Pillai', 'ended');
    const page = await browser.newPage(DESKTOP, { allowConsoleErrors: EXPECTED_401 });
    await page.clock.install();
    await runningLegendMachine(page, user.email);
    const clock = page.locator('[data-field="time-used"]');
    // Ticking while signed in (the page's timer moved on by Playwright's clock, not waited for).
    const before = await clock.innerText();
    await page.clock.runFor(3_000);
    await expect.poll(() => clock.innerText()).not.toBe(before);

    await page.context().clearCookies();
    await page.getByRole('button', { name: 'STOP VM' }).click();
    await page
      .getByRole('dialog', { name: 'Stop your cloud PC?' })
      .getByRole('button', { name: 'Stop VM' })
      .click();

    const notice = await endedNotice(page);
    const login = notice.getByRole('link', { name: 'Log in again' });
    await expect(login.getAttribute('href')).resolves.toBe('/login?next=%2Fdashboard');
    const card = page.locator('.vm-card');
    await expect(card.getByRole('alert').innerText()).resolves.toBe(ACCOUNT_MESSAGES.sessionEnded);
    await expect(page.getByText('Could not stop VM. Try again.').count()).resolves.toBe(0);
    // Frozen: no action, no ticking clock, and the header no longer signed in.
    await expect(page.getByRole('button', { name: 'STOP VM' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Logout' }).isDisabled()).resolves.toBe(true);
    const frozen = await clock.innerText();
    await page.clock.runFor(5_000);
    await expect(clock.innerText()).resolves.toBe(frozen);
    await page
      .getByRole('navigation', { name: 'Main', includeHidden: true })
      .getByRole('link', { name: 'Register / Login', includeHidden: true })
      .waitFor({ state: 'attached' });
    await screenshotsAtBothWidths(page, 'session-ended-dashboard');

    await login.click();
    await page.waitForURL('**/login?next=%2Fdashboard');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL(`${baseUrl()}/dashboard`);
    await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'STOP VM' }).isEnabled()).resolves.toBe(true);
    await expect(page.getByText(ACCOUNT_MESSAGES.sessionEnded).count()).resolves.toBe(0);
    const again = await clock.innerText();
    await page.clock.runFor(3_000);
    await expect.poll(() => clock.innerText()).not.toBe(again);
  });

  it('payment at 360 px: the Pay button is disabled and the message links to login, then back to pay', async () => {
    const user = await registeredUser('Farhan Ali', 'ended');
    const page = await browser.newPage(MOBILE, { allowConsoleErrors: EXPECTED_401 });
    await logIn(page, user.email);
    await page.goto('/select-vm');
    const legend = page.getByRole('article', { name: 'LEGEND', exact: true });
    await legend.getByRole('radio', { name: '30 h' }).check();
    await legend.getByRole('button', { name: 'Choose Plan' }).click();
    await page.waitForURL('**/payment');
    const pay = page.getByRole('button', { name: 'Pay ₹1,450.00' });
    await pay.waitFor();

    await page.context().clearCookies();
    await pay.click();
    const notice = await endedNotice(page);
    await expect(pay.isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Change plan' }).getAttribute('href')).resolves.toBe(
      '/select-vm',
    );
    const login = notice.getByRole('link', { name: 'Log in again' });
    await expect(login.getAttribute('href')).resolves.toBe('/login?next=%2Fpayment');
    await expect(page.getByText('Redirecting to payment… please wait.').count()).resolves.toBe(0);
    // Scrolled down to the Pay button, the message stays in view below the sticky header.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect
      .poll(() =>
        page.evaluate(() => {
          const header = document.querySelector('.site-header')!.getBoundingClientRect();
          const message = document.querySelector('.session-ended')!.getBoundingClientRect();
          return window.scrollY > 0 && message.top >= header.bottom;
        }),
      )
      .toBe(true);
    await expectNoHorizontalScroll(page, MOBILE.width);
    await screenshotsAtBothWidths(page, 'session-ended-payment');

    await login.click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL(`${baseUrl()}/payment`);
    await expect(page.getByRole('button', { name: 'Pay ₹1,450.00' }).isEnabled()).resolves.toBe(true);
  });

  it('the Security page freezes too when the session check finds nobody (at 360 px)', async () => {
    const user = await registeredUser('Tara Singh', 'ended');
    const page = await browser.newPage(MOBILE, { allowConsoleErrors: EXPECTED_401 });
    await page.clock.install();
    await logIn(page, user.email);
    await page.goto('/account/security');
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await page.context().clearCookies();
    // A return to the tab (past swr's 5-second focus throttle) asks the session check again.
    await page.clock.runFor(6_000);
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await endedNotice(page);
    await expect(page.getByRole('button', { name: 'Change password' }).isDisabled()).resolves.toBe(true);
    await expect(page.url()).toBe(`${baseUrl()}/account/security`);
  });
});
