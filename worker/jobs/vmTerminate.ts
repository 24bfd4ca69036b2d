import { findVm } from '../../core/db/vms.ts';
import { jobOf } from '../../core/domain/machineTransitions.ts';
import type { Payload } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { advanceMachine } from '../lifecycle/advance.ts';

/**
 * `vm-terminate`: the machine and its disk go (plan lapsed past the grace period, account
 * deleted, replaced by another kind of machine). Besides the recorded instance, anything launched
 * under the machine's ClientToken whose answer was lost goes too. A replay changes nothing.
 */
export function vmTerminate(deps: WorkerDeps) {
  return eachJob('vm-terminate', (payload) => terminateVm(deps, payload));
}

/**
 * `deleting`: asked, EC2 not yet confirming (a follow-up check marks it deleted once EC2 says
 * terminated, and only then is the customer told).
 */
export async function terminateVm(
  deps: WorkerDeps,
  { vmId }: Payload<'vm-terminate'>,
): Promise<'terminated' | 'deleting' | 'nothing-to-do'> {
  const vm = await findVm(deps.db, vmId);
  if (!vm || jobOf({ state: vm.state, hasInstance: vm.instance_id !== null }) !== 'vm-terminate')
    return 'nothing-to-do';
  const { steps } = await advanceMachine(deps, vm, { mode: 'job' });
  return steps.some((step) => step.kind === 'mark-terminated') ? 'terminated' : 'deleting';
}
