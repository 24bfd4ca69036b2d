import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepRunning } from '../../core/db/idle.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createCloudWatch } from '../../core/providers/cloudwatch.ts';
import { SPA_DIR } from '../../api/static.ts';
import { GOOD_PASSWORD } from '../support/accounts.ts';
import { findChromium } from '../support/browserPath.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { idleHelpers } from '../support/idle.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The idle notice in Chromium: a machine the real `vm-idle` sweep warned (its CloudWatch series
 * scripted idle in the sandbox) shows the notice on the dashboard; "Keep it running" withdraws
 * it; the setting and the usage page's hours-saved card render. It runs in the integration
 * project because the warning needs the sandbox world's clock moved, which only an in-process
 * stack allows; it serves the built SPA (`npm run build`) and skips loudly without it or
 * without a Chromium.
 */

const chromiumPath = findChromium();
const built = existsSync(path.join(SPA_DIR, 'index.html'));
if ((!chromiumPath || !built) && process.env.CI === 'true')
  throw new Error(`CI requires the idle browser test: ${!chromiumPath ? 'no Chromium' : 'no built SPA'}`);
if (!chromiumPath || !built) {
  console.warn(
    `\n${'!'.repeat(80)}\nidle browser test SKIPPED: ${!chromiumPath ? 'no Chromium' : 'no built SPA (npm run build)'}\n${'!'.repeat(80)}\n`,
  );
}

describe.skipIf(!chromiumPath || !built)('idle notice in the browser', () => {
  let browser: Browser;
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let cloud: ReturnType<typeof cloudPcHelpers>;
  let cloudWatch: ReturnType<typeof createCloudWatch>;
  let helpers: ReturnType<typeof idleHelpers>;

  beforeAll(async () => {
    stack = await startTestStack();
    cloud = cloudPcHelpers(stack);
    cloudWatch = createCloudWatch({ ...stack.config.metrics.cloudWatch, maxAttempts: 1 });
    helpers = idleHelpers(stack, cloud, {
      db: stack.services.db,
      boss: stack.services.boss,
      log: createLogger({ level: 'silent', name: 'test' }),
      config: stack.config,
      cloudWatch,
    });
    browser = await chromium.launch({
      executablePath: chromiumPath!,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    cloud?.destroy();
    cloudWatch?.destroy();
  });

  async function shots(page: Page, name: string) {
    await mkdir('screenshots', { recursive: true });
    await page.screenshot({ path: `screenshots/${name}-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.waitForFunction(() => window.innerWidth === 360);
    await page.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
    );
    await page.screenshot({ path: `screenshots/${name}-360.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it('warned machine → notice with "Keep it running" → clicked → notice gone; setting and hours saved shown', async () => {
    const { user, client, vm, instanceId, since } = await helpers.runningMachine();
    await helpers.script(instanceId, {});
    await helpers.sweepAt(since, 22);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: stack.url });
    const problems: string[] = [];
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));

    // Signs in through the login page.
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto('/dashboard');
    const notice = page.locator('.idle-notice');
    try {
      await notice.waitFor({ timeout: 20_000 });
    } catch (error) {
      await page.screenshot({ path: 'screenshots/idle-notice-missing.png', fullPage: true });
      throw error;
    }
    await expect(notice.innerText()).resolves.toMatch(
      /It will stop at \d{1,2}:\d{2}\s?[ap]m IST to save your hours\./i,
    );
    await expect(page.getByLabel('Stop after idle minutes').inputValue()).resolves.toBe('30');
    await shots(page, 'idle-notice');

    await page.getByRole('button', { name: 'Keep it running' }).click();
    await notice.waitFor({ state: 'detached' });
    // The click reached the server: the warning is withdrawn there too.
    const after = await client.call('/api/vm/idle');
    expect(after.body.warning).toBeNull();

    // The customer picks 15 minutes; the server keeps it.
    await page.getByLabel('Stop after idle minutes').selectOption('15');
    await expect
      .poll(async () => (await client.call('/api/vm/idle')).body.minutes, { timeout: 10_000 })
      .toBe(15);

    // Warned again and stopped at the world's time: the usage page counts the auto-stop.
    await keepRunning(stack.services.db, vm.id, helpers.worldNow());
    await helpers.sweepAt(since, 22 + 6);
    await helpers.sweepAt(since, 22 + 17);
    expect((await cloud.vm(vm.id)).state).toBe('stopping');
    await page.goto('/progress');
    const card = page.locator('.idle-savings');
    await card.waitFor();
    await expect(card.innerText()).resolves.toContain('1 automatic stop this plan');
    await expect(page.getByTestId('idle-projection').innerText()).resolves.toMatch(/a day, your hours/);
    await shots(page, 'idle-savings');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
