import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Middleware } from 'koa';
import serve from 'koa-static';
import { isSitePage, prerenderedFile, publicPagePaths } from '../core/domain/siteRoutes.ts';
import type { AppContext, AppState } from './context.ts';

export const SPA_DIR = path.resolve(import.meta.dirname, '../web/dist');

/**
 * Serves the built SPA: hashed files under /assets cached for a year (source maps only when
 * enabled), everything else
 * revalidated, and for any other GET that wants HTML (never cached): a public page's prerendered
 * HTML at exactly its address (scripts/build.ts), else index.html, the empty shell, so
 * client-side routes survive a reload. A path that is none of the SPA's pages
 * (core/domain/siteRoutes.ts) gets the shell, which shows the app's not-found page, with 404.
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
  // Only these exact addresses: a variant (/SERVICES, /services/) gets the shell, whose first
  // render in the browser is then never compared with HTML made for another address.
  const prerendered = new Map(publicPagePaths().map((page) => [page, path.join(dir, prerenderedFile(page))]));
  return async (ctx, next) => {
    // Source maps give our whole source away: served only when SERVE_SOURCE_MAPS asks.
    if (!options.sourceMaps && ctx.path.endsWith('.map')) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Not found.';
      return;
    }
    let passedOn = false;
    try {
      await files(ctx, () => {
        passedOn = true;
        return next();
      });
    } catch (error) {
      // The file server refuses, before reading anything, a path it will not take for a file
      // name: one whose first segment is empty (`//foo`, an absolute file name to it), an escaped
      // slash or backslash, a drive letter, `..` out of the folder, a bad escape. None names a
      // file of ours, and all but the last are legal paths (RFC 3986 §3.3), so each is answered
      // as any path that names no file: the shell, and 404 unless it is a page. Not a 400 ("your
      // request is malformed") for `//foo`, nor a 403 that tells a prober what it hit.
      if (passedOn || !refusedAsFileName(error)) throw error;
      await next();
    }
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return;
    if (!ctx.accepts('html')) return;
    if (!existsSync(indexFile)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The web app is not built yet. Run `npm run build` (npm start does it for you).';
      return;
    }
    // Read on every navigation (a few kilobytes compressed): a rebuild while the server runs
    // then never leaves pages pointing at hashed assets that no longer exist.
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-cache, no-store, must-revalidate');
    const page = prerendered.get(ctx.path);
    if (page && (await sendPrerendered(ctx, page))) return;
    ctx.status = isSitePage(ctx.path) ? 200 : 404;
    ctx.body = await readFile(indexFile);
  };
}

/** koa-send's refusals of a path as a file name: 400 (malicious path, bad escape), 403 (out of the folder). */
function refusedAsFileName(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 400 || status === 403;
}

/**
 * A prerendered page, brotli or gzip as the browser accepts (written beside it at build). False
 * when the build made none (a plain `vite build`): the shell renders the page in the browser.
 */
async function sendPrerendered(ctx: AppContext, file: string): Promise<boolean> {
  ctx.vary('Accept-Encoding');
  const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
  const compressed =
    encoding === 'br' || encoding === 'gzip'
      ? await readIfExists(`${file}.${encoding === 'br' ? 'br' : 'gz'}`)
      : undefined;
  const body = compressed ?? (await readIfExists(file));
  if (!body) return false;
  ctx.status = 200;
  if (compressed) ctx.set('Content-Encoding', encoding as string);
  ctx.body = body;
  return true;
}

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
