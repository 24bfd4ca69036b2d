import type { TestProject } from 'vitest/node';
import { bootStack } from './bootStack.ts';
import { findChromium } from './browserPath.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    chromiumPath: string;
    /** The stack's embedded Postgres, for tests that move a plan's dates or run a sweep now. */
    stackDatabaseUrl: string;
  }
}

/**
 * Boots the real product as `npm start` does (tests/support/bootStack.ts) for the browser tests
 * to share. Without a Chromium it says so loudly and the browser tests skip; under CI=true that
 * is a failure. What it shares is its customers' data and its sandbox: a test file may change
 * one customer's machine or payment there, but one that changes the whole sandbox (its EC2's
 * timings or clock) boots a stack of its own (tests/support/ownStack.ts).
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

  const stack = await bootStack({
    env: {
      // Every file that shares it expects the fast timings (cloud-pc.test.ts puts them back after
      // slowing them), whatever the shell running the tests has set.
      SANDBOX_PROFILE: 'fast',
      // One stack serves every browser test's customers, and their machines stay: the account's
      // capacity is sized for the whole suite (the default, 20 LEGEND machines, is a young
      // service's quota), so no test is refused a machine for what the tests before it bought.
      CAPACITY_LIMITS: 'g4dn.xlarge=500,g4dn.2xlarge=500,g5.xlarge=500,g5.2xlarge=500,g5.4xlarge=500',
    },
  });
  project.provide('chromiumPath', chromium);
  project.provide('baseUrl', stack.baseUrl);
  project.provide('stackDatabaseUrl', stack.databaseUrl);
  return stack.stop;
}
