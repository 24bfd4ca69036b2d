import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';
import pngToIco from 'png-to-ico';
import { findChromium } from '../tests/support/browserPath.ts';

/**
 * Makes the site's icons from its logo (web/public/favicon.svg, the mark the header draws):
 * favicon.ico (16, 32 and 48 px, for browsers and crawlers that ask for /favicon.ico) and
 * apple-touch-icon.png (180 px). Chromium draws the SVG at each size, so the small sizes are
 * rendered, not scaled down; png-to-ico packs them. Run it after changing the logo:
 * `node scripts/favicon.ts`, then commit web/public.
 */
const PUBLIC = path.resolve(import.meta.dirname, '../web/public');
const ICO_SIZES = [16, 32, 48];
const TOUCH_SIZE = 180;

const executablePath = findChromium();
if (!executablePath) throw new Error('No Chromium found: set CHROME_PATH.');
const svg = await readFile(path.join(PUBLIC, 'favicon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  async function render(size: number, background = 'transparent'): Promise<Buffer> {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(
      `<html><body style="margin:0;background:${background}"><img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="${size}" height="${size}" style="display:block"></body></html>`,
    );
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    return page.screenshot({ omitBackground: background === 'transparent', type: 'png' });
  }
  const icons = [];
  for (const size of ICO_SIZES) icons.push(await render(size));
  await writeFile(path.join(PUBLIC, 'favicon.ico'), await pngToIco(icons));
  // iOS shows touch icons on its own rounded square: no transparency, the logo's own dark ground.
  await writeFile(path.join(PUBLIC, 'apple-touch-icon.png'), await render(TOUCH_SIZE, '#0b1020'));
  console.log(`wrote favicon.ico (${ICO_SIZES.join(', ')} px) and apple-touch-icon.png (${TOUCH_SIZE} px)`);
} finally {
  await browser.close();
}
