import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshotsAtBothWidths,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { buy, logIn, post, registeredUser } from '../support/e2eUsers.ts';
import { formatHms } from '../../core/domain/usage.ts';
import { NAME_MESSAGES } from '../../core/domain/machineName.ts';

/**
 * The cloud PC in the browser against the real stack (`npm start`'s, sandbox EC2 on the fast
 * profile with its warm pool): buy a plan through PayU's sandbox checkout, wait on the success
 * page, land on the dashboard with the machine's IP, download both files, STOP, START again on
 * a new IP, and watch the usage timer tick.
 */

const browser = useBrowser();

/** Slows the sandbox's machines so the transitional states stay on screen long enough to look at. */
async function sandboxTimings(timings: Record<string, [number, number]> | null) {
  const response = await post('/sandbox/ec2/_control', timings ? { timings } : { profile: 'fast' });
  if (!response.ok) throw new Error(`sandbox control: ${response.status} ${await response.text()}`);
}

const fact = (page: Page, label: string) =>
  page
    .locator('.vm-fact')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd');

// npm start gives each running machine a loopback address with a real Remote Desktop listener.
const IP = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
// And a name in the sandbox's Route 53 zone (core/domain/machineName.ts).
const NAME = /^pc-[0-9a-z]{8}\.play\.legendcloud\.test$/;

afterAll(async () => {
  if (hasBrowser()) await sandboxTimings(null);
});

describe.skipIf(!hasBrowser())('cloud PC dashboard', () => {
  it('buy → the success page waits → dashboard with the IP; files download; STOP → START on a new IP; the timer ticks', async () => {
    const user = await registeredUser('Meera Iyer', 'pc');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    // Slow enough to see "Setting up…", "Stopping…" and "Starting…" on screen.
    await sandboxTimings({
      launch: [6000, 6000],
      password: [4000, 4000],
      start: [6000, 6000],
      stop: [4000, 4000],
    });
    await buy(page, 'LEGEND', 30, '₹1,450.00');

    await page.getByRole('heading', { name: 'Payment successful!' }).waitFor({ timeout: 20_000 });
    // Meanwhile, in another tab of the same browser: the dashboard while the PC is being set up.
    const other = await page.context().newPage();
    await other.goto('/dashboard');
    // A cold launch ("Setting up…") or, when the warm pool had a machine ready, a start.
    await other
      .locator('[data-field="status"]', {
        hasText: /^(Setting up your PC \(first boot takes a few minutes\)…|Starting…)$/,
      })
      .waitFor();
    await expect(fact(other, 'Public IP').innerText()).resolves.toBe('Fetching…');
    await expect(other.getByText('Generating…').count()).resolves.toBeGreaterThanOrEqual(1);
    await screenshotsAtBothWidths(other, 'dashboard-provisioning');
    await other.close();

    // The success page goes to /dashboard once the IP is known.
    await page.waitForURL('**/dashboard', { timeout: 45_000 });
    await expect(fact(page, 'Public IP').innerText()).resolves.toMatch(IP);
    const firstIp = await fact(page, 'Public IP').innerText();
    await expect(page.locator('[data-field="status"]').innerText()).resolves.toBe('Running');
    await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 }).isVisible()).resolves.toBe(true);
    await page.getByText('Welcome, Meera Iyer!').waitFor();
    await expect(fact(page, 'Registered name').innerText()).resolves.toBe('Meera Iyer');
    await expect(fact(page, 'Plan').innerText()).resolves.toBe('LEGEND');
    await expect(fact(page, 'Duration').innerText()).resolves.toBe('30 hours');
    await expect(fact(page, 'Storage').innerText()).resolves.toBe('115 GB');
    await expect(fact(page, 'Price per month').innerText()).resolves.toBe('₹1,450.00');
    await expect(fact(page, 'Purchase date').innerText()).resolves.toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}$/);
    await expect(fact(page, 'Expiry date').innerText()).resolves.toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}$/);
    // The hours left, labelled as such (the plan ends a month away, after them).
    await expect(fact(page, 'Remaining time').innerText()).resolves.toMatch(
      /^(29h 5\dm \d{2}s|30h 00m 00s)\nhours left on your plan$/,
    );

    // The usage timer ticks every second while the machine runs.
    const before = await fact(page, 'Time used').innerText();
    await page.waitForFunction(
      (previous) => document.querySelector('[data-field="time-used"]')?.textContent !== previous,
      before,
      { timeout: 3000 },
    );
    const after = await fact(page, 'Time used').innerText();
    expect(after).toMatch(/^0h 00m \d{2}s$/);
    expect(after > before).toBe(true);

    // The files: the RDP file names the PC by its name (npm start's sandbox plays Route 53), which
    // stays the same at every start; the password file holds the password.
    const name = await fact(page, 'PC name').innerText();
    expect(name).toMatch(NAME);
    const [rdp] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download desktop file' }).click(),
    ]);
    expect(rdp.suggestedFilename()).toBe('LegendCloud-PC.rdp');
    const rdpText = await readFile((await rdp.path())!, 'utf8');
    expect(rdpText).toContain(`full address:s:${name}\r\n`);
    const [pwd] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download password file' }).click(),
    ]);
    expect(pwd.suggestedFilename()).toBe('LegendCloud-PC-password.txt');
    expect(await readFile((await pwd.path())!, 'utf8')).toMatch(/^[\x21-\x7e]{8,}$/);
    await expect(page.getByRole('link', { name: 'Get the installer' }).getAttribute('href')).resolves.toMatch(
      /^https:\/\//,
    );
    await page.getByText(NAME_MESSAGES.rdpHintNamed).waitFor();
    await screenshotsAtBothWidths(page, 'dashboard-running');

    // STOP asks first; then "Stopping…", then START VM with its hint.
    await page.getByRole('button', { name: 'STOP VM' }).click();
    const stopDialog = page.getByRole('dialog', { name: 'Stop your cloud PC?' });
    await stopDialog.getByText('Save your work first').waitFor();
    await stopDialog.getByRole('button', { name: 'Stop VM' }).click();
    await page.locator('[data-field="status"]', { hasText: 'Stopping…' }).waitFor();
    await expect(page.getByRole('button', { name: 'START VM' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'START VM' }).waitFor({ timeout: 30_000 });
    await page.getByText('After every shut-down, start your VM').waitFor();
    await expect(fact(page, 'Public IP').innerText()).resolves.toBe('Assigned when it starts');
    await expect(page.getByRole('link', { name: 'Download desktop file' }).count()).resolves.toBe(0);
    // The desktop file's place says why it is missing (the browser desktop's entry says the same).
    await page
      .locator('.download-list li', { hasText: 'Remote desktop file' })
      .getByText('Available while your PC is running')
      .waitFor();
    // Not counting: the record the page shows says stopped, and the page shows its stored usage
    // (the clock ticks only while the record says running).
    const stoppedAt = await fact(page, 'Time used').innerText();
    const record = (await (
      await page.request.get(`/api/vm/dashboard/${encodeURIComponent(user.email)}`)
    ).json()) as { isRunning: boolean; vmUsageSeconds: number };
    expect(record.isRunning).toBe(false);
    expect(formatHms(record.vmUsageSeconds)).toBe(stoppedAt);
    await screenshotsAtBothWidths(page, 'dashboard-stopped');

    await page.getByRole('button', { name: 'START VM' }).click();
    await page.locator('[data-field="status"]', { hasText: 'Starting…' }).waitFor();
    await screenshotsAtBothWidths(page, 'dashboard-starting');
    await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    const secondIp = await fact(page, 'Public IP').innerText();
    expect(secondIp).toMatch(IP);
    expect(secondIp).not.toBe(firstIp);
    const [again] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download desktop file' }).click(),
    ]);
    // A new address, the same name: the file from before the stop still leads to the PC.
    await expect(fact(page, 'PC name').innerText()).resolves.toBe(name);
    expect(await readFile((await again.path())!, 'utf8')).toContain(`full address:s:${name}\r\n`);

    // Logout clears everything stored and goes home.
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${baseUrl()}/`);
    await expect(page.evaluate(() => window.localStorage.length)).resolves.toBe(0);
    await page.goto('/dashboard');
    await page.waitForURL('**/login?next=%2Fdashboard');
    // A whole lifecycle with slowed sandbox timings: about 50 s on a loaded 2-core machine.
  }, 90_000);

  it('a logged-in user without a plan is offered one', async () => {
    const user = await registeredUser('Dev Patel', 'pc');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    await page.goto('/dashboard');
    await page.getByText('You have no plan yet. Choose a plan to get your cloud PC.').waitFor();
    await expect(page.getByRole('link', { name: 'Choose a plan' }).getAttribute('href')).resolves.toBe(
      '/select-vm',
    );
  });
});
