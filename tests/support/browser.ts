import { mkdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, expect, inject, type TestContext } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * The stack this test file's pages and helpers talk to: the one the browser tests share, unless
 * the file booted one of its own (tests/support/ownStack.ts). Each test file runs in a process
 * of its own, so a file's choice reaches no other file.
 */
let target: { baseUrl: string; databaseUrl: string } | undefined;

/** For tests/support/ownStack.ts: from now on this file talks to `stack` (undefined: the shared one). */
export function targetStack(stack: { baseUrl: string; databaseUrl: string } | undefined): void {
  target = stack;
}

export const baseUrl = () => target?.baseUrl ?? inject('baseUrl');
/** The stack's embedded Postgres (tests/support/stackDb.ts). */
export const stackDatabaseUrl = () => target?.databaseUrl ?? inject('stackDatabaseUrl');
export const hasBrowser = () => inject('chromiumPath') !== '';

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 360, height: 740 };
/** Both widths every page is tested at, named for `it.each` and screenshot names. */
export const VIEWPORTS = [
  ['1280', DESKTOP],
  ['360', MOBILE],
] as const;

/**
 * One Chromium per test file; each `newPage()` gets a fresh context (no shared cookies or
 * storage). Page errors, console errors (a 4xx answer included: Chromium logs those as
 * errors) and native dialogs (`alert`, `confirm`, `prompt`: the product uses in-app dialogs)
 * are collected and fail the test that caused them. A test whose subject is an expected
 * refusal names it with `allowConsoleErrors`.
 */
export function useBrowser() {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    if (!hasBrowser()) return;
    browser = await chromium.launch({
      executablePath: inject('chromiumPath'),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    const found = problems.splice(0);
    if (found.length > 0) throw new Error(`the page reported errors:\n${found.join('\n')}`);
  });

  afterAll(async () => {
    await browser?.close();
  });

  return {
    async newPage(
      viewport = DESKTOP,
      options: { allowConsoleErrors?: RegExp; javaScriptEnabled?: boolean; timezoneId?: string } = {},
    ): Promise<Page> {
      if (!browser) throw new Error('no browser');
      const context = await browser.newContext({
        viewport,
        baseURL: baseUrl(),
        javaScriptEnabled: options.javaScriptEnabled ?? true,
        // A customer's own clock (the machine running the tests may be on UTC).
        ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        const text = message.text();
        if (options.allowConsoleErrors?.test(text)) return;
        problems.push(`console: ${text} (at ${message.location().url || page.url()})`);
      });
      page.on('dialog', (dialog) => {
        problems.push(`native ${dialog.type()} dialog: ${dialog.message()} (at ${page.url()})`);
        void dialog.dismiss();
      });
      return page;
    },
  };
}

/** The page fits its viewport: nothing scrolls sideways. */
export async function expectNoHorizontalScroll(page: Page, width: number): Promise<void> {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth).toBeLessThanOrEqual(width);
}

/**
 * Waits until the app has taken over the page: React has hydrated (or rendered) its main heading,
 * so the page's own content and controls answer. A public page arrives prerendered and is shown
 * before its JavaScript has run; its buttons, tabs and forms only work from then on.
 */
export async function waitForApp(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const heading = document.querySelector('#root h1');
    return heading !== null && Object.keys(heading).some((key) => key.startsWith('__reactFiber$'));
  });
}

/** Saves a screenshot under screenshots/ for people to look at (not compared). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir('screenshots', { recursive: true });
  await page.screenshot({ path: `screenshots/${name}.png`, fullPage: true });
}

/** Screenshots at 1280 and 360 px (`<name>-1280`, `<name>-360`), the layout reflowed in between; back at 1280 after. */
export async function screenshotsAtBothWidths(page: Page, name: string): Promise<void> {
  // A page opened by another (a new tab) may start at another size.
  await page.setViewportSize(DESKTOP);
  await page.waitForFunction((width) => window.innerWidth === width, DESKTOP.width);
  await screenshot(page, `${name}-1280`);
  for (const viewport of [MOBILE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await page.waitForFunction((width) => window.innerWidth === width, viewport.width);
    await page.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
    );
    if (viewport === MOBILE) await screenshot(page, `${name}-360`);
  }
}

export type { Page, TestContext };
