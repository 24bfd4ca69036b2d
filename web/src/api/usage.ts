import { isTransitional } from '../../../core/domain/machineStates.ts';
import { useEffect, useState } from 'react';
import { useApi } from './swr.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import type { UsageRecord } from '../../../core/domain/vm.ts';

/** What GET /api/vm/usage/{email} answers: declared once, beside the dashboard record. */
export type Usage = UsageRecord;

/** The signed-in customer's usage: asked by session, so no email travels in the address. */
const USAGE_KEY = '/vm/usage';

/**
 * How often to ask again. Spec §4 "Progress polling": every second while the machine runs.
 * While it is on its way to running or stopped, at the dashboard's pace until it settles, so
 * the page learns the outcome; once stopped (or gone), not at all (a focus or reconnect still
 * refreshes it).
 */
export function usagePollInterval(latest: Pick<Usage, 'isRunning' | 'vmLastState'> | undefined): number {
  if (latest?.isRunning) return TIMERS_MS.usagePoll;
  if (latest && isTransitional(latest.vmLastState)) return TIMERS_MS.dashboardRefresh;
  return 0;
}

export function useUsage(email: string) {
  // A number, not swr's function form: swr restarts its timer only when this value changes,
  // and a function answering 0 before the first response would never start it.
  const [pollMs, setPollMs] = useState(0);
  const result = useApi<Usage>(email ? USAGE_KEY : null, {
    refreshInterval: pollMs,
    // Below the poll interval, or swr would skip every other poll as a duplicate.
    dedupingInterval: TIMERS_MS.usagePoll / 2,
    shouldRetryOnError: false,
  });
  const next = usagePollInterval(result.data);
  useEffect(() => setPollMs(next), [next]);
  return result;
}
