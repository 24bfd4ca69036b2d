import type { Payload } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { checkOne } from '../lifecycle/followUp.ts';
import { sweepFleet } from '../lifecycle/sweep.ts';

/**
 * `vm-sync`: brings machines in line with what EC2 says, through the lifecycle executor.
 *
 * - Cron (no ids): every live machine, a page at a time, against one paged listing of this
 *   deployment's instances, and the pool instances in flight (`worker/lifecycle/sweep.ts`).
 * - Follow-up (`vmId` / `poolInstanceId`): one machine in transition, rescheduled every
 *   `VM_POLL_SECONDS` until it settles (AWS's waiters would hold a worker for minutes;
 *   `worker/lifecycle/followUp.ts`).
 *
 * A machine whose step fails is recorded (`last_error`, and its run of failures: an error line
 * once, then warnings with a count, an alert after 5 minutes) and looked at again only when its
 * backoff says (the poll interval doubling with jitter, up to 5 minutes); the sweep goes on.
 */
export function vmSync(deps: WorkerDeps) {
  return eachJob('vm-sync', (target) => syncVms(deps, target));
}

export async function syncVms(deps: WorkerDeps, target: Payload<'vm-sync'> = {}): Promise<void> {
  if (target.vmId || target.poolInstanceId) await checkOne(deps, target);
  else await sweepFleet(deps);
}
