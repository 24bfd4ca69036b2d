import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fmtRatio, record } from './bench/lib.ts';
import { kb, LANDING_JS_BUDGET_BYTES, measureLanding, type Asset } from './lib/landingWeight.ts';

/**
 * The landing page's first-load weight against its budget (initial JS at most 90 KB gzip; what
 * is counted: scripts/lib/landingWeight.ts).
 *
 * `node scripts/bench-bundle.ts` reads web/dist (building it first if missing);
 * `--build` always rebuilds. Prints figures only; the build itself fails past the budget
 * (scripts/build.ts).
 */

const DIST = path.resolve(import.meta.dirname, '../web/dist');

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
