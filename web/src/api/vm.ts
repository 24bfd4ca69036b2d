import useSWR, { mutate } from 'swr';
import { api, swrFetcher } from './fetcher.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import type { DashboardRecord } from '../../../core/domain/vm.ts';

/** The cloud PC's calls (spec §7 `/vm/dashboard/{email}`, `/vm/start-vm`; deviation 5 `/vm/stop-vm`). */

export type { DashboardRecord };

export function dashboardKey(email: string): string {
  return `/vm/dashboard/${encodeURIComponent(email)}`;
}

/**
 * The dashboard record, refreshed every 5 s (spec §9). `fallback` is what the payment-success
 * page handed over in the navigation state, shown until the first answer.
 */
export function useDashboard(email: string, fallback?: DashboardRecord) {
  return useSWR<DashboardRecord>(dashboardKey(email), swrFetcher, {
    refreshInterval: TIMERS_MS.dashboardRefresh,
    ...(fallback ? { fallbackData: fallback } : {}),
  });
}

/** START VM; the answer is the fresh record, put in the cache at once. */
export async function startVm(email: string): Promise<DashboardRecord> {
  const record = await api<DashboardRecord>('/vm/start-vm', { body: { email } });
  await mutate(dashboardKey(email), record, { revalidate: false });
  return record;
}

export async function stopVm(email: string): Promise<DashboardRecord> {
  const record = await api<DashboardRecord>('/vm/stop-vm', { body: { email } });
  await mutate(dashboardKey(email), record, { revalidate: false });
  return record;
}
