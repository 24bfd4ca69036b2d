import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshot,
  useBrowser,
  VIEWPORTS,
  waitForApp,
} from '../support/browser.ts';
import { mailsTo, type Mail } from '../support/e2eUsers.ts';
import { waitFor } from '../support/waitFor.ts';
import { HERO_TEXTS, TAGLINES } from '../../core/domain/content/landing.ts';

const browser = useBrowser();

const waitForMail = (to: string, match: (mail: Mail) => boolean): Promise<Mail> =>
  waitFor(`a matching mail to ${to}`, async () => (await mailsTo(to)).find(match), 20_000, 200);

const uniqueEmail = (label: string) => `${label}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.in`;

async function siteFacts(): Promise<{
  contactEmail: string;
  timeToDesktop: { value: string; label: string };
}> {
  const answer = await fetch(`${baseUrl()}/api/site`);
  expect(answer.status).toBe(200);
  const { contactEmail, timeToDesktop } = (await answer.json()) as {
    contactEmail: string;
    timeToDesktop: { value: string; label: string };
  };
  return { contactEmail, timeToDesktop: { value: timeToDesktop.value, label: timeToDesktop.label } };
}

describe.skipIf(!hasBrowser())('landing page', () => {
  it.each(VIEWPORTS)(
    'renders every section at %s px without errors or sideways scrolling',
    async (name, viewport) => {
      const page = await browser.newPage(viewport);
      // The server's figure before the page asks for it: a provision may finish (and be
      // measured) while the page loads, so the page shows this one or the one read after.
      const before = await siteFacts();
      await page.goto('/');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expect(page.getByRole('link', { name: /Start 1 hour trial/ }).getAttribute('href')).resolves.toBe(
        '/trial',
      );
      for (const heading of ['About Legend Cloud', 'Gaming', 'Editing', 'Developing', 'What We Solve']) {
        await expect(page.getByRole('heading', { name: heading, exact: true }).isVisible()).resolves.toBe(
          true,
        );
      }
      await expect(page.locator('.why-card').count()).resolves.toBe(6);
      await expect(page.locator('ol.howto > li').count()).resolves.toBe(6);
      await expect(page.locator('ol.howto > li h3').first().textContent()).resolves.toBe('Select a plan');
      await expect(page.getByRole('button', { name: 'Get in Touch' }).isVisible()).resolves.toBe(true);
      // The contact address and the figure come with the page's own /api/site reading.
      const address = page.getByRole('link', { name: before.contactEmail });
      await address.waitFor();
      const site = await siteFacts();
      // The figure is the server's measurement of real provisions (or its modest wording).
      const stat = page.locator('[data-stat="time-to-desktop"]');
      const shown = {
        value: await stat.locator('strong').textContent(),
        label: await stat.locator('span').textContent(),
      };
      expect([before.timeToDesktop, site.timeToDesktop]).toContainEqual(shown);
      await expect(address.getAttribute('href')).resolves.toBe(`mailto:${site.contactEmail}`);
      const canvas = page.locator('canvas.particle-field');
      await expect(canvas.getAttribute('data-count')).resolves.toBe('250');
      await expect(canvas.getAttribute('aria-hidden')).resolves.toBe('true');
      for (const link of ['Privacy Policy', 'Terms of Service', 'Contact Us', 'Blogs', 'Services', 'Plans']) {
        await expect(page.getByRole('contentinfo').getByRole('link', { name: link }).count()).resolves.toBe(
          1,
        );
      }
      await expectNoHorizontalScroll(page, viewport.width);
      // Let the particles settle into a frame before the picture is taken.
      await page.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'running');
      await screenshot(page, `landing-${name}`);
    },
  );

  it('rotates the tagline every 4 s and the hero text every 8 s without moving anything', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.clock.install();
    await page.goto('/');
    const hero = page.locator('.hero-text');
    const tagline = page.locator('.tagline');
    await hero.waitFor();
    // The page arrives prerendered: its pause button answers once the app has taken over.
    await waitForApp(page);
    const box = async () => {
      const heroBox = await page.locator('.hero').boundingBox();
      const title = await page.locator('.hero-title').boundingBox();
      return { hero: heroBox?.height, title: title?.height };
    };
    const index = async () => ({
      hero: Number(await hero.getAttribute('data-index')),
      tagline: Number(await tagline.getAttribute('data-index')),
    });
    const before = await box();
    // From here the page's clock moves only when the test moves it, so the periods are checked
    // exactly, whatever the load on this machine. Pausing and playing the animation starts both
    // rotations afresh at a known moment.
    await page.clock.pauseAt(Date.now() + 1_000);
    await page.getByRole('button', { name: 'Pause animation' }).click();
    await page.getByRole('button', { name: 'Play animation' }).click();
    await page.getByRole('button', { name: 'Pause animation' }).waitFor();
    const start = await index();
    const heroText = await hero.locator('.is-active').textContent();
    const taglineText = await tagline.locator('.is-active').textContent();
    const next = (i: number, by: number, length: number) => (i + by) % length;
    await page.clock.runFor(3_900);
    await expect(index()).resolves.toEqual(start);
    await page.clock.runFor(200);
    await expect.poll(index).toEqual({ hero: start.hero, tagline: next(start.tagline, 1, TAGLINES.length) });
    await expect(tagline.locator('.is-active').textContent()).resolves.not.toBe(taglineText);
    await page.clock.runFor(3_800);
    await expect(index()).resolves.toEqual({
      hero: start.hero,
      tagline: next(start.tagline, 1, TAGLINES.length),
    });
    await page.clock.runFor(200);
    await expect.poll(index).toEqual({
      hero: next(start.hero, 1, HERO_TEXTS.length),
      tagline: next(start.tagline, 2, TAGLINES.length),
    });
    await expect(hero.locator('.is-active').textContent()).resolves.not.toBe(heroText);
    // Only the visible item is exposed to assistive technology.
    await expect(hero.locator('[aria-hidden="false"]').count()).resolves.toBe(1);
    expect(await box()).toEqual(before);
  });

  it('hides the header while the session check loads', async () => {
    const page = await browser.newPage(DESKTOP);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/auth/session', async (route) => {
      await held;
      await route.fulfill({ status: 200, contentType: 'application/json', body: '{"email":null}' });
    });
    await page.goto('/');
    const nav = page.locator('.header-nav');
    await nav.waitFor({ state: 'attached' });
    await expect(nav.evaluate((el) => getComputedStyle(el).visibility)).resolves.toBe('hidden');
    release();
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.header-nav')!).visibility === 'visible',
    );
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Services' }).isVisible(),
    ).resolves.toBe(true);
  });

  it('stops the particles while the tab is hidden or paused, and keeps them still under reduced motion', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.goto('/');
    const state = () => page.locator('canvas.particle-field').getAttribute('data-state');
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'running');

    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect(state()).resolves.toBe('paused');
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect(state()).resolves.toBe('running');

    const toggle = page.getByRole('button', { name: 'Pause animation' });
    await toggle.click();
    await expect(state()).resolves.toBe('paused');
    await expect(
      page.getByRole('button', { name: 'Play animation' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');

    const still = await browser.newPage(DESKTOP);
    await still.emulateMedia({ reducedMotion: 'reduce' });
    await still.goto('/');
    await still.waitForFunction(() => document.querySelector('canvas')?.dataset.state === 'static');
  });

  it('reveals the contact form, validates it, sends it, and the mail reaches support', async () => {
    const page = await browser.newPage(MOBILE);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/feedback')) posts.push(request.method());
    });
    await page.goto('/');
    // Prerendered: its controls answer once the app has taken the page over.
    await waitForApp(page);
    const reveal = page.getByRole('button', { name: 'Get in Touch' });
    await expect(reveal.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByLabel('First Name').count()).resolves.toBe(0);
    await reveal.click();
    await expect(reveal.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.getByLabel('First Name').waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('name'))).resolves.toBe(
      'firstName',
    );

    await page.getByRole('button', { name: 'Send Message' }).click();
    await page.getByText('Please fill in all six fields.').waitFor();
    // Every problem at once, each field marked, not one at a time.
    for (const label of ['First Name', 'Last Name', 'Your field', 'Contact Number', 'Email', 'Message']) {
      await expect(page.getByLabel(label).getAttribute('aria-invalid'), label).resolves.toBe('true');
    }
    await page
      .getByRole('form', { name: 'Contact form' })
      .screenshot({ path: 'screenshots/landing-contact-errors-360.png' });

    const lastName = `Kapoor${Date.now()}`;
    await page.getByLabel('First Name').fill('Ravi');
    await page.getByLabel('Last Name').fill(lastName);
    await page.getByLabel('Your field').selectOption('Gaming');
    await page.getByLabel('Contact Number').fill('1234567890');
    await page.getByLabel('Email').fill('ravi@example.in');
    await page.getByLabel('Message').fill('Does Ultra Legend run Cyberpunk 2077 at 1080p?');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await page.getByText('Enter a valid 10-digit phone number starting with 6-9.').waitFor();
    await page.getByLabel('Email').fill('ravi@');
    await page.getByLabel('Contact Number').fill('9876501234');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await page.getByText('Enter a valid email address.').waitFor();
    expect(posts).toEqual([]);

    await page.getByLabel('Email').fill('ravi@example.in');
    await screenshot(page, 'landing-contact-form-360');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await page.getByText(/Thank you! Your message has reached our team/).waitFor();
    expect(posts).toEqual(['POST']);
    await expect(page.getByLabel('Last Name').inputValue()).resolves.toBe('');
    await expectNoHorizontalScroll(page, MOBILE.width);

    const mail = await waitForMail('support@legendcloud.in', (m) => m.subject.includes(lastName));
    expect(mail.subject).toBe(`Contact form: Ravi ${lastName} (Gaming)`);
    expect(mail.text).toContain('Cyberpunk 2077');
  });

  it('opens and closes the mobile menu', async () => {
    const page = await browser.newPage(MOBILE);
    await page.goto('/');
    const services = page.getByRole('banner').getByRole('link', { name: 'Services' });
    await page.getByRole('button', { name: 'Open menu' }).waitFor();
    await expect(services.isVisible()).resolves.toBe(false);
    await page.getByRole('button', { name: 'Open menu' }).click();
    await expect(services.isVisible()).resolves.toBe(true);
    await screenshot(page, 'landing-menu-open-360');
    await page.getByRole('button', { name: 'Close menu' }).click();
    await expect(services.isVisible()).resolves.toBe(false);
  });
});

describe.skipIf(!hasBrowser())('services page', () => {
  it.each(VIEWPORTS)(
    'shows plans with catalogue prices, the use cases and the FAQ at %s px',
    async (name, viewport) => {
      const page = await browser.newPage(viewport);
      await page.goto('/services');
      await page.getByRole('heading', { level: 1 }).waitFor();
      const cards = page.locator('.plan-card');
      await expect(cards.count()).resolves.toBe(3);
      await expect(cards.locator('.plan-name').allTextContents()).resolves.toEqual(
        expect.arrayContaining(['LEGEND', 'PRO LEGEND', 'ULTRA LEGEND']),
      );
      await expect(page.locator('.plan-card .plan-price strong').allTextContents()).resolves.toEqual([
        '₹1,450',
        '₹1,899',
        '₹2,299',
      ]);
      const choose = page.getByRole('link', { name: /^Choose (Legend|Pro Legend|Ultra Legend)$/ });
      await expect(choose.count()).resolves.toBeGreaterThanOrEqual(3);
      for (const href of await choose.evaluateAll((links) => links.map((l) => l.getAttribute('href')))) {
        expect(href).toBe('/select-vm');
      }
      await expect(
        page.getByRole('radiogroup', { name: 'Use cases' }).getByRole('radio').count(),
      ).resolves.toBe(10);
      await expect(
        page.getByRole('tablist', { name: 'FAQ topics' }).getByRole('tab').count(),
      ).resolves.toBeGreaterThan(1);
      await expectNoHorizontalScroll(page, viewport.width);
      await screenshot(page, `services-${name}`);
    },
  );

  it('turns a plan card to its prices and back, keeping focus on the card', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.goto('/services');
    // Prerendered: its controls answer once the app has taken the page over.
    await waitForApp(page);
    const legend = page.locator('.plan-legend');
    await legend.getByRole('button', { name: 'See all prices' }).click();
    const back = legend.getByRole('button', { name: 'Back to overview' });
    await page.waitForFunction(() => document.activeElement?.textContent?.includes('Back to overview'));
    await expect(legend.getByRole('cell', { name: '₹3,500.00' }).isVisible()).resolves.toBe(true);
    await back.press('Enter');
    await page.waitForFunction(() => document.activeElement?.textContent?.includes('See all prices'));
  });

  it('moves through the radial use-case picker with the arrow keys', async () => {
    const page = await browser.newPage(MOBILE);
    await page.goto('/services');
    // Prerendered: its controls answer once the app has taken the page over.
    await waitForApp(page);
    const checked = page.getByRole('radiogroup', { name: 'Use cases' }).locator('[aria-checked="true"]');
    await expect(checked.getAttribute('aria-label')).resolves.toBe('Software development');
    await checked.focus();
    await page.keyboard.press('ArrowRight');
    await expect(checked.getAttribute('aria-label')).resolves.toBe('Gaming');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe(
      'Gaming',
    );
    await expect(page.locator('.picker-detail').textContent()).resolves.toContain('ULTRA LEGEND');
    await page.keyboard.press('End');
    await expect(checked.getAttribute('aria-label')).resolves.toBe('Game development');
    await page.keyboard.press('ArrowRight');
    await expect(checked.getAttribute('aria-label')).resolves.toBe('Software development');
    await page.keyboard.press('ArrowLeft');
    await expect(checked.getAttribute('aria-label')).resolves.toBe('Game development');
    await expect(page.locator('.picker-detail').textContent()).resolves.toContain('65 / 90 hours');
  });

  it('switches FAQ tabs with the arrow keys, Home and End', async () => {
    const page = await browser.newPage(DESKTOP);
    await page.goto('/services');
    // Prerendered: its controls answer once the app has taken the page over.
    await waitForApp(page);
    const tabs = page.getByRole('tablist', { name: 'FAQ topics' }).getByRole('tab');
    const count = await tabs.count();
    await tabs.first().focus();
    await page.keyboard.press('ArrowRight');
    await expect(tabs.nth(1).getAttribute('aria-selected')).resolves.toBe('true');
    await expect(tabs.nth(0).getAttribute('tabindex')).resolves.toBe('-1');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('role'))).resolves.toBe('tab');
    const panel = page.getByRole('tabpanel');
    await expect(panel.count()).resolves.toBe(1);
    await expect(panel.textContent()).resolves.toContain('trial');
    await page.keyboard.press('End');
    await expect(tabs.nth(count - 1).getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Home');
    await expect(tabs.nth(0).getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(page.locator('.faq-item[open]').count()).resolves.toBe(1);
  });
});

describe.skipIf(!hasBrowser())('blogs', () => {
  it.each(VIEWPORTS)(
    'shows four posts, no invented testimonials, the trial link and the subscribe form at %s px',
    async (name, viewport) => {
      const page = await browser.newPage(viewport);
      await page.goto('/blogs');
      await page.getByRole('heading', { name: 'Blogs', level: 1 }).waitFor();
      await expect(page.locator('.post-card').count()).resolves.toBe(4);
      await expect(page.locator('.testimonial').count()).resolves.toBe(0);
      await expect(page.getByText('What our users say').count()).resolves.toBe(0);
      await expect(page.getByRole('link', { name: /Start your trial/ }).getAttribute('href')).resolves.toBe(
        '/trial',
      );
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text).toContain('1 hour');
      expect(text).not.toMatch(/30[\s-]*min/i);
      await expect(page.getByRole('button', { name: 'Subscribe' }).isVisible()).resolves.toBe(true);
      await expectNoHorizontalScroll(page, viewport.width);
      await screenshot(page, `blogs-${name}`);
    },
  );

  it('subscribes through the confirm link in the mail, then unsubscribes through the welcome mail', async () => {
    // Opening a used confirm link again is the point: Chromium logs its 400.
    const page = await browser.newPage(MOBILE, { allowConsoleErrors: /status of 400 \(Bad Request\)/ });
    const email = uniqueEmail('reader');
    await page.goto('/blogs');
    // Prerendered: its controls answer once the app has taken the page over.
    await waitForApp(page);
    const input = page.getByLabel('Email address');
    await input.fill('not-an-email');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Enter a valid email address.').waitFor();
    await input.fill(email);
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Almost there! Check your inbox for a link to confirm your subscription.').waitFor();

    const confirmMail = await waitForMail(
      email,
      (m) => m.subject === 'Confirm your Legend Cloud blog subscription',
    );
    const confirmLink = /(https?:\/\/\S+\/subscribe\/confirm\?token=[\w-]+)/.exec(confirmMail.text)?.[1];
    expect(confirmLink).toBeDefined();
    await page.goto(confirmLink!);
    await page.getByRole('button', { name: 'Confirm subscription' }).click();
    await page.getByText('You are subscribed. New posts will reach your inbox.').waitFor();
    await screenshot(page, 'subscribe-confirmed-360');
    await page.reload();
    await page.getByText(/This confirmation link has already been used or has expired/).waitFor();

    const welcome = await waitForMail(email, (m) => m.subject === 'Welcome to the Legend Cloud blog');
    const unsubscribeLink = /(https?:\/\/\S+\/subscribe\/unsubscribe\?token=[\w.-]+)/.exec(welcome.text)?.[1];
    expect(unsubscribeLink).toBeDefined();
    await page.goto(unsubscribeLink!);
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByText('You have been unsubscribed. You will get no more blog emails from us.').waitFor();
  });

  it('shows a post, and for an unknown id the message and a link back to the blog', async () => {
    // An unknown id answers 404 (Chromium logs the document's status as a console error).
    const page = await browser.newPage(MOBILE, { allowConsoleErrors: /status of 404 \(Not Found\)/ });
    await page.goto('/BlogPostPage/3');
    await page
      .getByRole('heading', { level: 1, name: 'From payment to desktop: connecting in six steps' })
      .waitFor();
    await expect(page.locator('.article-body p').count()).resolves.toBeGreaterThan(2);
    await expectNoHorizontalScroll(page, MOBILE.width);

    await page.goto('/BlogPostPage/does-not-exist');
    await page.getByRole('heading', { name: 'Sorry, article not found.' }).waitFor();
    await page.getByRole('link', { name: 'Back to blogs' }).click();
    await page.waitForURL('**/blogs');
    await page.getByRole('heading', { name: 'Blogs', level: 1 }).waitFor();
  });
});

describe.skipIf(!hasBrowser())('static pages', () => {
  it.each(VIEWPORTS)('show the privacy policy, terms and contact page at %s px', async (name, viewport) => {
    const page = await browser.newPage(viewport);
    await page.goto('/privacy-policy');
    await page.getByRole('heading', { name: 'Privacy Policy', level: 1 }).waitFor();
    await expect(page.getByRole('heading', { name: /Your rights/ }).isVisible()).resolves.toBe(true);
    await expectNoHorizontalScroll(page, viewport.width);

    await page.goto('/terms-of-service');
    await page.getByRole('heading', { name: 'Terms of Service', level: 1 }).waitFor();
    // The refund table comes from the server's policy, a moment after the page.
    await page.getByText('Days 1–2').first().waitFor();
    const terms = (await page.locator('main').textContent()) ?? '';
    expect(terms).toContain('Days 1–2');
    expect(terms).toContain('70% of the price');
    expect(terms).toContain('Day 9 onwards');
    expect(terms).toContain('₹200');
    expect(terms).toContain('about 5 minutes');
    expect(terms).toContain('1 hour');
    await expectNoHorizontalScroll(page, viewport.width);
    await screenshot(page, `terms-${name}`);

    await page.goto('/contact-us');
    await page.getByRole('heading', { name: 'Contact Us', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'hello@legendcloud.in' }).waitFor();
    await expect(page.getByRole('button', { name: 'Send Message' }).isVisible()).resolves.toBe(true);
    await expectNoHorizontalScroll(page, viewport.width);
    await screenshot(page, `contact-us-${name}`);
  });
});
