import { findVm } from '../../core/db/vms.ts';
import { jobOf } from '../../core/domain/machineTransitions.ts';
import type { Payload } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { advanceMachine } from '../lifecycle/advance.ts';

/**
 * `vm-stop`: StopInstances for a machine moved to `stopping` (the customer's STOP, hours used up,
 * plan expired). Usage already stopped counting at that transition. Stopping a stopping or
 * stopped instance changes nothing, so a replay is harmless.
 */
export function vmStop(deps: WorkerDeps) {
  return eachJob('vm-stop', (payload) => stopVm(deps, payload));
}

export async function stopVm(
  deps: WorkerDeps,
  { vmId }: Payload<'vm-stop'>,
): Promise<'requested' | 'nothing-to-do'> {
  const vm = await findVm(deps.db, vmId);
  if (!vm || jobOf({ state: vm.state, hasInstance: vm.instance_id !== null }) !== 'vm-stop')
    return 'nothing-to-do';
  const { steps } = await advanceMachine(deps, vm, { mode: 'job' });
  return steps.some((s) => s.kind === 'stop' || s.kind === 'mark-stopped') ? 'requested' : 'nothing-to-do';
}
