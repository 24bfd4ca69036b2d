import { describe, expect, it } from 'vitest';
import { BLOG_POSTS } from './content/blog.ts';
import { isSitePage, prerenderedFile, publicPagePaths, sitemapPaths, SITE_ROUTES } from './siteRoutes.ts';

describe('the SPA pages the server knows', () => {
  it('answers every listed page, as the router matches it (any case, a trailing slash)', () => {
    for (const route of SITE_ROUTES) {
      if (route.path.includes(':')) continue;
      expect(isSitePage(route.path), route.path).toBe(true);
    }
    expect(isSitePage('/SERVICES')).toBe(true);
    expect(isSitePage('/services/')).toBe(true);
    expect(isSitePage('/refund-policy')).toBe(true);
  });

  it('calls anything else not a page: unknown paths, deeper paths, files', () => {
    for (const path of ['/nope', '/services/extra', '/robots', '/favicon.png', '/dashboard/x', '/%E0%A4%A']) {
      expect(isSitePage(path), path).toBe(false);
    }
  });

  it('knows a blog post by its id: an unknown id is not a page', () => {
    const [first] = BLOG_POSTS;
    expect(isSitePage(`/BlogPostPage/${first!.id}`)).toBe(true);
    expect(isSitePage('/BlogPostPage/999')).toBe(false);
    expect(isSitePage('/BlogPostPage/')).toBe(false);
  });

  it('lists the public pages and every blog post in the sitemap, never a signed-in page', () => {
    const paths = sitemapPaths();
    expect(paths).toEqual(
      expect.arrayContaining([
        '/',
        '/services',
        '/select-vm',
        '/blogs',
        '/refund-policy',
        '/connection-check',
        ...BLOG_POSTS.map((p) => `/BlogPostPage/${p.id}`),
      ]),
    );
    for (const path of ['/dashboard', '/history', '/invoice', '/payment', '/login']) {
      expect(paths).not.toContain(path);
    }
    for (const path of paths) expect(isSitePage(path), path).toBe(true);
  });

  it('keeps the prerendered HTML of each public page in a file of its own, inside the folder', () => {
    const files = publicPagePaths().map(prerenderedFile);
    expect(new Set(files).size).toBe(files.length);
    expect(prerenderedFile('/')).toBe('.prerendered/index.html');
    expect(prerenderedFile('/services')).toBe('.prerendered/services.html');
    for (const file of files) {
      expect(file, file).toMatch(/^\.prerendered(\/[\w%-]+)+\.html$/);
      expect(file.split('/'), file).not.toContain('..');
    }
  });
});
