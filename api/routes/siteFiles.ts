import Router from '@koa/router';
import { sitemapPaths } from '../../core/domain/siteRoutes.ts';
import { escapeHtml } from '../../core/escape.ts';
import type { AppState } from '../context.ts';

/**
 * The files every site has, beside the SPA: /robots.txt (naming the sitemap) and /sitemap.xml of
 * the public pages (core/domain/siteRoutes.ts), with absolute addresses under PUBLIC_URL.
 * Both are built once: they change only with a deploy.
 */
export function siteFileRoutes(publicUrl: string): Router<AppState> {
  const robots = robotsTxt(publicUrl);
  const sitemap = sitemapXml(publicUrl);
  const router = new Router<AppState>();
  router.get('/robots.txt', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = robots;
  });
  router.get('/sitemap.xml', (ctx) => {
    ctx.type = 'application/xml; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = sitemap;
  });
  return router;
}

/** Crawlers may read every page; the API and the signed-in pages say nothing to a search engine. */
export function robotsTxt(publicUrl: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    'Disallow: /api/',
    'Disallow: /dashboard',
    'Disallow: /history',
    'Disallow: /invoice',
    'Disallow: /credit-note',
    'Disallow: /payment',
    'Disallow: /progress',
    'Disallow: /account/',
    '',
    `Sitemap: ${publicUrl}/sitemap.xml`,
    '',
  ].join('\n');
}

/** The sitemaps.org protocol: one <url><loc> per public page, absolute. */
export function sitemapXml(publicUrl: string): string {
  const urls = sitemapPaths().map((path) => `  <url><loc>${escapeHtml(`${publicUrl}${path}`)}</loc></url>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    '</urlset>',
    '',
  ].join('\n');
}
