import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config/config.ts';
import { sql } from '../../core/db/pool.ts';
import { createLogger } from '../../core/observability/log.ts';
import { openServices } from '../../api/services.ts';
import { freshDatabase } from '../support/db.ts';
import { waitFor } from '../support/waitFor.ts';

const databaseUrl = await freshDatabase();

/**
 * How many Postgres connections one web process holds when every pool of it is busy: the figure
 * docs/operations.md gives for sizing `max_connections`. Measured in pg_stat_activity, by the
 * application name each pool connects with.
 */
describe('the web process at its busiest', () => {
  const observer = new pg.Client({ connectionString: databaseUrl });
  afterAll(() => observer.end());

  async function connectionsByApplication(): Promise<Record<string, number>> {
    const { rows } = await observer.query<{ name: string; count: number }>(
      `SELECT application_name AS name, count(*)::int AS count FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.count]));
  }

  it('holds 25: slonik 10, the poll and rate-limit pool 10, pg-boss 4, the session listener 1', async () => {
    await observer.connect();
    const config = loadConfig({ DATABASE_URL: databaseUrl });
    const services = await openServices(config, databaseUrl, createLogger({ level: 'silent', name: 'test' }));
    try {
      // Every pool asked for more than it may hold at once, and kept busy while it is counted.
      const busy = [
        ...Array.from({ length: 30 }, () => services.db.query(sql.unsafe`SELECT pg_sleep(2)`)),
        ...Array.from({ length: 30 }, () => services.pgPool.query('SELECT pg_sleep(2)')),
        ...Array.from({ length: 30 }, () => services.boss.getQueues()),
      ];
      let last: Record<string, number> = {};
      const seen = await waitFor(
        () => `every pool at its size, last seen ${JSON.stringify(last)}`,
        async () => {
          last = await connectionsByApplication();
          return (last['legend-web'] ?? 0) >= 4 && (last[''] ?? 0) >= 20 && last['legend-web-sessions']
            ? last
            : null;
        },
      );
      await Promise.all(busy);
      expect(seen).toEqual({ '': 20, 'legend-web': 4, 'legend-web-sessions': 1 });
      // Nothing opened more after the peak either.
      const after = await connectionsByApplication();
      expect(Object.values(after).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(25);
    } finally {
      await services.close();
    }
  });
});
