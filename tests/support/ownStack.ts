import { afterAll, beforeAll } from 'vitest';
import { bootStack, type BootedStack } from './bootStack.ts';
import { hasBrowser, targetStack } from './browser.ts';

/** Booting is migrations and three processes on a shared, loaded machine: minutes at worst. */
const BOOT_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 90_000;

/**
 * A stack of this test file's own, booted before its tests with `env` over the defaults (e.g.
 * `SANDBOX_PROFILE: 'aws'`) and stopped after them. For a file that changes what a whole sandbox
 * does (its EC2's timings, its clock): on the shared stack that would reach every file after it.
 * From its beforeAll on, `baseUrl()`, the pages of `useBrowser()`, the customers of
 * tests/support/e2eUsers.ts and `stackDatabase()` all talk to it.
 *
 * Call it first in the file, before `useBrowser()` and `stackDatabase()`: vitest runs afterAll
 * hooks last-registered first, so this stack then stops after their pages and connections close.
 */
export function useOwnStack(env: Record<string, string>, name = 'own'): void {
  let stack: BootedStack | undefined;
  beforeAll(async () => {
    if (!hasBrowser()) return;
    stack = await bootStack({ env, name: `e2e-${name}` });
    targetStack(stack);
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    targetStack(undefined);
    await stack?.stop();
  }, STOP_TIMEOUT_MS);
}
