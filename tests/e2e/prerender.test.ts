import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshot,
  useBrowser,
  waitForApp,
  type Page,
} from '../support/browser.ts';
import { logIn, mailsTo, registeredUser, type Mail } from '../support/e2eUsers.ts';
import { waitFor } from '../support/waitFor.ts';
import { BLOG_POSTS, BLOGS_INTRO } from '../../core/domain/content/blog.ts';
import { HERO_TEXTS } from '../../core/domain/content/landing.ts';
import { FEEDBACK_MESSAGES } from '../../core/domain/publicSite.ts';
import { publicPagePaths } from '../../core/domain/siteRoutes.ts';

/**
 * Public pages paint before their JavaScript runs: the HTML the server sends already holds the
 * page (prerendered at build), the browser hydrates that HTML in place without a mismatch, and
 * the particle field waits for the browser to be idle and honours reduced motion.
 */
const browser = useBrowser();

/** Each public page's main heading (core/domain/siteRoutes.ts lists the pages). */
const HEADINGS: Record<string, string> = {
  '/': HERO_TEXTS[0]!,
  '/services': 'Cloud PCs for gaming, editing, development and AI',
  '/select-vm': 'Choose your plan',
  '/trial': 'Try a cloud PC for 1 hour',
  '/blogs': BLOGS_INTRO.title,
  '/privacy-policy': 'Privacy Policy',
  '/terms-of-service': 'Terms of Service',
  '/refund-policy': 'Refund Policy',
  '/contact-us': 'Contact Us',
  '/connection-check': 'Connection check',
  '/guides': 'Connect to your cloud PC and play',
  ...Object.fromEntries(BLOG_POSTS.map((post) => [`/BlogPostPage/${post.id}`, post.title])),
};

/** The pages Lighthouse measures (npm run bench -- site), looked at without JavaScript. */
const MEASURED = ['/', '/services', '/blogs', '/select-vm', '/connection-check'];

const decode = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Remembers the first <h1> the HTML parser puts in #root, before any script of the page runs. */
async function rememberServerHeading(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { serverHeading?: Element };
    new MutationObserver((_, observer) => {
      const heading = document.querySelector('#root h1');
      if (heading) {
        w.serverHeading = heading;
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
}

/**
 * Waits until React has taken over the page's heading (hydrated: React keeps its fiber on the
 * element) and answers whether it is the very element the server sent, not a re-rendered copy.
 */
async function hydratedInPlace(page: Page): Promise<boolean> {
  await waitForApp(page);
  return page.evaluate(
    () =>
      (window as unknown as { serverHeading?: Element }).serverHeading === document.querySelector('#root h1'),
  );
}

describe.skipIf(!hasBrowser())('prerendered public pages', () => {
  it('every public page arrives as HTML holding its main heading and title, with no inline script', async () => {
    expect(Object.keys(HEADINGS).sort()).toEqual([...publicPagePaths()].sort());
    for (const path of publicPagePaths()) {
      const response = await fetch(`${baseUrl()}${path}`, { headers: { accept: 'text/html' } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await response.text();
      const root = /<div id="root"[^>]*>([\s\S]*)<\/div>\s*<\/body>/.exec(html)?.[1] ?? '';
      const h1 = /<h1\b[^>]*>([\s\S]*?)<\/h1>/.exec(root)?.[1];
      expect(h1, `${path} has no <h1> in its HTML`).toBeDefined();
      expect(decode(h1!), path).toContain(HEADINGS[path]);
      // The only script is the app's own file (the CSP runs no inline script).
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts, path).toHaveLength(1);
      expect(scripts[0], path).toMatch(/type="module"[^>]*src="\/assets\/[\w.-]+\.js"/);
      expect(html, path).toMatch(/<title>[^<]*Legend Cloud[^<]*<\/title>/);
    }
  });

  // Many pages in one test: more time than one page needs on a loaded machine.
  const PAGES_TIMEOUT_MS = 240_000;

  it.each([
    ['360', MOBILE],
    ['1280', DESKTOP],
  ] as const)(
    'paints each measured page with JavaScript switched off at %s px',
    async (size, viewport) => {
      const page = await browser.newPage(viewport, { javaScriptEnabled: false });
      for (const path of MEASURED) {
        await page.goto(path);
        const heading = page.getByRole('heading', { level: 1 });
        await expect(heading.textContent(), path).resolves.toContain(HEADINGS[path]);
        await expect(heading.isVisible(), path).resolves.toBe(true);
        await expectNoHorizontalScroll(page, viewport.width);
        // Before the app takes over, a submit would be the browser's own (the address in the URL).
        if (path === '/blogs') {
          await expect(page.getByRole('button', { name: 'Subscribe' }).isDisabled()).resolves.toBe(true);
        }
        const name = path === '/' ? 'landing' : path.slice(1);
        await screenshot(page, `prerendered-${name}-no-js-${size}`);
      }
    },
    PAGES_TIMEOUT_MS,
  );

  it("keeps a tap made before the app has taken over: the trial's next plan", async () => {
    const page = await browser.newPage(MOBILE);
    // The app's scripts are held back: the prerendered page is all there is until they load.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/.+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    // Not waiting for the load event: the held scripts would hold it too.
    await page.goto('/trial', { waitUntil: 'commit' });
    await page.getByRole('heading', { name: 'LEGEND', exact: true }).waitFor();
    const tapped = page.getByRole('button', { name: 'Next plan' }).click();
    release();
    await tapped;
    await page.getByRole('heading', { name: 'PRO LEGEND' }).waitFor();
  });

  it.each([
    ['360', MOBILE],
    ['1280', DESKTOP],
  ] as const)(
    'hydrates every public page in place at %s px, without a console error or mismatch',
    async (_size, viewport) => {
      // A hydration mismatch is logged as an error (web/src/boot.tsx): useBrowser fails the test on it.
      const page = await browser.newPage(viewport);
      await rememberServerHeading(page);
      for (const path of publicPagePaths()) {
        await page.goto(path);
        expect(await hydratedInPlace(page), `${path}: the server's heading was replaced`).toBe(true);
        // The header's placeholder gives way to the signed-out links once the session is known.
        await page.waitForFunction(
          () => getComputedStyle(document.querySelector('.header-nav')!).visibility === 'visible',
        );
      }
    },
    PAGES_TIMEOUT_MS,
  );

  it(
    "a signed-in customer's header and profile menu fill in after hydration, without a mismatch",
    async () => {
      const { email } = await registeredUser('Meera Iyer', 'prerender');
      for (const viewport of [MOBILE, DESKTOP]) {
        const page = await browser.newPage(viewport);
        await logIn(page, email);
        await rememberServerHeading(page);
        for (const path of MEASURED) {
          await page.goto(path);
          expect(await hydratedInPlace(page), path).toBe(true);
          const profile = page.getByRole('button', { name: 'My Profile' });
          const menu = page.getByRole('button', { name: 'Open menu' });
          await profile.or(menu).first().waitFor();
          if (viewport === MOBILE) await menu.click();
          await profile.waitFor();
          await expect(
            page.getByRole('banner').getByRole('link', { name: 'Register / Login' }).count(),
          ).resolves.toBe(0);
        }
        if (viewport === MOBILE) await screenshot(page, 'prerendered-select-vm-signed-in-360');
      }
    },
    PAGES_TIMEOUT_MS,
  );
});

/**
 * Holds back the page's scripts until `release()`: all of them, or all but the entry (the small
 * script that paints nothing and loads the app, which then holds what is sent for it).
 */
async function holdScripts(page: Page, options: { entry: 'held' | 'runs' }) {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const shell = await (await fetch(`${baseUrl()}/`)).text();
  const entry = /<script type="module"[^>]*src="(\/assets\/[\w.-]+\.js)"/.exec(shell)?.[1];
  expect(entry).toBeDefined();
  await page.route(/\/assets\/.+\.js$/, async (route) => {
    if (options.entry === 'held' || new URL(route.request().url()).pathname !== entry) await held;
    await route.continue();
  });
  return { release };
}

/** The app has not taken the page over (it is still the prerendered HTML, its buttons waiting). */
const notTakenOver = (page: Page) =>
  page.evaluate(() => document.getElementById('root')!.classList.contains('awaiting-app'));

const waitForMail = (to: string, match: (mail: Mail) => boolean): Promise<Mail> =>
  waitFor(`a matching mail to ${to}`, async () => (await mailsTo(to)).find(match), 20_000, 200);

describe.skipIf(!hasBrowser())('input before the app has taken over', () => {
  it('keeps the contact form typed and sent, and the connection check started, at 360 px', async () => {
    const page = await browser.newPage(MOBILE);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' || request.url().includes('/contact-us?'))
        posts.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    const scripts = await holdScripts(page, { entry: 'runs' });
    await page.goto('/contact-us', { waitUntil: 'commit' });
    const send = page.getByRole('button', { name: 'Send Message' });
    // The entry has run (the build's guard on the form lifted); the app has not.
    await page.waitForFunction(() => document.querySelector('[data-awaiting-entry]') === null);
    await expect(send.isEnabled()).resolves.toBe(true);
    expect(await notTakenOver(page)).toBe(true);

    const lastName = `Early${Date.now()}`;
    const field = (name: string) => page.getByRole('textbox', { name, exact: true });
    const type = async (name: string, text: string) => {
      await field(name).click();
      await page.keyboard.type(text);
    };
    await type('First Name', 'Asha');
    await type('Last Name', lastName);
    await page.getByRole('combobox', { name: 'Your field' }).selectOption('Video editing');
    await type('Contact Number', '9876501234');
    await type('Message', 'Typed before the page had loaded its app.');
    await type('Email', 'asha@example.in');
    await screenshot(page, 'prerendered-contact-typed-before-app-360');
    // Sent with Enter, as people do: held for the app, not the browser's own post.
    await page.keyboard.press('Enter');
    expect(await notTakenOver(page)).toBe(true);
    expect(page.url()).toBe(`${baseUrl()}/contact-us`);
    expect(posts).toEqual([]);

    scripts.release();
    await page.getByText(FEEDBACK_MESSAGES.success).waitFor();
    expect(posts).toEqual(['POST /api/feedback']);
    expect(page.url()).toBe(`${baseUrl()}/contact-us`);
    // Sent as typed, every field: the app's state held what the fields showed.
    const mail = await waitForMail('support@legendcloud.in', (m) => m.subject.includes(lastName));
    expect(mail.subject).toBe(`Contact form: Asha ${lastName} (Video editing)`);
    expect(mail.text).toContain('Typed before the page had loaded its app.');
    expect(mail.text).toContain('9876501234');
    await screenshot(page, 'prerendered-contact-sent-after-app-360');

    // The connection check's start, pressed from the keyboard before the app can answer it.
    const check = await browser.newPage(MOBILE);
    const checkScripts = await holdScripts(check, { entry: 'runs' });
    await check.goto('/connection-check', { waitUntil: 'commit' });
    const start = check.getByRole('button', { name: 'Start the check' });
    await start.waitFor();
    await check.waitForFunction(() => typeof document.getElementById('root')?.dataset.modules === 'string');
    await start.focus();
    await check.keyboard.press('Enter');
    expect(await notTakenOver(check)).toBe(true);
    checkScripts.release();
    await check.locator('#check-progress progress').waitFor();
    await check
      .getByRole('heading', { name: 'Your connection to Mumbai (ap-south-1)' })
      .waitFor({ timeout: 45_000 });
    await screenshot(check, 'prerendered-connection-check-started-before-app-360');
  });

  it('keeps what was typed before any script ran, and no Enter before then posts the form', async () => {
    const page = await browser.newPage(MOBILE);
    const scripts = await holdScripts(page, { entry: 'held' });
    await page.goto('/contact-us', { waitUntil: 'commit' });
    const send = page.getByRole('button', { name: 'Send Message' });
    await send.waitFor();
    // No script at all yet: the form cannot be sent by the browser itself.
    await expect(send.isDisabled()).resolves.toBe(true);
    const field = (name: string) => page.getByRole('textbox', { name, exact: true });
    await field('First Name').click();
    await page.keyboard.type('Vikram');
    await field('Message').click();
    await page.keyboard.type('Typed while nothing had run.');
    await field('First Name').click();
    await page.keyboard.press('Enter');
    expect(page.url()).toBe(`${baseUrl()}/contact-us`);

    scripts.release();
    await waitForApp(page);
    await page.waitForFunction(() => !document.getElementById('root')!.classList.contains('awaiting-app'));
    // The app has what was typed: its check finds those two fields filled and the others not.
    await send.click();
    await page.getByText(FEEDBACK_MESSAGES.required).waitFor();
    await expect(field('First Name').inputValue()).resolves.toBe('Vikram');
    await expect(field('First Name').getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(field('Message').getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(field('Last Name').getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshot(page, 'prerendered-contact-typed-before-any-script-360');
  });
});

describe.skipIf(!hasBrowser())('the particle field', () => {
  /** Holds every requestIdleCallback until the test lets it run: the browser is "never idle". */
  async function holdIdleCallbacks(page: Page): Promise<void> {
    await page.addInitScript(() => {
      const held: Array<() => void> = [];
      const w = window as unknown as { releaseIdle: () => void };
      w.releaseIdle = () => held.splice(0).forEach((run) => run());
      window.requestIdleCallback = (callback) => {
        held.push(() => callback({ didTimeout: false, timeRemaining: () => 50 }));
        return held.length;
      };
    });
  }

  const state = (page: Page) => page.locator('canvas.particle-field').getAttribute('data-state');
  it('does not start before the browser is first idle', async () => {
    const page = await browser.newPage(MOBILE);
    // The field is drawn by a worker: none may exist before the browser has been idle.
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));
    await holdIdleCallbacks(page);
    await rememberServerHeading(page);
    await page.goto('/');
    expect(await hydratedInPlace(page)).toBe(true);
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.header-nav')!).visibility === 'visible',
    );
    await expect(state(page)).resolves.toBe('waiting');
    expect(workers).toEqual([]);

    await page.evaluate(() => (window as unknown as { releaseIdle: () => void }).releaseIdle());
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'running');
    await expect.poll(() => workers).toEqual([expect.stringMatching(/particles\.worker/)]);

    // Out of sight it rests, and comes back when scrolled to again.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'paused');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'running');
  });

  it('starts after the page has loaded in a browser without requestIdleCallback', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.addInitScript(() => {
      (window as { requestIdleCallback?: unknown }).requestIdleCallback = undefined;
    });
    await page.goto('/');
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'running');
  });

  /** Pictures of the hero's canvas, `frames` animation frames apart. */
  async function canvasPictures(page: Page, frames: number): Promise<[Buffer, Buffer]> {
    // Only the field: the hero's copy in front of it changes by itself (the rotating tagline).
    await page.evaluate(() =>
      document.querySelectorAll<HTMLElement>('.hero-grid, .motion-toggle').forEach((element) => {
        element.style.opacity = '0';
      }),
    );
    const canvas = page.locator('canvas.particle-field');
    const before = await canvas.screenshot();
    await page.evaluate(async (count) => {
      for (let i = 0; i < count; i++) await new Promise((done) => requestAnimationFrame(done));
    }, frames);
    return [before, await canvas.screenshot()];
  }

  it('moves while running, and under reduced motion draws one still frame', async () => {
    const moving = await browser.newPage(DESKTOP);
    await moving.goto('/');
    await moving.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'running');
    // The dots drift a few pixels a second: within a couple of seconds of frames they have moved.
    const [first, later] = await canvasPictures(moving, 120);
    expect(first.equals(later)).toBe(false);

    const still = await browser.newPage(DESKTOP);
    await still.emulateMedia({ reducedMotion: 'reduce' });
    await still.goto('/');
    await still.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'static');
    // Its one frame is drawn by then or a few frames later (by the worker): then nothing changes.
    const [, drawn] = await canvasPictures(still, 30);
    const [a, b] = await canvasPictures(still, 120);
    expect(drawn.equals(a)).toBe(true);
    expect(a.equals(b)).toBe(true);
    await screenshot(still, 'landing-reduced-motion-1280');
  });
});
