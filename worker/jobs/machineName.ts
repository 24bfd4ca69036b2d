import { listNamesNeedingWork } from '../../core/db/machineNames.ts';
import { findVm } from '../../core/db/vms.ts';
import type { Payload } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { RetryLater } from '../ec2Errors.ts';
import { eachJob } from '../job.ts';
import { advanceName } from '../machineName.ts';

/**
 * `machine-name`: keeps machines' DNS names pointing at them (worker/machineName.ts).
 *
 * - With a `vmId` (sent when pointing the name failed on the way to running): that machine's
 *   name; a Route 53 failure fails the job, which pg-boss retries with backoff.
 * - Cron (every minute, no id): the names that need work (a machine gone whose record is still
 *   there, a running machine whose record points elsewhere, a name failing: its 10-minute alert is
 *   decided here too, a running machine whose customer's name waits for their previous machine
 *   to be gone), a bounded batch; a failure is recorded on the name and the sweep goes on.
 */
export function machineName(deps: WorkerDeps) {
  return eachJob('machine-name', (payload) => syncNames(deps, payload));
}

/** Names the sweep takes per run: Route 53 answers 5 requests a second per account. */
const SWEEP_BATCH = 100;

export async function syncNames(deps: WorkerDeps, target: Payload<'machine-name'> = {}): Promise<void> {
  if (!deps.config.machineNames) return;
  if (target.vmId) {
    const vm = await findVm(deps.db, target.vmId);
    if (vm && (await advanceName(deps, vm)) === 'failed')
      throw new RetryLater(`the DNS name of machine ${vm.id} could not be updated yet`);
    return;
  }
  for (const { vm_id } of await listNamesNeedingWork(deps.db, SWEEP_BATCH)) {
    const vm = await findVm(deps.db, vm_id);
    // A failure is on the name's row (and in the log); the next run tries again.
    if (vm) await advanceName(deps, vm);
  }
}
