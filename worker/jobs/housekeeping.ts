import { purgeExpired, PURGE_BATCH } from '../../core/db/housekeeping.ts';
import type { Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * Hourly: deletes dead rows (core/db/housekeeping.ts). Idempotent by nature: a re-run finds
 * nothing left to delete. Loops while a table filled a whole batch, up to a bound, so a
 * backlog drains over a few runs without one long transaction.
 */
export function housekeeping(deps: Pick<WorkerDeps, 'db' | 'log'>) {
  return async (_jobs: Job<unknown>[]) => {
    for (let pass = 0; pass < 20; pass++) {
      const purged = await purgeExpired(deps.db, new Date());
      const total = Object.values(purged).reduce((a, b) => a + b, 0);
      if (total > 0) deps.log.info({ purged }, 'housekeeping deleted dead rows');
      if (!Object.values(purged).some((n) => n >= PURGE_BATCH)) return;
    }
  };
}
