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
} from '../support/browser.ts';
import { BLOG_POSTS } from '../../core/domain/content/blog.ts';

/**
 * The files every site has: /robots.txt naming the sitemap, /sitemap.xml of the public pages,
 * a real favicon; unknown paths answer 404 and still show the app's not-found page; the refund
 * policy has a page of its own, linked in the footer.
 */
const browser = useBrowser();

describe.skipIf(!hasBrowser())('site files', () => {
  it('robots.txt is plain text naming the sitemap; the sitemap lists the public pages by absolute address', async () => {
    const robots = await fetch(`${baseUrl()}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await robots.text();
    expect(text).toContain(`Sitemap: ${baseUrl()}/sitemap.xml`);

    const sitemap = await fetch(`${baseUrl()}/sitemap.xml`);
    expect(sitemap.status).toBe(200);
    expect(sitemap.headers.get('content-type')).toMatch(/xml/);
    const locs = [...(await sitemap.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    expect(locs).toEqual(
      expect.arrayContaining([
        `${baseUrl()}/`,
        `${baseUrl()}/services`,
        `${baseUrl()}/select-vm`,
        `${baseUrl()}/blogs`,
        `${baseUrl()}/refund-policy`,
        `${baseUrl()}/BlogPostPage/${BLOG_POSTS[0]!.id}`,
      ]),
    );
    // Every listed page is a page: 200, HTML.
    for (const loc of locs) {
      const page = await fetch(loc, { headers: { accept: 'text/html' } });
      expect(page.status, loc).toBe(200);
    }
  });

  it('serves a real favicon, and the page names it', async () => {
    const icon = await fetch(`${baseUrl()}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/icon/);
    const bytes = new Uint8Array(await icon.arrayBuffer());
    // An ICO file: reserved 0, type 1, then the number of images (16, 32 and 48 px).
    expect([...bytes.slice(0, 6)]).toEqual([0, 0, 1, 0, 3, 0]);
    const touch = await fetch(`${baseUrl()}/apple-touch-icon.png`);
    expect(touch.headers.get('content-type')).toBe('image/png');
    const page = await browser.newPage(DESKTOP);
    await page.goto('/');
    await expect(page.locator('link[rel="icon"][href="/favicon.ico"]').count()).resolves.toBe(1);
    await expect(page.locator('link[rel="apple-touch-icon"]').count()).resolves.toBe(1);
  });

  it('an unknown path answers 404 and shows the not-found page; so does a blog post that does not exist', async () => {
    for (const [viewport, size] of [
      [MOBILE, 360],
      [DESKTOP, 1280],
    ] as const) {
      // Chromium logs the document's own 404 as a console error: here it is the point.
      const page = await browser.newPage(viewport, { allowConsoleErrors: /status of 404 \(Not Found\)/ });
      const missing = await page.goto('/no/such/page');
      expect(missing?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await expectNoHorizontalScroll(page, viewport.width);
      await screenshot(page, `site-not-found-${size}`);

      const post = await page.goto('/BlogPostPage/999');
      expect(post?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Sorry, article not found.' }).waitFor();
      if (size === 360) await screenshot(page, 'site-article-not-found-360');
      expect((await page.goto(`/BlogPostPage/${BLOG_POSTS[0]!.id}`))?.status()).toBe(200);
      await page.close();
    }
  });

  it('the footer links the refund policy page: the Terms text and the configured figures', async () => {
    const policy = (await (await fetch(`${baseUrl()}/api/refund-policy`)).json()) as {
      rows: Array<{ days: string; percent: number }>;
      failedDebitReturnDays: number;
    };
    for (const [viewport, size] of [
      [MOBILE, 360],
      [DESKTOP, 1280],
    ] as const) {
      const page = await browser.newPage(viewport);
      await page.goto('/');
      // The footer's link then moves within the app, as a visitor's click does once it has loaded.
      await waitForApp(page);
      await page.getByRole('contentinfo').getByRole('link', { name: 'Refund Policy' }).click();
      await page.waitForURL('**/refund-policy');
      await page.getByRole('heading', { name: 'Refund Policy', level: 1 }).waitFor();
      const table = page.getByRole('table');
      for (const row of policy.rows) await table.getByRole('rowheader', { name: row.days }).waitFor();
      await page
        .getByText(`it is returned automatically within ${policy.failedDebitReturnDays} days`)
        .waitFor();
      await expectNoHorizontalScroll(page, viewport.width);
      await screenshot(page, `site-refund-policy-${size}`);
      // The Terms print the same words and table, and point here.
      await page.goto('/terms-of-service#refunds');
      await page.getByRole('link', { name: 'refund policy', exact: true }).waitFor();
      // The table's figures are configuration, fetched once the prerendered page is hydrated.
      const termsRows = page.locator('#refunds table.refund-table tbody tr');
      await termsRows.nth(policy.rows.length - 1).waitFor();
      await expect(termsRows.count()).resolves.toBe(policy.rows.length);
      await page.close();
    }
  });
});
