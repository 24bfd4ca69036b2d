import { z } from 'zod';
import { RECENT_PROVISIONS, type ProvisionTimes } from '../domain/content/timeToDesktop.ts';
import { sql, type Db } from './pool.ts';

const Row = z.object({ sample_size: z.coerce.number(), median_seconds: z.coerce.number().nullable() });

/**
 * Median seconds from request to ready of the most recent machines that became ready (every
 * `vms` row is created by a paid plan; `ready_at` is set once, the first time it was usable).
 */
export async function recentProvisionTimes(db: Db): Promise<ProvisionTimes> {
  const row = await db.one(sql.type(Row)`
    SELECT count(*) AS sample_size,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median_seconds
    FROM (
      SELECT extract(epoch FROM ready_at - requested_at) AS seconds
      FROM vms
      WHERE ready_at IS NOT NULL AND ready_at >= requested_at
      ORDER BY ready_at DESC
      LIMIT ${RECENT_PROVISIONS}
    ) recent`);
  if (row.sample_size === 0 || row.median_seconds === null) return null;
  return { sampleSize: row.sample_size, medianSeconds: row.median_seconds };
}
