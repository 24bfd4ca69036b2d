import type { MetricsConfig } from '../../core/config/config.ts';
import { keepSamples, pruneSamples } from '../../core/commands/metricSamples.ts';
import { listVmsRunningSince, type NewSample } from '../../core/db/usage.ts';
import { DAY_MS } from '../../core/domain/time.ts';
import { createCloudWatch, type CloudWatch } from '../../core/providers/cloudwatch.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/**
 * `metrics-pull` (cron, METRICS_PULL_CRON): CPU and GPU utilisation of every machine that ran
 * recently, from CloudWatch into `vm_metric_samples`, for the usage page.
 *
 * - One GetMetricData call per 250 machines (2 metrics each, 500 queries: CloudWatch's limit).
 * - The window reaches back further than the schedule's interval, so a missed run costs
 *   nothing; overlapping pulls rewrite the same (machine, metric, period) rows, so running it
 *   twice stores every sample once.
 * - Machines stopped within the window are included, so their last minutes are kept.
 * - Samples older than METRICS_RETENTION_DAYS are deleted, a bounded batch per run.
 * - No transaction is open while CloudWatch is called.
 */
export function metricsPull(deps: WorkerDeps) {
  const cloudWatch = deps.cloudWatch ?? createCloudWatch(deps.config.metrics.cloudWatch);
  return sweepJob('metrics-pull', () => pullMetrics({ ...deps, cloudWatch }));
}

export type MetricsPullDeps = Pick<WorkerDeps, 'db' | 'log'> & {
  cloudWatch: CloudWatch;
  config: { metrics: MetricsConfig };
};

export type MetricsPullReport = { vms: number; samples: number; written: number; pruned: number };

/** How far back each pull reads (at least three periods). */
const LOOKBACK_MS = 30 * 60_000;
/** Machines per run: 40 GetMetricData calls; far beyond the fleet a region holds for us. */
const MAX_VMS = 10_000;

export async function pullMetrics(deps: MetricsPullDeps, now: Date = new Date()): Promise<MetricsPullReport> {
  const { db, log, cloudWatch } = deps;
  const { periodSeconds, retentionDays } = deps.config.metrics;
  const periodMs = periodSeconds * 1000;
  const lookback = Math.max(LOOKBACK_MS, 3 * periodMs);
  // Aligned to the period so every pull asks CloudWatch for the same period boundaries.
  const start = new Date(Math.floor((now.getTime() - lookback) / periodMs) * periodMs);

  const vms = await listVmsRunningSince(db, start, MAX_VMS);
  let samples = 0;
  let written = 0;
  if (vms.length > 0) {
    const vmByInstance = new Map(vms.map((vm) => [vm.instance_id, vm.vm_id]));
    const found = await cloudWatch.utilisation({
      instanceIds: vms.map((vm) => vm.instance_id),
      start,
      end: now,
      periodSeconds,
    });
    const rows: NewSample[] = [];
    for (const sample of found) {
      const vmId = vmByInstance.get(sample.instanceId);
      if (vmId) rows.push({ vmId, metric: sample.metric, at: sample.at, value: sample.value });
    }
    samples = rows.length;
    written = await keepSamples(db, rows);
  }
  const pruned = await pruneSamples(db, new Date(now.getTime() - retentionDays * DAY_MS));
  const report = { vms: vms.length, samples, written, pruned };
  log.info(report, 'metrics pulled');
  return report;
}
