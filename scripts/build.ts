import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { escapeHtml } from '../core/escape.ts';
import { prerenderedFile, publicPagePaths } from '../core/domain/siteRoutes.ts';
import { precompressFile } from './lib/precompress.ts';

/**
 * `npm run build`: the SPA into web/dist (hashed assets, and index.html: the empty shell every
 * signed-in page starts from), then every public page (core/domain/siteRoutes.ts) prerendered
 * to HTML with React's server renderer, so it paints before its JavaScript runs and is hydrated
 * where it stands. A server-side build of web/src/prerender.tsx renders each page into the
 * shell; the web process (api/static.ts) serves each for its own address.
 */

// Always the production bundle and React's production renderer, whatever NODE_ENV the shell has.
process.env.NODE_ENV = 'production';

const WEB = path.resolve(import.meta.dirname, '../web');
const DIST = path.join(WEB, 'dist');
const configFile = path.join(WEB, 'vite.config.ts');
// One year for both builds: the prerendered footer's and the browser's first render must agree.
const define = { __BUILD_YEAR__: JSON.stringify(new Date().getFullYear()) };

await build({ configFile, define });

// The server-side bundle is only run here, never served: it lives in .tmp (inside the checkout,
// so it finds node_modules) and is removed afterwards.
const ssrDir = path.resolve(import.meta.dirname, '../.tmp', `prerender-${process.pid}`);
try {
  await build({
    configFile,
    define,
    logLevel: 'warn',
    build: {
      ssr: 'src/prerender.tsx',
      outDir: ssrDir,
      emptyOutDir: true,
      sourcemap: false,
      copyPublicDir: false,
      minify: false,
    },
  });
  const { renderPage } = (await import(pathToFileURL(path.join(ssrDir, 'prerender.js')).href)) as {
    renderPage: (path: string) => Promise<{ html: string; title: string | undefined }>;
  };
  const shell = await readFile(path.join(DIST, 'index.html'), 'utf8');
  const paths = publicPagePaths();
  for (const page of paths) {
    const { html, title } = await renderPage(page);
    const file = path.join(DIST, prerenderedFile(page));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, fillShell(shell, html, title));
    await precompressFile(file);
  }
  console.log(`prerendered ${paths.length} public pages: ${paths.join(' ')}`);
} finally {
  await rm(ssrDir, { recursive: true, force: true });
}

/** The shell with a page's HTML in #root and its title. */
function fillShell(shell: string, html: string, title: string | undefined): string {
  const root = '<div id="root"></div>';
  if (!shell.includes(root)) throw new Error(`web/dist/index.html has no ${root} to fill`);
  // The CSP runs no inline script (script-src 'self'): a page that needs one would not work.
  if (/<script\b/i.test(html)) throw new Error('a prerendered page contains an inline script');
  // Marked as waiting for the app: its controls take no pointer input until it has taken over
  // (TakenOver in web/src/hydration.ts), so a tap made before then waits rather than being lost.
  let page = shell.replace(root, () => `<div id="root" class="awaiting-app">${html}</div>`);
  if (title) page = page.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
  return page;
}
