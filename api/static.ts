import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Middleware } from 'koa';
import serve from 'koa-static';
import { isSitePage } from '../core/domain/siteRoutes.ts';
import type { AppState } from './context.ts';

export const SPA_DIR = path.resolve(import.meta.dirname, '../web/dist');

/**
 * Serves the built SPA: hashed files under /assets cached for a year (source maps only when
 * enabled), everything else
 * revalidated, and index.html (never cached) for any other GET that wants HTML, so
 * client-side routes survive a reload. A path that is none of the SPA's pages
 * (core/domain/siteRoutes.ts) gets the same page, which shows the app's not-found page, with 404.
 */
export function spa(dir = SPA_DIR, options: { sourceMaps?: boolean } = {}): Middleware<AppState> {
  const files = serve(dir, {
    index: false,
    gzip: true,
    brotli: true,
    setHeaders(res, filePath) {
      // The same URL is served as .br, .gz or plain by Accept-Encoding: caches must key on it.
      res.setHeader('Vary', 'Accept-Encoding');
      const relative = path.relative(dir, filePath);
      res.setHeader(
        'Cache-Control',
        relative.startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  }) as unknown as Middleware<AppState>;
  const indexFile = path.join(dir, 'index.html');
  return async (ctx, next) => {
    // Source maps give our whole source away: served only when SERVE_SOURCE_MAPS asks.
    if (!options.sourceMaps && ctx.path.endsWith('.map')) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Not found.';
      return;
    }
    await files(ctx, next);
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return;
    if (!ctx.accepts('html')) return;
    if (!existsSync(indexFile)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The web app is not built yet. Run `npm run build` (npm start does it for you).';
      return;
    }
    // Read on every navigation (it is under a kilobyte): a rebuild while the server runs then
    // never leaves pages pointing at hashed assets that no longer exist.
    ctx.status = isSitePage(ctx.path) ? 200 : 404;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-cache, no-store, must-revalidate');
    ctx.body = await readFile(indexFile);
  };
}
