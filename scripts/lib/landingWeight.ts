import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * The landing page's first-load weight, as `npm run bench -- bundle` prints it and the build
 * checks it (scripts/build.ts fails past the budget).
 *
 * What a browser fetches for the landing page to work: index.html's module script, its
 * modulepreloads, what they import statically or the entry loads at once (the app), plus the
 * lazily loaded Landing route chunk and its own static imports (the route). Other pages' chunks
 * and anything behind a later dynamic import (the contact form, the particle field's drawing)
 * are not counted. Sizes are gzip at level 9, each file alone, as a browser receives them.
 */

/** The landing page's initial JS, gzip: its budget. */
export const LANDING_JS_BUDGET_BYTES = 90_000;
const DIST = path.resolve(import.meta.dirname, '../../web/dist');
const ROUTE_CHUNK = /^Landing-[\w-]+\.js$/;

export type Asset = { file: string; raw: number; gzip: number; brotli: number };

export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

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

export async function measureLanding(): Promise<{
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
