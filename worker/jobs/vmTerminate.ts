import { findVm, markVmTerminated } from '../../core/db/vms.ts';
import { classifyEc2Error } from '../../core/providers/ec2.ts';
import { parsePayload, type Job, type Payload } from '../../core/queue.ts';
import { describeEc2Error, findByClientTokens, RetryLater } from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `vm-terminate`: the machine and its disk go (plan lapsed past the grace period, account
 * deleted, replaced by another kind of machine). Besides the recorded instance it terminates any
 * instance launched with the VM's ClientToken whose answer was lost. Terminating a terminated
 * instance is harmless: a replay changes nothing.
 */
export function vmTerminate(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) await terminateVm(deps, parsePayload('vm-terminate', job.data));
  };
}

export async function terminateVm(
  deps: WorkerDeps,
  { vmId }: Payload<'vm-terminate'>,
): Promise<'terminated' | 'nothing-to-do'> {
  const { db } = deps;
  const vm = await findVm(db, vmId);
  if (!vm || vm.state !== 'terminating') return 'nothing-to-do';
  const ids = new Set<string>(vm.instance_id ? [vm.instance_id] : []);
  if (vm.launch_attempts > 0) {
    const launched = (await findByClientTokens(deps.vmEc2.ec2, [vm.id])).get(vm.id);
    if (launched && launched.state !== 'terminated') ids.add(launched.instanceId);
  }
  for (const instanceId of ids) {
    try {
      await deps.vmEc2.ec2.terminateInstance(instanceId);
    } catch (error) {
      if (classifyEc2Error(error) !== 'not-found') {
        throw new RetryLater(`terminating ${instanceId}: ${describeEc2Error(error)}`);
      }
    }
  }
  await markVmTerminated(db, vm.id, new Date());
  deps.log.info({ vmId, instances: [...ids], reason: vm.state_reason }, 'vm-terminate: terminated');
  return 'terminated';
}
