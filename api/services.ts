import type pg from 'pg';
import type { Config } from '../core/config.ts';
import type { DatabasePool } from '../core/db/pool.ts';
import type { Logger } from '../core/log.ts';
import type { Boss } from '../core/queue.ts';
import { createLimiter, type Limiter } from './middleware/rateLimit.ts';

/** What routes need from the outside: built once per process and passed down. */
export type Services = {
  config: Config;
  db: DatabasePool;
  /** A plain pg pool for libraries that want one (the rate limiter). */
  pgPool: pg.Pool;
  boss: Boss;
  log: Logger;
  limiters: { reports: Limiter };
};

export function createLimiters(pgPool: pg.Pool): Services['limiters'] {
  return {
    // Anonymous reports are allowed, so keep a lid on them: 10 an hour from one address.
    reports: createLimiter(pgPool, {
      name: 'report-ip',
      points: 10,
      durationSeconds: 3600,
      message: 'Too many reports from your network. Please try again in a while.',
    }),
  };
}

/** Opens the pools and the queue the web process needs. `close()` releases them all. */
export async function openServices(
  config: Config,
  databaseUrl: string,
  log: Logger,
): Promise<Services & { close: () => Promise<void> }> {
  const [{ createDbPool }, { default: pgLib }, { startBoss }] = await Promise.all([
    import('../core/db/pool.ts'),
    import('pg'),
    import('../core/queue.ts'),
  ]);
  const db = await createDbPool(databaseUrl);
  const pgPool = new pgLib.Pool({ connectionString: databaseUrl, max: 4 });
  pgPool.on('error', (error) => log.warn({ err: error }, 'idle database connection lost'));
  const boss = await startBoss(databaseUrl, 'web');
  boss.on('error', (error) => log.error({ err: error }, 'queue error'));
  return {
    config,
    db,
    pgPool,
    boss,
    log,
    limiters: createLimiters(pgPool),
    async close() {
      await boss.stop({ graceful: true, timeout: 5000 });
      await pgPool.end();
      await db.end();
    },
  };
}
