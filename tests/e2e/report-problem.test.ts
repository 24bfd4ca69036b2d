import { describe, expect, it } from 'vitest';
import { baseUrl, DESKTOP, hasBrowser, MOBILE, screenshot, useBrowser } from '../support/browser.ts';
import { mailsTo } from '../support/e2eUsers.ts';
import { waitFor } from '../support/waitFor.ts';

const browser = useBrowser();

describe.skipIf(!hasBrowser())('report a problem', () => {
  it('refuses a bad phone with the spec message and sends nothing', async () => {
    const page = await browser.newPage(DESKTOP);
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/report-problem')) requests.push(r.method());
    });
    await page.goto('/report-problem');
    await page.getByLabel('Issue Title').fill('Lag');
    await page.getByLabel('Description').fill('Input lag in games');
    await page.getByLabel('Phone Number').fill('5123456789');
    await page.getByRole('button', { name: 'Submit Report' }).click();
    await expect(
      page.getByText('Enter a valid 10-digit phone number starting with 6-9.').isVisible(),
    ).resolves.toBe(true);
    expect(requests).toEqual([]);
  });

  it('keeps a pasted phone number whole, and refuses a too-long one rather than cut it to another', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.goto('/report-problem');
    await page.getByLabel('Issue Title').fill('Lag');
    await page.getByLabel('Description').fill('Slow frames.');
    await page.getByLabel('Phone Number').fill('  98765432109999');
    await expect(page.getByLabel('Phone Number').inputValue()).resolves.toBe('  98765432109999');
    await page.getByRole('button', { name: 'Submit Report' }).click();
    await page.getByText('Enter a valid 10-digit phone number starting with 6-9.').waitFor();
  });

  it('submits a good report, clears the form and emails support', async () => {
    const page = await browser.newPage(MOBILE);
    await page.goto('/report-problem');
    const title = `Black screen ${Date.now()}`;
    await page.getByLabel('Issue Title').fill(title);
    await page.getByLabel('Description').fill('After connecting over RDP the screen stays black.');
    await page.getByLabel('Severity').selectOption('high');
    await page.getByLabel('Phone Number').fill('9876543210');
    await screenshot(page, 'report-problem-filled-360');
    await page.getByRole('button', { name: 'Submit Report' }).click();
    await page.getByText('Report submitted!').waitFor();
    await expect(page.getByLabel('Issue Title').inputValue()).resolves.toBe('');
    await expect(page.getByLabel('Phone Number').inputValue()).resolves.toBe('');
    await expect(page.getByLabel('Severity').inputValue()).resolves.toBe('low');
    await screenshot(page, 'report-problem-submitted-360');

    const report = await waitFor(
      'the report at support',
      async () => (await mailsTo('support@legendcloud.in')).find((m) => m.subject.includes(title)),
      20_000,
      200,
    );
    expect(report.subject).toBe(`[HIGH] Problem report: ${title}`);
  });
});

describe.skipIf(!hasBrowser())('the shell', () => {
  it('shows the logged-out navigation and a 404 page for unknown routes', async () => {
    // The document itself answers 404, which Chromium logs as a console error.
    const page = await browser.newPage(DESKTOP, { allowConsoleErrors: /status of 404 \(Not Found\)/ });
    await page.goto('/no/such/page');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual([
      'Services',
      'Plans',
      'Blogs',
      'Register / Login',
    ]);
  });

  it('opens and closes the mobile menu', async () => {
    const page = await browser.newPage(MOBILE);
    await page.goto('/report-problem');
    const toggle = page.getByRole('button', { name: 'Open menu' });
    const services = page.getByRole('banner').getByRole('link', { name: 'Services' });
    await expect(services.isVisible()).resolves.toBe(false);
    await toggle.click();
    await expect(services.isVisible()).resolves.toBe(true);
    await screenshot(page, 'shell-mobile-menu-open-360');
    await page.getByRole('button', { name: 'Close menu' }).click();
    await expect(services.isVisible()).resolves.toBe(false);
    await screenshot(page, 'shell-mobile-360');
  });

  it('serves client routes on reload with index.html not cached and assets cached long', async () => {
    const html = await fetch(`${baseUrl()}/dashboard`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    expect(html.headers.get('cache-control')).toContain('no-store');
    const body = await html.text();
    const asset = /\/assets\/[^"]+\.js/.exec(body)?.[0];
    expect(asset).toBeDefined();
    const js = await fetch(`${baseUrl()}${asset}`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Precompressed at build time and chosen by Accept-Encoding.
    expect(js.headers.get('content-encoding')).toBe('br');
    expect(js.headers.get('vary')).toContain('Accept-Encoding');
    const gz = await fetch(`${baseUrl()}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
  });
});
