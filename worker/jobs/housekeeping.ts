import { purgeDeadRows } from '../../core/commands/housekeeping.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/** `housekeeping` (cron, hourly): dead rows deleted (core/commands/housekeeping.ts). */
export function housekeeping(deps: Pick<WorkerDeps, 'db' | 'log'>) {
  return sweepJob('housekeeping', () => purgeDeadRows(deps));
}
