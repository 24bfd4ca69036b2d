import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * The usage page's reads and the metric samples (sql/0007_usage_metrics.sql). Running time is
 * read from `vm_run_segments`, which the cloud-PC transitions in vms.ts write; nothing here
 * writes to it. Samples are written only by the `metrics-pull` job, idempotently.
 */

export const METRICS = ['cpu', 'gpu'] as const;
export type MetricKind = (typeof METRICS)[number];

const ts = (at: Date) => at.toISOString();

const UsageSegment = z.object({ started_at: z.date(), ended_at: z.date().nullable() });
export type UsageSegment = z.infer<typeof UsageSegment>;

/**
 * Every stretch of running time of any of the user's machines that reaches past `since`
 * (still running ones included), oldest first: the input of the daily and hourly charts.
 */
export async function listRunSegmentsOfUser(db: Db, userId: string, since: Date): Promise<UsageSegment[]> {
  return [
    ...(await db.any(sql.type(UsageSegment)`
      SELECT s.started_at, s.ended_at
      FROM vm_run_segments s JOIN vms v ON v.id = s.vm_id
      WHERE v.user_id = ${userId} AND (s.ended_at IS NULL OR s.ended_at > ${ts(since)}::timestamptz)
      ORDER BY s.started_at`)),
  ];
}

const VmToPull = z.object({ vm_id: z.uuid(), instance_id: z.string() });
export type VmToPull = z.infer<typeof VmToPull>;

/**
 * Machines that ran at some point since `since` (running now, or stopped within the window,
 * so their last minutes are not lost): the `metrics-pull` batch. Bounded.
 */
export async function listVmsRunningSince(db: Db, since: Date, limit: number): Promise<VmToPull[]> {
  return [
    ...(await db.any(sql.type(VmToPull)`
      SELECT DISTINCT v.id AS vm_id, v.instance_id
      FROM vm_run_segments s JOIN vms v ON v.id = s.vm_id
      WHERE (s.ended_at IS NULL OR s.ended_at > ${ts(since)}::timestamptz) AND v.instance_id IS NOT NULL
      ORDER BY v.id
      LIMIT ${limit}`)),
  ];
}

export type NewSample = { vmId: string; metric: MetricKind; at: Date; value: number };

/**
 * Writes samples keyed by (machine, metric, period start). A sample already stored with the
 * same value is left alone; a changed one (CloudWatch revising a period still filling) is
 * updated. Returns how many rows were inserted or changed: 0 for a repeated pull.
 */
export async function upsertMetricSamples(db: Db, samples: readonly NewSample[]): Promise<number> {
  let written = 0;
  for (let i = 0; i < samples.length; i += 1000) {
    const batch = samples.slice(i, i + 1000);
    const result = await db.query(sql.unsafe`
      INSERT INTO vm_metric_samples (vm_id, metric, at, value)
      SELECT * FROM unnest(
        ${sql.array(
          batch.map((s) => s.vmId),
          'uuid',
        )},
        ${sql.array(
          batch.map((s) => s.metric),
          'text',
        )},
        ${sql.array(
          batch.map((s) => ts(s.at)),
          'timestamptz',
        )},
        ${sql.array(
          batch.map((s) => s.value),
          'float8',
        )})
      ON CONFLICT (vm_id, metric, at) DO UPDATE SET value = EXCLUDED.value, pulled_at = now()
        WHERE vm_metric_samples.value IS DISTINCT FROM EXCLUDED.value`);
    written += result.rowCount;
  }
  return written;
}

const Sample = z.object({ metric: z.enum(METRICS), at: z.date(), value: z.number() });
export type Sample = z.infer<typeof Sample>;

/** A machine's samples since `since`, oldest first. */
export async function listRecentSamples(db: Db, vmId: string, since: Date): Promise<Sample[]> {
  return [
    ...(await db.any(sql.type(Sample)`
      SELECT metric, at, value FROM vm_metric_samples
      WHERE vm_id = ${vmId} AND at >= ${ts(since)}::timestamptz
      ORDER BY at, metric`)),
  ];
}

/** Deletes up to `limit` samples older than `before` (retention); returns how many went. */
export async function deleteSamplesBefore(db: Db, before: Date, limit: number): Promise<number> {
  const result = await db.query(sql.unsafe`
    DELETE FROM vm_metric_samples WHERE ctid IN (
      SELECT ctid FROM vm_metric_samples WHERE at < ${ts(before)}::timestamptz LIMIT ${limit})`);
  return result.rowCount;
}
