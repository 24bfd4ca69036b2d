import type { WorkerDeps } from './deps.ts';

/**
 * Cron sweeps. pg-boss fires each schedule once across all workers. Sweeps select a bounded
 * batch by a predicate that excludes rows already handled, so a re-run is harmless.
 */
export async function registerSchedules(_deps: WorkerDeps): Promise<void> {
  // The cloud-PC and plan issues add vm-sync, metrics-pull and plan-expiry here.
}
