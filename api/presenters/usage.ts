import type { Sample, UsageSegment } from '../../core/db/usage.ts';
import { dailyUsage, hourlyUsage } from '../../core/domain/usageBuckets.ts';
import type { UsageRecord } from '../../core/domain/vm.ts';
import type { DashboardBody } from './vm.ts';

/** What GET /api/vm/usage/{email} answers: the record both sides share (core/domain/vm.ts). */
export type UsageBody = UsageRecord;

export function usageBody(input: {
  dashboard: DashboardBody;
  segments: readonly UsageSegment[];
  samples: readonly Sample[];
  now: Date;
}): UsageBody {
  const { dashboard: d, segments, samples, now } = input;
  const intervals = segments.map((s) => ({ start: s.started_at, end: s.ended_at }));
  const series = (metric: Sample['metric']) =>
    samples.filter((s) => s.metric === metric).map((s) => ({ at: s.at.toISOString(), value: s.value }));
  return {
    email: d.email,
    selectedPlan: d.selectedPlan,
    selectedDuration: d.selectedDuration,
    selectedPrice: d.selectedPrice,
    purchaseDate: d.purchaseDate,
    expiryDate: d.expiryDate,
    vmUsageSeconds: d.vmUsageSeconds,
    vmLastState: d.vmLastState,
    vmLastStateChange: d.vmLastStateChange,
    isRunning: d.isRunning,
    planActive: d.planActive,
    now: now.toISOString(),
    daily: dailyUsage(intervals, now),
    hourly: hourlyUsage(intervals, now),
    cpu: series('cpu'),
    gpu: series('gpu'),
  };
}
