import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { findChromium } from '../tests/support/browserPath.ts';

/**
 * `npm test`: builds the SPA (the browser tests drive the built app), then runs the vitest
 * projects in two phases — unit + integration, then e2e — so the browser stack does not
 * compete for this machine's two cores with the integration files. Closes with one plain
 * summary line. Without Chromium the browser tests are skipped loudly; with CI=true that fails.
 * Extra arguments go to vitest (e.g. `npm test -- tests/integration/jobs-script.test.ts`).
 */
const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const extra = process.argv.slice(2);
const ci = process.env.CI === 'true';

if (!findChromium()) {
  const message = 'No Chromium found (CHROME_PATH or /usr/bin/chromium): browser tests will be skipped.';
  if (ci) {
    console.error(`${message} CI requires them: failing.`);
    process.exit(1);
  }
  console.warn(`\n!!! ${message}\n`);
}

const build = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

type Report = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: Array<{ name: string; assertionResults: Array<{ status: string }> }>;
};

function phase(
  name: string,
  projects: string[],
): { name: string; status: number; report: Report | undefined } {
  const file = path.join(root, '.test-data', `vitest-${name}.json`);
  rmSync(file, { force: true });
  const run = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      ...projects.flatMap((p) => ['--project', p]),
      '--passWithNoTests',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${file}`,
      ...extra,
    ],
    { stdio: 'inherit' },
  );
  let report: Report | undefined;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  } catch {
    // no report (vitest crashed before writing it): the exit code says enough
  }
  return { name, status: run.status ?? 1, report };
}

const phases = [phase('server', ['unit', 'integration']), phase('browser', ['e2e'])];
let status = phases.some((p) => p.status !== 0) ? 1 : 0;
for (const p of phases) {
  // Vitest fails a run whose tests all passed when an error escaped them (an uncaught
  // exception, an unhandled rejection): say so, or the summary's "0 failed" reads as green.
  if (p.status !== 0 && p.report && p.report.numFailedTests === 0) {
    console.error(
      `\n${p.name} phase: exit code ${p.status} with no failed test — an error escaped the tests (see "Unhandled Errors" above).`,
    );
  }
}

const reports = phases.map((p) => p.report).filter((r): r is Report => r !== undefined);
const sum = (pick: (r: Report) => number) => reports.reduce((n, r) => n + pick(r), 0);
const e2eRan = reports
  .flatMap((r) => r.testResults)
  .filter((f) => f.name.includes(`${path.sep}tests${path.sep}e2e${path.sep}`))
  .some((f) => f.assertionResults.some((a) => a.status === 'passed' || a.status === 'failed'));
if (ci && !e2eRan && extra.length === 0) {
  console.error('CI: the browser tests did not run. Failing.');
  status = 1;
}
if (reports.length > 0) {
  console.log(
    `\ntests: ${sum((r) => r.numPassedTests)} passed, ${sum((r) => r.numFailedTests)} failed, ${sum((r) => r.numPendingTests + r.numTodoTests)} skipped`,
  );
}
process.exit(status);
