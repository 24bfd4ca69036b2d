import { z } from 'zod';
import { RECENT_PROVISIONS, type ProvisionTimes } from '../domain/content/timeToDesktop.ts';
import type { ProvisionDistribution } from '../domain/setupProgress.ts';
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

const SourceRow = z.object({
  source: z.enum(['pool', 'launch']),
  sample_size: z.coerce.number(),
  p50: z.coerce.number().nullable(),
  p90: z.coerce.number().nullable(),
});

/**
 * The same recorded provisions (request to ready) as `recentProvisionTimes`, the latest
 * RECENT_PROVISIONS of each kind: a warm-pool spare's (a start, about a minute) and a fresh
 * launch's (a first boot, minutes). Their median and 90th percentile estimate the wait after
 * paying (core/domain/setupProgress.ts). Two indexed reads of at most RECENT_PROVISIONS rows.
 */
export async function recentProvisionDistribution(db: Db): Promise<ProvisionDistribution> {
  const rows = await db.any(sql.type(SourceRow)`
    SELECT kinds.source, count(r.seconds) AS sample_size,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.seconds) AS p50,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY r.seconds) AS p90
    FROM (VALUES ('pool'), ('launch')) AS kinds (source)
    CROSS JOIN LATERAL (
      SELECT extract(epoch FROM ready_at - requested_at) AS seconds
      FROM vms
      WHERE source = kinds.source AND ready_at IS NOT NULL AND ready_at >= requested_at
      ORDER BY ready_at DESC
      LIMIT ${RECENT_PROVISIONS}
    ) r
    GROUP BY kinds.source`);
  const of = (source: 'pool' | 'launch') => {
    const row = rows.find((r) => r.source === source);
    return row && row.sample_size > 0 && row.p50 !== null && row.p90 !== null
      ? { sampleSize: row.sample_size, p50Seconds: row.p50, p90Seconds: row.p90 }
      : null;
  };
  return { pool: of('pool'), launch: of('launch') };
}
