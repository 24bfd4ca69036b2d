import { describe, expect, it } from 'vitest';
import { DESKTOP, hasBrowser, screenshotsAtBothWidths, useBrowser } from '../support/browser.ts';
import { buy, logIn, paymentVerified, registeredUser } from '../support/e2eUsers.ts';

/**
 * The browser desktop against `npm start`'s stack: the dashboard's "Open in browser" asks for a
 * one-time token and opens DCV's web client on the machine in a new tab. In the sandbox that is
 * the DCV stand-in on the machine's loopback address, which verifies the token with our API as
 * DCV does (a form POST from the machine's address) and shows the session connected. The same
 * link opened again is refused: the token worked once.
 */

const browser = useBrowser();

describe.skipIf(!hasBrowser())('desktop in the browser (Amazon DCV)', () => {
  it('dashboard → Open in browser → the DCV page on the machine shows the session connected; the link works once', async () => {
    const user = await registeredUser('Ravi Menon', 'dcv');
    // The last step's refusal (409) is the subject, not a fault.
    const page = await browser.newPage(DESKTOP, { allowConsoleErrors: /status of 409/ });
    await logIn(page, user.email);
    await buy(page, 'LEGEND', 30, '₹1,450.00');
    await paymentVerified(page);
    await page.waitForURL('**/dashboard', { timeout: 45_000 });
    await page.locator('[data-field="status"]', { hasText: /^Running$/ }).waitFor({ timeout: 45_000 });
    const ip = await page.locator('[data-field="public-ip"]').innerText();
    expect(ip).toMatch(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);

    const open = page.getByRole('button', { name: 'Open in browser' });
    await open.waitFor();
    await screenshotsAtBothWidths(page, 'dashboard-browser-desktop');

    // Catch the link on its way to the new tab, to open it a second time below.
    const minted = page.waitForResponse((r) => r.url().endsWith('/api/vm/desktop-token'));
    const [tab] = await Promise.all([page.context().waitForEvent('page'), open.click()]);
    const { url } = (await (await minted).json()) as { url: string };
    expect(url).toMatch(
      new RegExp(`^http://${ip.replaceAll('.', '\\.')}:8443/\\?authToken=[\\w-]{43}#console$`),
    );
    await tab.locator('#state[data-state="connected"]').waitFor({ timeout: 15_000 });
    await expect(tab.locator('#state').innerText()).resolves.toBe('Connected');
    await expect(tab.locator('#session').innerText()).resolves.toBe('console');
    await expect(tab.locator('#user').innerText()).resolves.toBe('Administrator');
    // Like DCV's web client, the page keeps the token out of the address bar once read.
    expect(tab.url()).not.toContain('authToken');
    await screenshotsAtBothWidths(tab, 'dcv-connected');

    // The dashboard reported nothing wrong and stays usable.
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await expect(open.isEnabled()).resolves.toBe(true);

    // The same one-time link again (a replay) is refused.
    await tab.goto(url);
    await tab.locator('#state[data-state="refused"]').waitFor({ timeout: 15_000 });
    await expect(tab.locator('#detail').innerText()).resolves.toBe(
      'This desktop link is not valid. Open it again from your dashboard.',
    );
    await screenshotsAtBothWidths(tab, 'dcv-refused');

    // The machine stops behind the dashboard's back (before its next poll): the click is refused,
    // the tab it opened closes, and the card says why, in the page.
    const stopped = await page.evaluate(async () => {
      const response = await fetch('/api/vm/stop-vm', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return response.status;
    });
    expect(stopped).toBe(202);
    const [blank] = await Promise.all([page.context().waitForEvent('page'), open.click()]);
    // It may close before anyone listens for it: ask whether it has.
    await expect.poll(() => blank.isClosed(), { timeout: 15_000 }).toBe(true);
    await expect(page.getByRole('alert').innerText()).resolves.toBe(
      'Your PC must be running to open it in the browser. Start it first.',
    );
    // …and the dashboard, asked again, shows the machine as it is now.
    await page.locator('[data-field="status"]', { hasText: /^(Stopping…|Stopped)$/ }).waitFor();
    await screenshotsAtBothWidths(page, 'dashboard-browser-desktop-refused');
  });
});
