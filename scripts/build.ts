import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'regexparam';
import { build } from 'vite';
import { escapeHtml } from '../core/escape.ts';
import { prerenderedFile, publicPagePaths } from '../core/domain/siteRoutes.ts';
import { kb, LANDING_JS_BUDGET_BYTES, measureLanding } from './lib/landingWeight.ts';
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

// What each page needs first, from Vite's manifest of the build: the app (web/src/boot.tsx and
// what it imports) for every page, and for a prerendered page its own route's code and styles.
// The entry preloads them all at once after the first paint (web/src/main.tsx), where each import
// would otherwise be found only once the one before it had arrived and run.
const manifest = JSON.parse(await readFile(path.join(DIST, '.vite/manifest.json'), 'utf8')) as Manifest;
// The entry (index.html's script, web/src/main.tsx) loads the app with one dynamic import; it is
// itself loaded already, whatever imports it back.
const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
const app = chunkClosure(manifest, entry?.dynamicImports ?? [], `/${entry?.file}`);
if (app.js.length === 0) throw new Error('the build has no app chunk loaded by web/src/main.tsx');
const routeModules = await routePageModules(path.join(WEB, 'src/routes.tsx'));
const shellPath = path.join(DIST, 'index.html');
await writeFile(shellPath, withModules(await readFile(shellPath, 'utf8'), app.js));
await precompressFile(shellPath);

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
  const unlisted: string[] = [];
  for (const page of paths) {
    const { html, title } = await renderPage(page);
    const file = path.join(DIST, prerenderedFile(page));
    const module = routeModules.find((route) => route.pattern.test(page))?.module;
    if (!module) unlisted.push(page);
    const own = module ? chunkClosure(manifest, [module], `/${entry?.file}`) : { js: [], css: [] };
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, fillShell(withModules(shell, [...app.js, ...own.js], own.css), html, title));
    await precompressFile(file);
  }
  console.log(`prerendered ${paths.length} public pages: ${paths.join(' ')}`);
  // Still served and working; only its code arrives a step later. Said, so it gets fixed.
  if (unlisted.length > 0)
    console.warn(
      `no route module found in web/src/routes.tsx for ${unlisted.join(' ')}: its code is not preloaded ` +
        "(write its route as `{ path: '…', component: lazy(() => import('./pages/….tsx')) }`)",
    );
} finally {
  await rm(ssrDir, { recursive: true, force: true });
}

// The landing page's first load stays within its budget: past it, the build fails (what is
// counted, and `npm run bench -- bundle` for every file: scripts/lib/landingWeight.ts).
const landing = await measureLanding();
if (landing.jsGzip > LANDING_JS_BUDGET_BYTES) {
  console.error(
    `the landing page's initial JS is ${kb(landing.jsGzip)} gzip, over its ${kb(LANDING_JS_BUDGET_BYTES)} budget: ` +
      'load what it does not need to show and hydrate the page lazily (npm run bench -- bundle lists every file)',
  );
  process.exit(1);
}
console.log(
  `landing page's initial JS: ${kb(landing.jsGzip)} gzip of its ${kb(LANDING_JS_BUDGET_BYTES)} budget`,
);

type Manifest = Record<
  string,
  { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[]; css?: string[] }
>;

/** The files of `keys`' chunks and of every chunk they import statically (but `loaded`), and their styles. */
function chunkClosure(manifest: Manifest, keys: string[], loaded?: string): { js: string[]; css: string[] } {
  const seen = new Set<string>();
  const js: string[] = [];
  const css: string[] = [];
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`Vite's manifest has no chunk ${key}`);
    if (`/${chunk.file}` !== loaded) js.push(`/${chunk.file}`);
    css.push(...(chunk.css ?? []).map((file) => `/${file}`));
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  keys.forEach(visit);
  return { js, css };
}

/**
 * Each route of web/src/routes.tsx written `{ path: '…', component: lazy(() => import('./pages/….tsx')) }`:
 * its path as the router matches it and its page's key in Vite's manifest.
 */
async function routePageModules(file: string): Promise<Array<{ pattern: RegExp; module: string }>> {
  const source = await readFile(file, 'utf8');
  const routes = [
    ...source.matchAll(
      /\{\s*path:\s*'([^']+)',\s*component:\s*lazy\(\(\)\s*=>\s*import\('\.\/(pages\/[^']+)'\)\)/g,
    ),
  ];
  return routes.map(([, route, page]) => ({ pattern: parse(route!).pattern, module: `src/${page}` }));
}

/**
 * The shell with the modules a page needs listed on #root (`data-modules`, read by
 * web/src/main.tsx) and its route's own styles linked beside the app's, so a prerendered page
 * that has some paints with them.
 */
function withModules(shell: string, modules: string[], styles: string[] = []): string {
  const root = /<div id="root"( data-modules="[^"]*")?><\/div>/;
  if (!root.test(shell)) throw new Error('web/dist/index.html has no <div id="root"></div> to fill');
  const links = styles
    .filter((href) => !shell.includes(`href="${href}"`))
    .map((href) => `<link rel="stylesheet" crossorigin href="${escapeHtml(href)}">`)
    .join('');
  return shell
    .replace(
      root,
      () => `<div id="root" data-modules="${escapeHtml([...new Set(modules)].join(' '))}"></div>`,
    )
    .replace('</head>', () => `${links}</head>`);
}

/**
 * A page's forms cannot be sent by the browser itself: each submit button is disabled (which
 * also stops Enter in a field from sending its form) and marked, until the entry script runs,
 * enables it again and holds whatever is sent for the app (web/src/earlyInput.ts). Without it a
 * form sent in the moment before was the browser's own full-page post, its fields in the address.
 */
function withoutNativeSubmit(html: string): string {
  return html.replace(/<button\b([^>]*\btype="submit"[^>]*)>/g, (button, attributes: string) =>
    /\bdisabled\b/.test(attributes) ? button : `<button${attributes} disabled="" data-awaiting-entry="">`,
  );
}

/** The shell with a page's HTML in #root and its title. */
function fillShell(shell: string, html: string, title: string | undefined): string {
  const root = /<div id="root"( data-modules="[^"]*")><\/div>/;
  if (!root.test(shell))
    throw new Error('web/dist/index.html has no <div id="root" data-modules="…"></div> to fill');
  // The CSP runs no inline script (script-src 'self'): a page that needs one would not work.
  if (/<script\b/i.test(html)) throw new Error('a prerendered page contains an inline script');
  // Marked as waiting for the app: its controls take no pointer input until it has taken over
  // (TakenOver in web/src/hydration.ts), so a tap made before then waits rather than being lost.
  let page = shell.replace(
    root,
    (_, modules: string) =>
      `<div id="root"${modules} class="awaiting-app">${withoutNativeSubmit(html)}</div>`,
  );
  if (title) page = page.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
  return page;
}
