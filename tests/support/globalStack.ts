import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../scripts/lib/postgres.ts';
import { scratchDir } from '../../scripts/lib/scratch.ts';
import { findChromium } from './browserPath.ts';
import { waitFor } from './waitFor.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    chromiumPath: string;
    /** The stack's embedded Postgres, for tests that move a plan's dates or run a sweep now. */
    stackDatabaseUrl: string;
  }
}

/**
 * Boots the real product as `npm start` does (embedded Postgres, migrations, web with the
 * sandbox, worker) on a free port with a fresh data dir, for the browser tests. Without a
 * Chromium it says so loudly and the browser tests skip; under CI=true that is a failure.
 */
export default async function setup(project: TestProject) {
  const chromium = findChromium();
  if (!chromium) {
    const message =
      'NO CHROMIUM FOUND (set CHROME_PATH or `apt-get install -y chromium`): the browser tests cannot run.';
    if (process.env.CI === 'true') throw new Error(`${message} CI requires them.`);
    console.warn(`\n${'!'.repeat(80)}\n${message} They are SKIPPED.\n${'!'.repeat(80)}\n`);
    project.provide('chromiumPath', '');
    project.provide('baseUrl', '');
    project.provide('stackDatabaseUrl', '');
    return;
  }

  const dataDir = await scratchDir('e2e-');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['scripts/start.ts', '--no-build'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      NODE_ENV: 'test',
      // The page is opened at localhost: the connection check then fetches its endpoint from
      // another origin, with CORS and the CSP's connect-src, as it does against AWS.
      REGION_PING_URL: `http://127.0.0.1:${port}/sandbox/region-ping/ping`,
      // One stack serves every browser test's customers, and their machines stay: the account's
      // capacity is sized for the whole suite (the default, 20 LEGEND machines, is a young
      // service's quota), so no test is refused a machine for what the tests before it bought.
      CAPACITY_LIMITS: 'g4dn.xlarge=500,g4dn.2xlarge=500,g5.xlarge=500,g5.2xlarge=500,g5.4xlarge=500',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://localhost:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the stack exited early (code ${code})`))),
  );
  await Promise.race([waitUntilReady(baseUrl), exited]);

  project.provide('chromiumPath', chromium);
  project.provide('baseUrl', baseUrl);
  project.provide('stackDatabaseUrl', (await readFile(path.join(dataDir, 'database-url'), 'utf8')).trim());

  return async () => {
    child.removeAllListeners('exit');
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
    await rm(dataDir, { recursive: true, force: true });
  };
}

async function waitUntilReady(baseUrl: string): Promise<void> {
  await waitFor(
    `the stack at ${baseUrl} to become ready`,
    // A refused connection means it is not listening yet: ask again.
    () =>
      fetch(`${baseUrl}/readyz`).then(
        (response) => response.ok,
        () => false,
      ),
    90_000,
    200,
  );
}
