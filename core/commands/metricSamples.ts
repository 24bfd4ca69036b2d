import type { Db } from '../db/pool.ts';
import { deleteSamplesBefore, upsertMetricSamples, type NewSample } from '../db/usage.ts';

/** Pruned per run: a bounded batch, so a backlog drains over runs. */
const PRUNE_BATCH = 50_000;

/**
 * What `metrics-pull` keeps of CloudWatch's utilisation: each (machine, metric, period) once
 * however often overlapping pulls write it, and nothing older than METRICS_RETENTION_DAYS.
 */
export async function keepSamples(db: Db, samples: NewSample[]): Promise<number> {
  return upsertMetricSamples(db, samples);
}

export async function pruneSamples(db: Db, before: Date): Promise<number> {
  return deleteSamplesBefore(db, before, PRUNE_BATCH);
}
