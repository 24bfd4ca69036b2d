import { notifyAlerts, raiseDeadLetters } from '../../core/commands/alertNotify.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/**
 * `alert-notify` (cron, every minute): jobs that exhausted their retries since the last run are
 * raised as alerts (`job-dead-lettered`, one per queue), so a failure nothing retries any more
 * reaches a person; then every alert not yet heard of is mailed and posted
 * (core/commands/alertNotify.ts).
 */
export function alertNotify(deps: WorkerDeps) {
  return sweepJob('alert-notify', async () => {
    await raiseDeadLetters(deps);
    await notifyAlerts(deps);
  });
}
