import { z } from 'zod';
import { sql, type DatabasePool } from './pool.ts';

/**
 * A session advisory lock on one pooled connection, held while `work` runs and released after.
 * Unlike a lease column it dies with its holder: a worker killed mid-call drops its connection
 * and Postgres frees the lock at once, so the next worker carries on without waiting it out.
 * Answers `null` without running `work` while someone else holds the lock.
 */
export async function withTryLock<T>(
  pool: DatabasePool,
  key: string,
  work: () => Promise<T>,
): Promise<{ value: T } | null> {
  return pool.connect(async (connection) => {
    const locked = await connection.oneFirst(
      sql.type(z.object({ locked: z.boolean() }))`
        SELECT pg_try_advisory_lock(hashtextextended(${key}, 0)) AS locked`,
    );
    if (!locked) return null;
    try {
      return { value: await work() };
    } finally {
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock(hashtextextended(${key}, 0))`);
    }
  });
}
