import { describe, expect, it } from 'vitest';
import {
  expectNoHorizontalScroll,
  hasBrowser,
  screenshot,
  useBrowser,
  VIEWPORTS,
  waitForApp,
} from '../support/browser.ts';
import {
  CUSTOMER_PORTS,
  HEALTH_FIELDS,
  MOONLIGHT_DOWNLOADS,
  TROUBLESHOOTING,
} from '../../core/domain/guides.ts';

/**
 * The public guides page, as a gamer finds it from the landing page or the FAQ: which Moonlight
 * to get on each device, every port named, each failure with what to check and a link to the
 * dashboard's health field that shows it; and the pictures of our own screens load.
 */

const browser = useBrowser();

describe.skipIf(!hasBrowser())('the guides page', () => {
  it.each(VIEWPORTS)(
    'at %s px: reached from the landing page and the FAQ, names every port, links every failure to its health field',
    async (width, viewport) => {
      const page = await browser.newPage(viewport);
      await page.goto('/');
      await waitForApp(page);
      const howTo = page.locator('[data-section="how-to-play"]');
      await expect(
        howTo.getByRole('link', { name: 'Check your connection first' }).getAttribute('href'),
      ).resolves.toBe('/connection-check');
      await howTo.getByRole('link', { name: 'Step-by-step guides for every device' }).click();
      await page.waitForURL('**/guides');
      await page.getByRole('heading', { level: 1, name: 'Connect to your cloud PC and play' }).waitFor();

      for (const download of MOONLIGHT_DOWNLOADS) {
        const row = page.locator(`tr[data-os="${download.os}"]`);
        await expect(row.innerText()).resolves.toContain(download.file.slice(0, 20));
        await expect(row.getByRole('link').getAttribute('href')).resolves.toBe(download.url);
      }
      const ports = page.locator('[data-guide="ports"]');
      for (const rule of CUSTOMER_PORTS)
        await expect(ports.locator(`tr[data-port="${rule.protocol} ${rule.ports}"]`).count()).resolves.toBe(
          1,
        );
      for (const needed of ['47984', '47989', '48010', '47998–48000', '8443', '3389'])
        await expect(ports.innerText()).resolves.toContain(needed);

      for (const entry of TROUBLESHOOTING) {
        const failure = page.locator(`#${entry.anchor}`);
        await expect(failure.getByRole('heading', { name: entry.title }).count()).resolves.toBe(1);
        await expect(failure.locator('ol > li').count()).resolves.toBe(entry.checks.length);
        await expect(failure.locator('a[data-health-field]').getAttribute('href')).resolves.toBe(
          `/dashboard#${HEALTH_FIELDS[entry.field].id}`,
        );
      }
      // Every picture of our screens is there and loads (each loads as it comes into view).
      const images = page.locator('.guide-image');
      for (let i = 0; i < (await images.count()); i++) await images.nth(i).scrollIntoViewIfNeeded();
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('.guide-image')].every(
          (img) => img.complete && img.naturalWidth > 0,
        ),
      );
      await expectNoHorizontalScroll(page, viewport.width);
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, `guides-${width}`);
      // The parts at their own size, to look at.
      for (const part of ['downloads', 'ports', 'troubleshooting'] as const)
        await page
          .locator(`[data-guide="${part}"]`)
          .screenshot({ path: `screenshots/guides-${part}-${width}.png` });

      // A failure's own link lands on it.
      await page.goto('/guides#pc-not-found');
      await page.locator('#pc-not-found').waitFor();
      await expect(page.locator('#pc-not-found').isVisible()).resolves.toBe(true);

      // The FAQ links the guides too.
      await page.goto('/services');
      await waitForApp(page);
      await expect(page.locator('.faq-link a[href="/guides"]').count()).resolves.toBeGreaterThan(0);
    },
  );
});
