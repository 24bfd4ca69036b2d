import type { Sample, UsageSegment } from '../../core/db/usage.ts';
import {
  dailyUsage,
  hourlyUsage,
  type DailyUsage,
  type HourlyUsageEntry,
} from '../../core/domain/usageBuckets.ts';
import type { DashboardBody } from './vm.ts';

/**
 * What the usage page reads (spec §3: the VM dashboard record's usage fields, "also reads
 * daily (list of day and usage in hours) and hourly (list of hour and usage)"; §2 Progress
 * page). The state and clock fields are the dashboard's own (presenters/vm.ts), so both
 * pages always agree on whether the machine runs and how much of the plan is used.
 */
export type UsageBody = Pick<
  DashboardBody,
  | 'email'
  | 'selectedPlan'
  | 'selectedDuration'
  | 'selectedPrice'
  | 'purchaseDate'
  | 'expiryDate'
  | 'vmUsageSeconds'
  | 'vmLastState'
  | 'vmLastStateChange'
  | 'isRunning'
  | 'planActive'
> & {
  /** When the server computed this (ISO). */
  now: string;
  /** The last 7 India-time days, oldest first; hours. */
  daily: DailyUsage[];
  /** Today's 24 India-time hours; hours. */
  hourly: HourlyUsageEntry[];
  /** The machine's average CPU per period over the last hour (percent), oldest first. */
  cpu: Array<{ at: string; value: number }>;
  /** Likewise the GPU, when the machine's poller reports it. */
  gpu: Array<{ at: string; value: number }>;
};

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
