/**
 * The one way a test waits: for a state, never for a clock. Asks `check` again every
 * `intervalMs` until it answers something (not undefined, null or false) and returns that;
 * after `timeoutMs` fails, saying what it waited for (`what` may be a function, to name the
 * last thing seen).
 */
export async function waitFor<T>(
  what: string | (() => string),
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
