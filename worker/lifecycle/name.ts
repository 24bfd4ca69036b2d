import { sendJob } from '../../core/queue.ts';
import { advanceName } from '../machineName.ts';
import type { Step, StepContext } from './step.ts';

/** Route 53 failed on the lifecycle's one try: the `machine-name` job retries with backoff. */
async function retryName({ deps, vm }: Pick<StepContext, 'deps' | 'vm'>): Promise<void> {
  await sendJob(deps.boss, 'machine-name', { vmId: vm.id }, { singletonKey: vm.id, startAfter: 5 });
}

/**
 * The machine's DNS name is pointed at the address it is about to be shown with (one try). If
 * Route 53 fails, the machine is shown running all the same, with its address and a note that
 * the name is being updated, and the `machine-name` job retries with backoff. If the customer's
 * name is still their previous machine's (its termination lags), the machine is shown with its
 * address and the minute sweep hands the name over once that machine is gone.
 */
export const pointName: Step<'point-name'> = async ({ deps, vm, log }, decision) => {
  const outcome = await advanceName(deps, vm, { state: 'running', publicIp: decision.publicIp });
  if (outcome === 'done') return {};
  if (outcome === 'waiting') {
    // The customer's name is still their previous machine's: shown with its address meanwhile;
    // the minute sweep hands the name over once that machine is gone.
    log.info(
      { publicIp: decision.publicIp },
      'lifecycle: name waits for the previous machine; shown with its address',
    );
    return { lastTry: 'name-failed' };
  }
  await retryName({ deps, vm });
  log.warn(
    { publicIp: decision.publicIp },
    'lifecycle: name not pointed yet; shown with its address, retried',
  );
  return { lastTry: 'name-failed' };
};

/**
 * The machine's DNS name is taken off the address it is about to give back (before a stop or a
 * deletion, or once found stopped): `decideName` points it at the sink for a machine in this
 * state. One try: if Route 53 fails, the stop or deletion goes on, and the `machine-name` job
 * retries with backoff (and alerts after 10 minutes).
 */
export const sinkName: Step<'sink-name'> = async ({ deps, vm, log }) => {
  const outcome = await advanceName(deps, vm, { state: vm.state, publicIp: null });
  if (outcome === 'done') return {};
  await retryName({ deps, vm });
  log.warn(
    { state: vm.state },
    'lifecycle: name not taken off the old address yet; the stop goes on, retried',
  );
  return { lastTry: 'name-failed' };
};
