import { afterEach, describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshot,
  useBrowser,
  VIEWPORTS,
  type Page,
} from '../support/browser.ts';
import { logIn, registeredUser } from '../support/e2eUsers.ts';
import { verdictFor, type Measured, type Use } from '../../core/domain/connectionCheck.ts';

/**
 * The connection check before buying: from the plans page (and the dashboard) to a verdict,
 * measured by the browser against the sandbox's regional endpoint on another origin (the stack
 * sets REGION_PING_URL to 127.0.0.1 while pages open at localhost), with CORS and the CSP in
 * the way exactly as against AWS.
 */
const browser = useBrowser();

async function regionPing(action: '_control' | '_reset', body?: unknown): Promise<void> {
  const response = await fetch(`${baseUrl()}/sandbox/region-ping/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.ok).toBe(true);
}

afterEach(async () => {
  await regionPing('_reset');
});

/** Starts the check and waits for its results; the verdicts by use. */
async function runCheck(
  page: Page,
  whileMeasuring?: () => Promise<void>,
): Promise<Record<string, { level: string; title: string }>> {
  await page.getByRole('button', { name: /Start the check|Run the check again/ }).click();
  // Progress is shown while it measures.
  await page.locator('#check-progress progress').waitFor();
  await whileMeasuring?.();
  await page
    .getByRole('heading', { name: 'Your connection to Mumbai (ap-south-1)' })
    .waitFor({ timeout: 45_000 });
  const verdicts: Record<string, { level: string; title: string }> = {};
  for (const item of await page.locator('.check-verdict').all()) {
    const use = (await item.getAttribute('data-use')) ?? '';
    verdicts[use] = {
      level: (await item.getAttribute('data-level')) ?? '',
      title: (await item.getByRole('heading', { level: 3 }).textContent()) ?? '',
    };
  }
  return verdicts;
}

async function figure(page: Page, name: 'rtt' | 'jitter' | 'speed'): Promise<string> {
  return (await page.locator(`[data-figure="${name}"]`).textContent()) ?? '';
}

/** The figures as measured (unrounded), from the page. */
async function measured(page: Page): Promise<Measured> {
  const value = async (name: string) => page.locator(`[data-figure="${name}"]`).getAttribute('data-value');
  const speed = await value('speed');
  return {
    rttMs: Number(await value('rtt')),
    jitterMs: Number(await value('jitter')),
    mbps: speed ? Number(speed) : null,
  };
}

/** Each verdict shown is the rule's for the figures measured. */
function expectVerdictsByTheRule(shown: Record<string, { level: string; title: string }>, figures: Measured) {
  for (const use of ['gaming', 'editing', 'work'] as Use[]) {
    const rule = verdictFor(use, figures);
    expect(shown[use], `${use} at ${JSON.stringify(figures)}`).toEqual({
      level: rule.level,
      title: rule.title,
    });
  }
}

/** Full-page pictures are taken from the top (the sticky header otherwise lands mid-page). */
async function picture(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, name);
}

describe.skipIf(!hasBrowser())('connection check', () => {
  it.each(VIEWPORTS)('runs from the plans page to a verdict at %s px', async (name, viewport) => {
    const page = await browser.newPage(viewport);
    await page.goto('/select-vm');
    const link = page.getByRole('link', { name: 'Check your connection' });
    await link.waitFor();
    await picture(page, `connection-check-link-plans-${name}`);
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Connection check' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/connection-check');
    // The region comes from the server (GET /api/site), a moment after the page.
    await page.getByText('To our PCs in Mumbai (ap-south-1).').waitFor();

    const verdicts = await runCheck(page);
    expect(Object.keys(verdicts)).toEqual(['gaming', 'editing', 'work']);
    // Each verdict is the rule's for the figures shown (how loaded this machine is decides which:
    // a busy CPU is round trip and jitter too, so no figure is pinned here).
    const figures = await measured(page);
    expect(figures.rttMs).toBeGreaterThan(0);
    expect(figures.mbps).toBeGreaterThan(20);
    expectVerdictsByTheRule(verdicts, figures);
    expect(await figure(page, 'rtt')).toMatch(/^\d+(\.\d)? ms$/);
    expect(await figure(page, 'jitter')).toMatch(/^\d+(\.\d)? ms$/);
    expect(await figure(page, 'speed')).toMatch(/^\d+(\.\d)? (M|G)bps$/);
    await expect(page.getByText(/the median of 24 requests/).count()).resolves.toBe(1);
    await expectNoHorizontalScroll(page, viewport.width);
    await picture(page, `connection-check-${name}`);
  });

  it.each(VIEWPORTS)(
    'changes its verdicts, and says what to do, when the sandbox adds latency and jitter (%s px)',
    async (name, viewport) => {
      const page = await browser.newPage(viewport);
      await page.goto('/connection-check');
      const before = await runCheck(page);
      // Over loopback: a short round trip, and verdicts by the rule for what was measured (which
      // ones are great depends on how busy this machine is: a busy CPU is jitter too).
      const near = await measured(page);
      expectVerdictsByTheRule(before, near);

      // Every answer 130 ms late, every other one 12 ms more: a far-away, jittery line, far
      // enough past the gaming and editing thresholds that this machine's own jitter cannot
      // decide those. Work tolerates a far line, so its verdict follows the jitter measured, and
      // a busy machine adds jitter of its own: it is checked by the rule for the figures shown.
      await regionPing('_control', { latencyMs: 130, jitterMs: 12 });
      const after = await runCheck(page, () => picture(page, `connection-check-measuring-${name}`));
      const far = await measured(page);
      expect(far.rttMs, JSON.stringify(far)).toBeGreaterThanOrEqual(130);
      expect(far.rttMs, JSON.stringify({ near, far })).toBeGreaterThan(near.rttMs);
      expect(far.jitterMs, JSON.stringify(far)).toBeGreaterThan(5);
      expect(after.gaming).toEqual({ level: 'poor', title: 'Not great for gaming from here' });
      expect(after.editing).toEqual({ level: 'poor', title: 'Not great for video editing from here' });
      expectVerdictsByTheRule(after, far);
      expect(after).not.toEqual(before);
      const advice = page.getByRole('region', { name: 'How to get a better result' });
      await advice.waitFor();
      await expect(
        advice.getByText(/Use a network cable, or 5 GHz Wi-Fi close to your router/).count(),
      ).resolves.toBe(1);
      await expect(
        advice.getByText(/Our PCs run in Mumbai \(ap-south-1\), the nearest region we offer/).count(),
      ).resolves.toBe(1);
      await expectNoHorizontalScroll(page, viewport.width);
      await picture(page, `connection-check-far-${name}`);
    },
  );

  it('says when the endpoint does not measure the download speed, and still judges', async () => {
    await regionPing('_control', { servesSizes: false });
    const page = await browser.newPage(DESKTOP);
    await page.goto('/connection-check');
    const verdicts = await runCheck(page);
    expect(await figure(page, 'speed')).toBe('Not measured');
    await expect(
      page.getByText(/Download speed is not measured against this endpoint/).count(),
    ).resolves.toBe(1);
    // Judged on the round trip and jitter alone.
    const figures = await measured(page);
    expect(figures.mbps).toBeNull();
    expectVerdictsByTheRule(verdicts, figures);
  });

  it('says so when the region does not answer, and runs again once it does (360 px)', async () => {
    await regionPing('_control', { failStatus: 503 });
    // Chromium logs each refused request; that refusal is this test's subject.
    const page = await browser.newPage(MOBILE, { allowConsoleErrors: /status of 503/ });
    await page.goto('/connection-check');
    await page.getByRole('button', { name: 'Start the check' }).click();
    const problem = page.getByRole('alert');
    await problem.waitFor();
    await expect(problem.textContent()).resolves.toBe(
      'We could not reach our region from your browser. Check that you are online (and that no ad blocker or firewall stops the check), then run it again.',
    );
    // It gave up as soon as 20 answers were out of reach, not after all 25.
    const state = (await (await fetch(`${baseUrl()}/sandbox/region-ping/_state`)).json()) as {
      answered: number;
    };
    expect(state.answered).toBe(6);
    await picture(page, 'connection-check-unreachable-360');

    await regionPing('_reset');
    const verdicts = await runCheck(page);
    expect(Object.keys(verdicts)).toEqual(['gaming', 'editing', 'work']);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
  });

  it('is linked from the dashboard', async () => {
    const user = await registeredUser('Asha Menon', 'check');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    await page.goto('/dashboard');
    const link = page.getByRole('link', { name: 'Check your connection' });
    await link.waitFor();
    await picture(page, 'connection-check-link-dashboard-360');
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Connection check' }).waitFor();
  });
});
