import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findVmBySubscription, listStuckVms } from '../../core/db/vms.ts';
import { createLogger } from '../../core/observability/log.ts';
import { sendJob } from '../../core/queue.ts';
import { createVmEc2 } from '../../core/providers/vmEc2.ts';
import { startWorker, type RunningWorker } from '../../worker/worker.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * A worker killed in the middle of provisioning (RunInstances sent, its answer never recorded)
 * and another started: the machine is still launched exactly once and becomes ready.
 */

// The reaper re-sends a transition that has not moved for a second (production: 30 minutes).
const stack = await startTestStack({ env: { VM_STUCK_SECONDS: '1' } });
const cloud = cloudPcHelpers(stack);
const log = createLogger({ level: 'silent', name: 'test-worker' });
const workers: RunningWorker[] = [];
afterAll(async () => {
  for (const worker of workers) await worker.stop().catch(() => undefined);
  cloud.destroy();
});

describe('worker killed mid-provision', () => {
  it('restarted, it adopts the instance it launched: one instance, a ready VM', async () => {
    // The first worker reaches EC2, then "dies" before it can record the answer: its
    // RunInstances never returns, and it is stopped without finishing its job.
    const doomed = createVmEc2(stack.config.ec2);
    const launch = doomed.launcher.launchInstance;
    let launched = false;
    doomed.launcher.launchInstance = async (input) => {
      await launch(input);
      launched = true;
      return new Promise(() => {});
    };
    const first = await startWorker(stack.config, stack.databaseUrl, log, {
      pollingIntervalSeconds: 0.5,
      vmEc2: doomed,
    });
    workers.push(first);

    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id);
    await sendJob(stack.services.boss, 'vm-provision', { subscriptionId: plan.id, userId: user.id });
    await waitFor('the first worker to launch', async () => launched);
    const vm = (await findVmBySubscription(cloud.db, plan.id))!;
    expect(vm).toMatchObject({ state: 'provisioning', instance_id: null });
    expect(cloud.instancesOf(vm.id)).toHaveLength(1);

    await first.stop({ graceful: false });
    workers.splice(workers.indexOf(first), 1);
    doomed.destroy();
    // A dead process's connections die with it, and Postgres frees what they held (the machine's
    // lock among them). This one lives on in the test process, so end its sessions as death would.
    await cloud.db.query(sql.unsafe`
      SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()`);

    const second = await startWorker(stack.config, stack.databaseUrl, log, { pollingIntervalSeconds: 0.5 });
    workers.push(second);
    // What the minute crons do: the sync sweep may adopt the instance by its ClientToken first;
    // otherwise, once the row has been still for VM_STUCK_SECONDS, the reaper finds the stalled
    // provisioning and sends it again. Either way, one of the two.
    await waitFor(
      'the provisioning to be adopted or to count as stalled',
      async () =>
        (await cloud.vm(vm.id)).instance_id !== null ||
        (await listStuckVms(cloud.db, new Date(), 1)).some((row) => row.id === vm.id),
    );
    await sendJob(stack.services.boss, 'vm-reaper', {});
    const ready = await cloud.waitForVm(vm.id, 'to be ready', (row) => row.state === 'running', 25_000);

    const instances = cloud.instancesOf(vm.id);
    expect(instances).toHaveLength(1);
    expect(ready.instance_id).toBe(instances[0]?.instanceId);
    expect(ready.public_ip).toBe(instances[0]?.publicIp);
    expect(ready.password_encrypted).toMatch(/^v1\./);
  });
});
