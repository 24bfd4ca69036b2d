import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { findChromium } from '../tests/support/browserPath.ts';

/**
 * `npm test`: builds the SPA (the browser tests drive the built app), then runs the unit,
 * integration and e2e vitest projects in one run, and closes with a plain summary line.
 * Without Chromium the browser tests are skipped loudly; with CI=true that is a failure.
 */
const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const extra = process.argv.slice(2);

if (!findChromium()) {
  const message = 'No Chromium found (CHROME_PATH or /usr/bin/chromium): browser tests will be skipped.';
  if (process.env.CI === 'true') {
    console.error(`${message} CI requires them: failing.`);
    process.exit(1);
  }
  console.warn(`\n!!! ${message}\n`);
}

const build = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const report = path.join(root, '.test-data', 'vitest-report.json');
rmSync(report, { force: true });
const run = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...extra,
  ],
  { stdio: 'inherit' },
);

let summary = '';
try {
  const results = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    testResults: Array<{ name: string; assertionResults: Array<{ status: string }> }>;
  };
  const e2eRan = results.testResults
    .filter((f) => f.name.includes(`${path.sep}tests${path.sep}e2e${path.sep}`))
    .some((f) => f.assertionResults.some((a) => a.status === 'passed' || a.status === 'failed'));
  if (process.env.CI === 'true' && !e2eRan && extra.length === 0) {
    console.error('CI: the browser tests did not run. Failing.');
    process.exitCode = 1;
  }
  summary = `${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped`;
} catch {
  // no report (vitest crashed before writing it): the exit code says enough
}
if (summary) console.log(`\ntests: ${summary}`);
process.exit(process.exitCode || run.status || 0);
