import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fmtRatio, record } from './bench/lib.ts';

/**
 * The landing page's first-load weight (the budget: initial JS under 100 KB gzip).
 *
 * What a browser fetches for the landing page to work: index.html's module script, its
 * modulepreloads, what they import statically or the entry loads at once (the shell), plus the lazily loaded
 * Landing route chunk and its own static imports (the route). Other pages' chunks and
 * anything behind a later dynamic import (e.g. the contact form) are not counted.
 *
 * `node scripts/bench-bundle.ts` reads web/dist (building it first if missing);
 * `--build` always rebuilds. Prints figures only; it never fails on a size.
 */

const LANDING_JS_BUDGET_BYTES = 100_000;
const DIST = path.resolve(import.meta.dirname, '../web/dist');
const ROUTE_CHUNK = /^Landing-[\w-]+\.js$/;

type Asset = { file: string; raw: number; gzip: number; brotli: number };

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

async function measure(file: string): Promise<Asset> {
  const data = await readFile(path.join(DIST, file));
  return {
    file,
    raw: data.length,
    gzip: gzipSync(data, { level: 9 }).length,
    brotli: brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

/** Relative specifiers of a built chunk's static imports (`import{a}from"./x.js"`, `import"./x.js"`). */
function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(
    /\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'`](\.{1,2}\/[^"'`]+\.js)["'`]/g,
  )) {
    found.add(match[1]!);
  }
  for (const match of code.matchAll(/\bexport\s*[\w$*{}\s,]*?from\s*["'`](\.{1,2}\/[^"'`]+\.js)["'`]/g)) {
    found.add(match[1]!);
  }
  return [...found];
}

/** Relative specifiers of a chunk's dynamic imports (`import("./x.js")`). */
function dynamicImports(code: string): string[] {
  return [...code.matchAll(/\bimport\(\s*["'`](\.{1,2}\/[^"'`]+\.js)["'`]\s*\)/g)].map((m) => m[1]!);
}

/** `file` (relative to dist) and every chunk it imports statically, transitively, minus `known`. */
async function closure(files: string[], known: Set<string>): Promise<string[]> {
  const order: string[] = [];
  const queue = [...files];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (known.has(file)) continue;
    known.add(file);
    order.push(file);
    const code = await readFile(path.join(DIST, file), 'utf8');
    for (const spec of staticImports(code)) {
      queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
    }
  }
  return order;
}

function attribute(html: string, tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}=["']([^"']+)["']`).exec(tag)?.[1];
}

function tags(html: string, element: string): string[] {
  return [...html.matchAll(new RegExp(`<${element}\\b[^>]*>`, 'g'))].map((m) => m[0]);
}

const toDistPath = (href: string) => href.replace(/^\//, '');

async function measureLanding(): Promise<{
  shell: Asset[];
  route: Asset[];
  css: Asset[];
  jsGzip: number;
  cssGzip: number;
  precompressed: boolean;
}> {
  const html = await readFile(path.join(DIST, 'index.html'), 'utf8');
  const entries = tags(html, 'script')
    .filter((tag) => attribute(html, tag, 'type') === 'module')
    .map((tag) => attribute(html, tag, 'src'))
    .filter((src): src is string => Boolean(src));
  const preloads = tags(html, 'link')
    .filter((tag) => attribute(html, tag, 'rel') === 'modulepreload')
    .map((tag) => attribute(html, tag, 'href'))
    .filter((href): href is string => Boolean(href));
  const styles = tags(html, 'link')
    .filter((tag) => attribute(html, tag, 'rel') === 'stylesheet')
    .map((tag) => attribute(html, tag, 'href'))
    .filter((href): href is string => Boolean(href));
  if (entries.length === 0) throw new Error('web/dist/index.html has no module script');

  const known = new Set<string>();
  const shellFiles = await closure([...entries, ...preloads].map(toDistPath), known);
  // The entry is small and loads the app itself at once (web/src/main.tsx; on a prerendered page
  // after its first paint): what it imports dynamically is the shell too.
  for (const file of [...shellFiles]) {
    const code = await readFile(path.join(DIST, file), 'utf8');
    for (const spec of dynamicImports(code)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      shellFiles.push(...(await closure([target], known)));
    }
  }

  let routeEntry: string | undefined;
  for (const file of shellFiles) {
    const code = await readFile(path.join(DIST, file), 'utf8');
    const target = dynamicImports(code).find((spec) => ROUTE_CHUNK.test(path.posix.basename(spec)));
    if (target) routeEntry = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
  }
  if (!routeEntry) throw new Error('no lazy Landing-*.js route chunk found in the shell');
  const routeFiles = await closure([routeEntry], known);

  const shell = await Promise.all(shellFiles.map(measure));
  const route = await Promise.all(routeFiles.map(measure));
  const css = await Promise.all(styles.map(toDistPath).map(measure));
  const sum = (assets: Asset[]) => assets.reduce((total, asset) => total + asset.gzip, 0);
  return {
    shell,
    route,
    css,
    jsGzip: sum(shell) + sum(route),
    cssGzip: sum(css),
    precompressed: existsSync(path.join(DIST, `${shellFiles[0]}.gz`)),
  };
}

function build(): void {
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    stdio: 'inherit',
    cwd: path.resolve(DIST, '../..'),
  });
  if (result.status !== 0) throw new Error('npm run build failed');
}

/** For `npm run bench` (scripts/bench.ts): builds when web/dist is missing, then prints. */
export async function benchBundle(options: { rebuild?: boolean } = {}): Promise<void> {
  if (options.rebuild || !existsSync(path.join(DIST, 'index.html'))) build();
  const result = await measureLanding();
  const line = (asset: Asset) =>
    `    ${asset.file.padEnd(44)} ${kb(asset.gzip).padStart(9)} gzip ${kb(asset.brotli).padStart(9)} br ${kb(asset.raw).padStart(10)} raw`;
  console.log("\n== bundle: the landing page's first load (web/dist)");
  console.log('  shell (index.html module script + modulepreloads + static imports):');
  result.shell.forEach((asset) => console.log(line(asset)));
  console.log('  landing route (lazy Landing chunk + its static imports):');
  result.route.forEach((asset) => console.log(line(asset)));
  const verdict = result.jsGzip <= LANDING_JS_BUDGET_BYTES ? 'within' : 'OVER';
  const js = record('bundle', {
    name: 'landing initial JS, gzip',
    value: result.jsGzip / 1000,
    unit: 'kB',
    baseline: { name: 'landing JS budget', value: LANDING_JS_BUDGET_BYTES / 1000, unit: 'kB' },
    detail: { cssGzipKb: result.cssGzip / 1000, precompressed: result.precompressed },
  });
  console.log(
    `  landing initial JS:  ${kb(result.jsGzip)} gzip (${result.jsGzip} bytes), ${verdict} the ${kb(LANDING_JS_BUDGET_BYTES)} budget (${fmtRatio(js.ratio)})`,
  );
  console.log(
    `  landing initial CSS: ${kb(result.cssGzip)} gzip (${result.css.map((c) => c.file).join(', ')})`,
  );
  if (!result.precompressed) {
    console.log(
      '  note: web/dist has no .gz/.br files and the web process does not compress, so these sizes',
    );
    console.log(
      '        hold only behind a proxy or CDN that compresses (koa-static serves precompressed files only).',
    );
  }
}

if (import.meta.main) {
  await benchBundle({ rebuild: process.argv.includes('--build') });
}
