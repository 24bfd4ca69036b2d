import { useEffect, useState } from 'react';
import { mutate } from 'swr';
import { useApi } from './swr.ts';
import { api } from './fetcher.ts';
import { DASHBOARD_POLL_MS, dashboardPollMs } from '../../../core/domain/dashboardPoll.ts';
import type { DashboardRecord } from '../../../core/domain/vm.ts';

/** The cloud PC's calls (spec §7 `/vm/dashboard/{email}`, `/vm/start-vm`; deviation 5 `/vm/stop-vm`). */

export type { DashboardRecord };

/** The signed-in customer's record: asked by session, so no email travels in the address. */
export const DASHBOARD_KEY = '/vm/dashboard';

/**
 * The dashboard record, asked again only while it can change (core/domain/dashboardPoll.ts:
 * every 2 s in a transition, once a minute while running, never at rest; a focus or reconnect
 * always refreshes). `fallback` is what the payment-success page handed over in the navigation
 * state, shown until the first answer. The server answers an unchanged record with a 304, which
 * the browser turns back into the record it kept.
 */
/** `email` null: not yet (the payment-success page asks only once the payment is verified). */
export function useDashboard(email: string | null, fallback?: DashboardRecord) {
  // A number, not swr's function form: swr restarts its timer only when this value changes,
  // and a function answering 0 before the first response would never start it.
  const [pollMs, setPollMs] = useState(0);
  const result = useApi<DashboardRecord>(email ? DASHBOARD_KEY : null, {
    refreshInterval: pollMs,
    // Below the fastest poll, or swr would skip every other one as a duplicate.
    dedupingInterval: DASHBOARD_POLL_MS.transition / 2,
    ...(fallback ? { fallbackData: fallback } : {}),
  });
  const next = dashboardPollMs(result.data);
  useEffect(() => setPollMs(next), [next]);
  return result;
}

/** Asks for the dashboard record again now (something outside the poll changed it). */
export function refreshDashboard() {
  return mutate(DASHBOARD_KEY);
}

/** START VM; the answer is the fresh record, put in the cache at once. */
export async function startVm(email: string): Promise<DashboardRecord> {
  const record = await api<DashboardRecord>('/vm/start-vm', { body: { email } });
  await mutate(DASHBOARD_KEY, record, { revalidate: false });
  return record;
}

export async function stopVm(email: string): Promise<DashboardRecord> {
  const record = await api<DashboardRecord>('/vm/stop-vm', { body: { email } });
  await mutate(DASHBOARD_KEY, record, { revalidate: false });
  return record;
}
