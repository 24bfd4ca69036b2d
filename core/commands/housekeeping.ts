import { purgeExpired, PURGE_BATCH } from '../db/housekeeping.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../observability/log.ts';

/**
 * Dead rows deleted (core/db/housekeeping.ts). Idempotent by nature: a re-run finds nothing left
 * to delete. Loops while a table filled a whole batch, up to a bound, so a backlog drains over a
 * few runs without one long transaction.
 */
export async function purgeDeadRows(
  deps: { db: Db; log: Logger },
  now: () => Date = () => new Date(),
): Promise<void> {
  for (let pass = 0; pass < 20; pass++) {
    const purged = await purgeExpired(deps.db, now());
    const total = Object.values(purged).reduce((a, b) => a + b, 0);
    if (total > 0) deps.log.info({ purged }, 'housekeeping deleted dead rows');
    if (!Object.values(purged).some((n) => n >= PURGE_BATCH)) return;
  }
}
