import { findVm } from '../../core/db/vms.ts';
import { jobOf } from '../../core/domain/machineTransitions.ts';
import type { Payload } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { advanceMachine } from '../lifecycle/advance.ts';

/**
 * `vm-start`: a machine the customer (or a renewal) moved to `starting`. The lifecycle decides:
 * refused when the plan ran out meanwhile, StartInstances when the instance is stopped, back to
 * stopped with a plain message once the queue's attempt budget is spent. No hours are counted
 * here: usage starts only when the machine is seen running.
 */
export function vmStart(deps: WorkerDeps) {
  return eachJob('vm-start', (payload) => startVm(deps, payload));
}

export type StartOutcome = 'requested' | 'nothing-to-do' | 'refused' | 'gave-up';

export async function startVm(deps: WorkerDeps, { vmId }: Payload<'vm-start'>): Promise<StartOutcome> {
  const vm = await findVm(deps.db, vmId);
  if (!vm || jobOf({ state: vm.state, hasInstance: vm.instance_id !== null }) !== 'vm-start')
    return 'nothing-to-do';
  const { steps } = await advanceMachine(deps, vm, { mode: 'job' });
  const kinds = steps.map((s) => s.kind);
  if (kinds.includes('refuse-start')) return 'refused';
  if (kinds.includes('give-up-start') || kinds.includes('lost')) return 'gave-up';
  if (kinds.includes('start') || kinds.includes('mark-running')) return 'requested';
  return 'nothing-to-do';
}
