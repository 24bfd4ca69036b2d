import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { findChromium } from '../../tests/support/browserPath.ts';
import { freePort } from '../lib/postgres.ts';
import { scratchDir } from '../lib/scratch.ts';
import { SPA_DIR } from '../../api/static.ts';
import { publicPagePaths } from '../../core/domain/siteRoutes.ts';
import { heading, record } from './lib.ts';

/**
 * The public pages as a phone sees them: Lighthouse (a devDependency, run from node_modules, no
 * network) in its default mobile setting, simulated throttling (slow 4G, a 4× slower CPU), against
 * the product built and started as `npm start` runs it (its own port and data directory). Each
 * page is measured RUNS times and the best run by performance score is its figure, as PageSpeed
 * practice has it; every run is printed too, with the machine's load average, because a loaded
 * machine lengthens the observed tasks that the simulation scales up. Without Chromium it says
 * so and measures nothing.
 *
 * The baseline, measured in the same run by the same server, alternating run by run with the
 * figure so both meet the same load: the same build with its prerendered pages withheld (the
 * folder renamed; the server then answers every page with the empty shell, rendered in the
 * browser, as every page was before prerendering). It is not the product before this change
 * in every respect: the particle field and the entry's split apply to both.
 */

/**
 * The pages measured: one line each. A page is measured once it is one of the prerendered public
 * pages (core/domain/siteRoutes.ts's sitemap list); one listed here that is not yet (a page
 * another change is adding) is named and skipped, and measured from the build that has it.
 */
const PAGES = ['/', '/services', '/blogs', '/select-vm', '/connection-check', '/guides'];
const RUNS = Number(process.env.BENCH_SITE_RUNS ?? 2);
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const ROOT = path.resolve(import.meta.dirname, '../..');

type Run = {
  scores: Record<(typeof CATEGORIES)[number], number>;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
  load: number;
  /** Audits of a category that did not pass, for a score under 100. */
  failing: string[];
};

type LighthouseReport = {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
  audits: Record<string, { score: number | null; scoreDisplayMode: string; numericValue?: number }>;
  runtimeError?: { code: string; message: string };
};

export async function benchSite(): Promise<void> {
  heading('Public pages: Lighthouse mobile (simulated throttling), best of runs');
  const chromium = findChromium();
  if (!chromium) {
    console.log('  SKIPPED: no Chromium found (set CHROME_PATH or `apt-get install -y chromium`).');
    return;
  }
  build();
  const pages = PAGES.filter((page) => publicPagePaths().includes(page));
  const skipped = PAGES.filter((page) => !pages.includes(page));
  if (skipped.length > 0)
    console.log(`  not measured (not prerendered public pages in this build): ${skipped.join(' ')}`);
  const stack = await startProduct();
  try {
    for (const page of pages) {
      // One look first: the server's first answer for a page is not what a visitor meets.
      await fetch(`${stack.baseUrl}${page}`, { headers: { accept: 'text/html' } });
      const runs: Run[] = [];
      const baselineRuns: Run[] = [];
      for (let i = 0; i < RUNS; i++) {
        runs.push(await lighthouseWithRetry(chromium, `${stack.baseUrl}${page}`));
        baselineRuns.push(
          await withoutPrerendered(() => lighthouseWithRetry(chromium, `${stack.baseUrl}${page}`)),
        );
      }
      report(page, runs, baselineRuns);
    }
  } finally {
    await stack.stop();
  }
}

const PRERENDERED = path.join(SPA_DIR, '.prerendered');

/**
 * Runs `measure` while the build's prerendered pages are withheld: the server reads them per
 * request and, finding none, answers with the shell (api/static.ts). Put back afterwards, also
 * when the measurement fails.
 */
async function withoutPrerendered<T>(measure: () => Promise<T>): Promise<T> {
  const aside = `${PRERENDERED}-withheld`;
  await rename(PRERENDERED, aside);
  try {
    return await measure();
  } finally {
    await rename(aside, PRERENDERED);
  }
}

function build(): void {
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}

/** The product as `npm start` runs it, on a free port with a fresh data directory. */
async function startProduct(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const dataDir = await scratchDir('bench-site-');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['scripts/start.ts', '--no-build'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://localhost:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the product exited early (code ${code})`))),
  );
  const stop = async () => {
    child.removeAllListeners('exit');
    if (child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      });
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.race([waitUntilReady(baseUrl), exited]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, stop };
}

async function waitUntilReady(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the product at ${baseUrl} did not become ready in 2 minutes`);
}

/**
 * A run, tried again (twice at most) when Lighthouse itself fails, as it asks ("Something went
 * wrong with recording the trace… Please run Lighthouse again"); each failure is printed.
 */
async function lighthouseWithRetry(chromium: string, url: string): Promise<Run> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await lighthouse(chromium, url);
    } catch (error) {
      if (attempt >= 3) throw error;
      console.log(`    (lighthouse failed, running again: ${(error as Error).message.split('\n')[0]})`);
    }
  }
}

/** One Lighthouse run of `url` through its command line, mobile defaults. */
async function lighthouse(chromium: string, url: string): Promise<Run> {
  const require = createRequire(import.meta.url);
  const cli = path.join(path.dirname(require.resolve('lighthouse/package.json')), 'cli/index.js');
  const output = path.join(await scratchDir('bench-site-lh-'), 'report.json');
  const load = os.loadavg()[0]!;
  try {
    const stderr: Buffer[] = [];
    const child = spawn(
      process.execPath,
      [
        cli,
        url,
        '--quiet',
        `--only-categories=${CATEGORIES.join(',')}`,
        '--output=json',
        `--output-path=${output}`,
        // Root in a container: Chromium's sandbox cannot start there.
        '--chrome-flags=--headless=new --no-sandbox --disable-dev-shm-usage',
      ],
      { env: { ...process.env, CHROME_PATH: chromium }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) {
      throw new Error(`lighthouse ${url} exited ${code}: ${Buffer.concat(stderr).toString().slice(-2000)}`);
    }
    const result = JSON.parse(await readFile(output, 'utf8')) as LighthouseReport;
    if (result.runtimeError) throw new Error(`lighthouse ${url}: ${result.runtimeError.message}`);
    const metric = (id: string) => result.audits[id]?.numericValue ?? Number.NaN;
    const scores = Object.fromEntries(
      CATEGORIES.map((id) => [id, Math.round((result.categories[id]?.score ?? 0) * 100)]),
    ) as Run['scores'];
    const failing = CATEGORIES.filter((id) => id !== 'performance').flatMap((id) =>
      (result.categories[id]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0)
        .filter((ref) => {
          const audit = result.audits[ref.id];
          return audit?.scoreDisplayMode === 'binary' && audit.score !== null && audit.score < 1;
        })
        .map((ref) => `${id}:${ref.id}`),
    );
    return {
      scores,
      fcpMs: metric('first-contentful-paint'),
      lcpMs: metric('largest-contentful-paint'),
      tbtMs: metric('total-blocking-time'),
      cls: metric('cumulative-layout-shift'),
      speedIndexMs: metric('speed-index'),
      load,
      failing,
    };
  } finally {
    await rm(path.dirname(output), { recursive: true, force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function line(run: Run): string {
  const s = run.scores;
  return (
    `perf ${String(s.performance).padStart(3)}  a11y ${s.accessibility}  bp ${s['best-practices']}  seo ${s.seo}` +
    `  FCP ${seconds(run.fcpMs)}  LCP ${seconds(run.lcpMs)}  TBT ${Math.round(run.tbtMs)} ms` +
    `  SI ${seconds(run.speedIndexMs)}  CLS ${run.cls.toFixed(3)}  (load ${run.load.toFixed(1)})` +
    (run.failing.length > 0 ? `  failing: ${run.failing.join(', ')}` : '')
  );
}

/** The best run: the highest performance score, and of equal scores the earliest first paint. */
const best = (runs: Run[]) =>
  runs.reduce((a, b) =>
    b.scores.performance > a.scores.performance ||
    (b.scores.performance === a.scores.performance && b.fcpMs < a.fcpMs)
      ? b
      : a,
  );

const summary = (run: Run) => ({
  ...run.scores,
  fcpMs: run.fcpMs,
  lcpMs: run.lcpMs,
  tbtMs: run.tbtMs,
  cls: run.cls,
  load: run.load,
});

function report(page: string, runs: Run[], baselineRuns: Run[]): void {
  const top = best(runs);
  const baseline = best(baselineRuns);
  console.log(`  ${page}`);
  runs.forEach((run, i) => console.log(`    prerendered run ${i + 1}: ${line(run)}`));
  baselineRuns.forEach((run, i) => console.log(`    shell only  run ${i + 1}: ${line(run)}`));
  console.log(`    best prerendered: ${line(top)}`);
  console.log(`    best shell only:  ${line(baseline)}`);
  record('site', {
    name: `${page} Lighthouse mobile performance (best of ${runs.length})`,
    value: top.scores.performance,
    unit: 'score',
    baseline: {
      name: 'the same page from the shell only',
      value: baseline.scores.performance,
      unit: 'score',
    },
    detail: { best: summary(top), runs: runs.map(summary), baselineRuns: baselineRuns.map(summary) },
  });
  record('site', {
    name: `${page} Lighthouse mobile first contentful paint (of the best run)`,
    value: top.fcpMs,
    unit: 'ms',
    baseline: { name: 'the same page from the shell only', value: baseline.fcpMs, unit: 'ms' },
  });
}
