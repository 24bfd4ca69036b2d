/**
 * Every page address the SPA answers, in one list the SPA's router (web/src/routes.tsx) and the
 * server (the 404 status of unknown paths, /sitemap.xml) both read, so the two cannot disagree.
 * Patterns are matched by `regexparam`, the parser wouter itself uses, with wouter's reading of a
 * path (percent-escapes decoded), so a path the server calls a page is one the router shows.
 */
import { parse } from 'regexparam';
import { BLOG_POSTS, findBlogPost } from './content/blog.ts';

type SiteRouteDef = {
  path: string;
  /** A public page: listed in /sitemap.xml and prerendered to HTML at build (publicPagePaths). */
  inSitemap?: boolean;
  /** For a pattern with parameters: whether these name something that exists (else the page is a 404). */
  exists?: (params: Record<string, string>) => boolean;
  /** For a pattern with parameters in the sitemap: every concrete path it has. */
  sitemapPaths?: () => string[];
};

export const SITE_ROUTES = [
  { path: '/', inSitemap: true },
  { path: '/services', inSitemap: true },
  { path: '/register' },
  { path: '/register/otp' },
  { path: '/login' },
  { path: '/forgot-password' },
  { path: '/reset-password' },
  { path: '/auth/google/callback' },
  { path: '/account/security' },
  { path: '/dashboard' },
  { path: '/select-vm', inSitemap: true },
  { path: '/trial', inSitemap: true },
  { path: '/payment' },
  { path: '/payment-success' },
  { path: '/payment-failure' },
  { path: '/progress' },
  { path: '/blogs', inSitemap: true },
  {
    path: '/BlogPostPage/:id',
    inSitemap: true,
    exists: (params) => findBlogPost(params.id ?? '') !== undefined,
    sitemapPaths: () => BLOG_POSTS.map((post) => `/BlogPostPage/${encodeURIComponent(post.id)}`),
  },
  { path: '/report-problem' },
  { path: '/history' },
  { path: '/invoice' },
  { path: '/credit-note' },
  { path: '/privacy-policy', inSitemap: true },
  { path: '/terms-of-service', inSitemap: true },
  { path: '/refund-policy', inSitemap: true },
  { path: '/contact-us', inSitemap: true },
  // Before buying: the visitor's round trip, jitter and speed to the machines' region.
  { path: '/connection-check', inSitemap: true },
  // How to connect and play from every device, the ports, and what to check when something fails.
  { path: '/guides', inSitemap: true },
  // The links in blog subscription mails (double opt-in).
  { path: '/subscribe/confirm' },
  { path: '/subscribe/unsubscribe' },
] as const satisfies readonly SiteRouteDef[];

/** A page address of the SPA: web/src/routes.tsx may only route these. */
export type SitePath = (typeof SITE_ROUTES)[number]['path'];

const COMPILED = SITE_ROUTES.map((route: SiteRouteDef) => ({ route, ...parse(route.path) }));

/** A path as wouter reads it: percent-escapes decoded, or as written when they do not decode. */
function routerPath(pathname: string): string {
  if (!pathname.includes('%')) return pathname;
  try {
    return decodeURI(pathname);
  } catch {
    // wouter shows such a path as written; so do we (it then matches no page and is a 404).
    return pathname;
  }
}

/**
 * Whether a path is one of the SPA's pages that exists: matched as the router matches it, and for a
 * pattern with parameters (a blog post) the thing it names exists. Anything else is answered 404.
 */
export function isSitePage(pathname: string): boolean {
  const path = routerPath(pathname);
  for (const { route, pattern, keys } of COMPILED) {
    const match = pattern.exec(path);
    if (!match) continue;
    if (!route.exists) return true;
    const params: Record<string, string> = {};
    if (keys) keys.forEach((key, i) => (params[key] = match[i + 1] ?? ''));
    // The first matching route is the one the router's Switch renders.
    return route.exists(params);
  }
  return false;
}

/** Every public page's path for /sitemap.xml, in the list's order. */
export function sitemapPaths(): string[] {
  return SITE_ROUTES.flatMap((route: SiteRouteDef) =>
    !route.inSitemap ? [] : route.sitemapPaths ? route.sitemapPaths() : [route.path],
  );
}

/**
 * The public pages (those in the sitemap), each a concrete path: prerendered to HTML at build
 * (scripts/build.ts) and served as that HTML for exactly that path (api/static.ts), so they paint
 * before their JavaScript runs.
 */
export function publicPagePaths(): string[] {
  return sitemapPaths();
}

/**
 * Where a public page's prerendered HTML is kept, relative to the built SPA's folder: in a dot
 * folder, which the static file server never serves, so each page is answered at its own address
 * only.
 */
export function prerenderedFile(path: string): string {
  return `.prerendered/${path === '/' ? 'index' : path.slice(1)}.html`;
}
