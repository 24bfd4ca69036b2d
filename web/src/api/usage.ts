import { useEffect, useState } from 'react';
import useSWR from 'swr';
import { swrFetcher } from './fetcher.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import { TRANSITIONAL_DISPLAY_STATES } from '../../../core/domain/dashboardPoll.ts';
import type { DailyUsage, HourlyUsageEntry } from '../../../core/domain/usageBuckets.ts';

/** What GET /api/vm/usage/{email} answers (api/presenters/usage.ts). */
export type Usage = {
  email: string;
  selectedPlan: string;
  selectedDuration: number | null;
  /** Rupees a month. */
  selectedPrice: number | null;
  purchaseDate: string | null;
  expiryDate: string | null;
  /** Usage counted up to `vmLastStateChange`; while running the page adds the time since. */
  vmUsageSeconds: number;
  vmLastState: string;
  vmLastStateChange: string | null;
  isRunning: boolean;
  planActive: boolean;
  now: string;
  daily: DailyUsage[];
  hourly: HourlyUsageEntry[];
  cpu: Array<{ at: string; value: number }>;
  gpu: Array<{ at: string; value: number }>;
};

export const usageKey = (email: string) => `/vm/usage/${encodeURIComponent(email)}`;

/**
 * How often to ask again. Spec §4 "Progress polling": every second while the machine runs.
 * While it is on its way to running or stopped, at the dashboard's pace until it settles, so
 * the page learns the outcome; once stopped (or gone), not at all (a focus or reconnect still
 * refreshes it).
 */
export function usagePollInterval(latest: Pick<Usage, 'isRunning' | 'vmLastState'> | undefined): number {
  if (latest?.isRunning) return TIMERS_MS.usagePoll;
  if (latest && TRANSITIONAL_DISPLAY_STATES.has(latest.vmLastState)) return TIMERS_MS.dashboardRefresh;
  return 0;
}

export function useUsage(email: string) {
  // A number, not swr's function form: swr restarts its timer only when this value changes,
  // and a function answering 0 before the first response would never start it.
  const [pollMs, setPollMs] = useState(0);
  const result = useSWR<Usage>(usageKey(email), swrFetcher, {
    refreshInterval: pollMs,
    // Below the poll interval, or swr would skip every other poll as a duplicate.
    dedupingInterval: TIMERS_MS.usagePoll / 2,
    shouldRetryOnError: false,
  });
  const next = usagePollInterval(result.data);
  useEffect(() => setPollMs(next), [next]);
  return result;
}
