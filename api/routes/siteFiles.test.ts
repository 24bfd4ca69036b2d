import { describe, expect, it } from 'vitest';
import { sitemapPaths } from '../../core/domain/siteRoutes.ts';
import { robotsTxt, sitemapXml } from './siteFiles.ts';

describe('robots.txt and sitemap.xml', () => {
  it('robots.txt names the sitemap by its absolute address and keeps crawlers off the API', () => {
    const text = robotsTxt('https://legendcloud.in');
    expect(text).toMatch(/^User-agent: \*$/m);
    expect(text).toMatch(/^Disallow: \/api\/$/m);
    expect(text).toMatch(/^Sitemap: https:\/\/legendcloud\.in\/sitemap\.xml$/m);
  });

  it('the sitemap lists every public page once, absolute under PUBLIC_URL', () => {
    const xml = sitemapXml('https://legendcloud.in');
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toEqual(sitemapPaths().map((p) => `https://legendcloud.in${p}`));
    expect(new Set(locs).size).toBe(locs.length);
    expect(xml).toContain('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"');
  });
});
