import { findVm, markVmError, markVmStopped } from '../../core/db/vms.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { classifyEc2Error } from '../../core/providers/ec2.ts';
import { parsePayload, type Job, type Payload } from '../../core/queue.ts';
import { scheduleVmCheck } from '../../core/vmActions.ts';
import { describeEc2Error, RetryLater } from '../cloudPc.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `vm-stop`: StopInstances for a VM moved to `stopping` (the customer's STOP, hours used up, plan
 * expired). Usage already stopped counting at that transition. Stopping a stopping or stopped
 * instance is harmless, so a replay changes nothing; a still-pending one is retried shortly.
 */
export function vmStop(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) await stopVm(deps, parsePayload('vm-stop', job.data));
  };
}

export async function stopVm(
  deps: WorkerDeps,
  { vmId }: Payload<'vm-stop'>,
): Promise<'requested' | 'nothing-to-do'> {
  const { db } = deps;
  const vm = await findVm(db, vmId);
  if (!vm || vm.state !== 'stopping' || !vm.instance_id) return 'nothing-to-do';
  try {
    const change = await deps.vmEc2.ec2.stopInstance(vm.instance_id);
    if (change.current === 'stopped') await markVmStopped(db, vm.id, ['stopping'], null, new Date());
  } catch (error) {
    const kind = classifyEc2Error(error);
    if (kind === 'not-found') {
      if (await markVmError(db, vm.id, ['stopping'], VM_MESSAGES.lost, new Date())) {
        await raiseAlert(db, {
          kind: 'instance-lost',
          message: `Stop: ${describeEc2Error(error)}`,
          vmId,
          instanceId: vm.instance_id,
        });
      }
      return 'nothing-to-do';
    }
    throw new RetryLater(`stopping ${vm.instance_id}: ${describeEc2Error(error)}`);
  }
  await scheduleVmCheck(deps.boss, deps.config, { vmId });
  deps.log.info({ vmId, instanceId: vm.instance_id, reason: vm.state_reason }, 'vm-stop: stop requested');
  return 'requested';
}
