import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll } from 'vitest';
import { hasBrowser, stackDatabaseUrl } from './browser.ts';
import { waitFor } from './waitFor.ts';

const run = promisify(execFile);

/**
 * The browser tests' stack's own database, for a test that must move a plan's dates (a month
 * cannot pass in a test), and its sweeps run now with the operators' `npm run jobs -- run
 * <sweep>` rather than at the cron's next tick. Closed after the file's tests.
 */
export function stackDatabase() {
  // Opened at the first query: a file with a stack of its own has booted it by then (in its
  // beforeAll), and its URL is only known from then on.
  let pool: pg.Pool | undefined;
  const open = () => {
    if (!hasBrowser()) throw new Error('no stack: the browser tests are skipped');
    return (pool ??= new pg.Pool({ connectionString: stackDatabaseUrl(), max: 2 }));
  };
  afterAll(async () => {
    await pool?.end();
  });

  async function query(text: string, values: unknown[] = []): Promise<void> {
    await open().query(text, values);
  }

  /** The first row of `text`, or undefined. */
  async function one<T>(text: string, values: unknown[]): Promise<T | undefined> {
    const result = await open().query(text, values);
    return result.rows[0] as T | undefined;
  }

  /** Until `check` answers something, running `sweep` now and then (as its cron would). */
  async function untilSwept<T>(sweep: string, what: string, check: () => Promise<T | undefined>): Promise<T> {
    return waitFor(
      what,
      async () => {
        const found = await check();
        if (found !== undefined) return { found };
        await run(process.execPath, ['scripts/jobs.ts', 'run', sweep], {
          env: { ...process.env, DATABASE_URL: stackDatabaseUrl(), NODE_ENV: 'test' },
        });
        return undefined;
      },
      60_000,
      500,
    ).then(({ found }) => found);
  }

  return { query, one, untilSwept };
}
