import { mutate } from 'swr';
import { useApi } from './swr.ts';
import { api } from './fetcher.ts';
import type { IdleStopMinutes } from '../../../core/domain/idle.ts';

/** Idle auto-stop of the signed-in customer's machine (`/api/vm/idle`, `/api/vm/keep-running`). */

const IDLE_KEY = '/vm/idle';

export type IdleRecord = {
  /** False when the customer has no machine (yet, or any more): nothing to show. */
  machine: boolean;
  minutes: IdleStopMinutes | null;
  choices: IdleStopMinutes[];
  running: boolean;
  warning: { stopAt: string } | null;
  saved: { seconds: number; stops: number };
  projection:
    | { kind: 'no-use' }
    | { kind: 'lasts'; hoursPerDay: number }
    | { kind: 'runs-out'; at: string; hoursPerDay: number };
};

/**
 * Asked again every 30 s while the machine runs, so the ten-minute notice shows within half a
 * minute of the worker's warning; never while it is stopped. `enabled` false: not asked at all.
 */
export function useIdle(enabled = true) {
  return useApi<IdleRecord>(enabled ? IDLE_KEY : null, {
    refreshInterval: (data) => (data?.running ? 30_000 : 0),
    shouldRetryOnError: false,
  });
}

export async function setIdleMinutes(minutes: IdleStopMinutes | null): Promise<void> {
  const record = await api<IdleRecord>(IDLE_KEY, { body: { minutes } });
  await mutate(IDLE_KEY, record, { revalidate: false });
}

export async function keepItRunning(): Promise<void> {
  const record = await api<IdleRecord>('/vm/keep-running', { body: {} });
  await mutate(IDLE_KEY, record, { revalidate: false });
}
