import { generateKeyPairSync } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkCapacity } from '../../core/commands/capacity.ts';
import { sql } from '../../core/db/pool.ts';
import { acknowledgeAlert, listAlerts } from '../../core/db/operatorAlerts.ts';
import { findLiveVmByUser, findVmBySubscription } from '../../core/db/vms.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { decryptWindowsPassword } from '../../core/providers/windowsPassword.ts';
import { openWindowsPassword } from '../../core/crypto/vmSecrets.ts';
import { releaseUserResources } from '../../core/commands/accountDeletion.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { startVm } from '../../worker/jobs/vmStart.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { replenishPool } from '../../worker/jobs/poolReplenish.ts';
import { runPlanExpiry } from '../../worker/jobs/planExpiry.ts';
import { reapVms } from '../../worker/jobs/vmReaper.ts';
import { reconcileInstances } from '../../worker/jobs/vmReconcile.ts';
import { requestStart, requestStop } from '../../core/commands/vmActions.ts';
import { attemptBudget } from '../../core/queue.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { dashboardBody } from '../../api/presenters/vm.ts';
import { listNoticesOfUser, listRunSegments } from '../support/rows.ts';

/**
 * The cloud-PC job handlers against a real Postgres and the sandbox EC2 through the real SDK,
 * each called directly (as the worker calls it) so every test can run a handler twice and show
 * that the effect happened once. Time on the EC2 side moves with the sandbox's clock.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());

const MINUTE = 60_000;

/** A user with a paid LEGEND plan and its VM launched (not yet ready). */
async function launched(options: { hours?: 30 | 45 | 65 | 90 } = {}) {
  const user = await createUser(stack);
  const plan = await cloud.activePlan(user.id, options);
  await provisionVm(deps, { subscriptionId: plan.id, userId: user.id });
  const vm = await findVmBySubscription(cloud.db, plan.id);
  if (!vm) throw new Error('no vm');
  return { user, plan, vm };
}

/** …and ready: EC2 has booted it, the sync has its IP and password. */
async function ready(options: { hours?: 30 | 45 | 65 | 90 } = {}) {
  const made = await launched(options);
  cloud.advance(10 * MINUTE);
  await syncVms(deps, { vmId: made.vm.id });
  const vm = await cloud.vm(made.vm.id);
  expect(vm.state).toBe('running');
  return { ...made, vm };
}

describe('vm-provision', () => {
  it('launches one instance however often it runs, even twice at once', async () => {
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id, { planId: 'pro-legend', hours: 45 });
    const payload = { subscriptionId: plan.id, userId: user.id };
    await Promise.all([provisionVm(deps, payload), provisionVm(deps, payload)]);
    await provisionVm(deps, payload);

    const vm = await findVmBySubscription(cloud.db, plan.id);
    expect(vm?.state).toBe('provisioning');
    const instances = cloud.instancesOf(vm!.id);
    expect(instances).toHaveLength(1);
    expect(instances[0]).toMatchObject({
      instanceId: vm!.instance_id,
      instanceType: 'g4dn.2xlarge',
      volumeSizeGb: 225,
      clientToken: vm!.id,
      subnetId: stack.config.ec2.subnetIds[0],
    });
    expect(instances[0]?.tags).toMatchObject({
      'legend:vm': vm!.id,
      'legend:owner': user.id,
      'legend:plan': 'pro-legend',
    });
  });

  it('skips a plan that is not active', async () => {
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id);
    await cloud.exec(sql.unsafe`UPDATE subscriptions SET status = 'cancelled' WHERE id = ${plan.id}`);
    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).resolves.toBe('skipped');
    expect(await findVmBySubscription(cloud.db, plan.id)).toBeNull();
  });

  it('retries capacity errors with backoff, then launches in the fallback subnet', async () => {
    const [main] = stack.config.ec2.subnetIds;
    const [fallback] = stack.config.ec2.fallbackSubnetIds;
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'RunInstances',
          code: 'InsufficientInstanceCapacity',
          status: 500,
          subnetId: main,
          times: 5,
        },
      ],
    });
    try {
      const user = await createUser(stack);
      const plan = await cloud.activePlan(user.id, { planId: 'ultra-legend' });
      const payload = { subscriptionId: plan.id, userId: user.id };
      // Each throw is a pg-boss retry with backoff; the attempt count moves the launch.
      await expect(provisionVm(deps, payload)).rejects.toThrow(/InsufficientInstanceCapacity/);
      let vm = await findVmBySubscription(cloud.db, plan.id);
      expect(vm).toMatchObject({
        state: 'provisioning',
        instance_id: null,
        launch_attempts: 1,
        subnet_id: main,
      });
      // EC2's "no machines" now counts against selling this plan (no warm pool to fall back on).
      expect(
        await checkCapacity(cloud.db, 'ultra-legend', { limits: stack.config.capacityLimits }),
      ).toMatchObject({ ok: false });

      await expect(provisionVm(deps, payload)).rejects.toThrow(/InsufficientInstanceCapacity/);
      await expect(provisionVm(deps, payload)).resolves.toBe('launched');
      vm = await findVmBySubscription(cloud.db, plan.id);
      expect(vm).toMatchObject({ launch_attempts: 3, subnet_id: fallback });
      expect(cloud.instancesOf(vm!.id)).toMatchObject([{ subnetId: fallback }]);
      expect(
        await checkCapacity(cloud.db, 'ultra-legend', { limits: stack.config.capacityLimits }),
      ).toMatchObject({ ok: true });
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });

  it('adopts the instance of a launch whose answer was lost instead of launching another', async () => {
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id);
    // The first attempt reaches EC2, but the worker never hears back (it dies, the socket drops).
    const lossy = cloud.deps();
    const realLaunch = lossy.vmEc2.launcher.launchInstance;
    lossy.vmEc2.launcher.launchInstance = async (input) => {
      await realLaunch(input);
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    };
    await expect(provisionVm(lossy, { subscriptionId: plan.id, userId: user.id })).rejects.toThrow(
      /socket hang up/,
    );
    // The retry lands in another subnet: EC2 refuses the token with other parameters.
    await expect(
      provisionVm(cloud.deps({ vm: { launchAttemptsBeforeFallback: 1 } }), {
        subscriptionId: plan.id,
        userId: user.id,
      }),
    ).resolves.toBe('launched');
    const vm = await findVmBySubscription(cloud.db, plan.id);
    expect(cloud.instancesOf(vm!.id)).toHaveLength(1);
    expect(vm?.instance_id).toBe(cloud.instancesOf(vm!.id)[0]?.instanceId);
  });
});

describe('vm-sync', () => {
  it('calls a machine ready only once Remote Desktop answers; meanwhile the dashboard says it waits', async () => {
    const { vm, user, plan } = await launched();
    await stack.sandboxEc2.setRdp(vm.instance_id!, 'closed');
    cloud.advance(10 * MINUTE); // running, password ready, but Remote Desktop refuses
    await syncVms(deps, { vmId: vm.id });
    const waiting = await cloud.vm(vm.id);
    expect(waiting).toMatchObject({ state: 'provisioning' });
    expect(waiting.password_encrypted).not.toBeNull();
    expect(waiting.remote_desktop_waiting_since).not.toBeNull();
    const subscription = (await findSubscription(cloud.db, plan.id))!;
    const body = dashboardBody({
      user,
      subscription,
      vm: waiting,
      vmConfig: stack.config.vm,
      now: new Date(),
    });
    expect(body).toMatchObject({ vmLastState: 'provisioning', vmPublicIp: null, rdpUrl: null });
    expect(body.notice).toMatch(/waiting for Windows to accept Remote Desktop/);

    await stack.sandboxEc2.setRdp(vm.instance_id!, 'open');
    await syncVms(deps, { vmId: vm.id });
    const ready = await cloud.vm(vm.id);
    expect(ready).toMatchObject({ state: 'running', remote_desktop_waiting_since: null });
    expect(ready.public_ip).toMatch(/^127\./);
  });

  it('makes a launched VM ready once: public IP, and the password decrypted then stored sealed', async () => {
    const { vm } = await launched();
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('provisioning'); // still booting: nothing is charged

    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    await syncVms(deps);
    const running = await cloud.vm(vm.id);
    const instance = cloud.instancesOf(vm.id)[0];
    expect(running).toMatchObject({ state: 'running', public_ip: instance?.publicIp });
    expect(running.password_encrypted).toMatch(/^v1\./);
    const { passwordData } = await deps.vmEc2.ec2.getPasswordData(vm.instance_id!);
    const expected = decryptWindowsPassword(passwordData, stack.config.ec2.privateKeyPem!);
    expect(expected.status).toBe('ready');
    expect(openWindowsPassword(stack.config.appSecret, running.password_encrypted!)).toBe(
      expected.status === 'ready' ? expected.password : '',
    );
    expect(await listRunSegments(cloud.db, vm.id)).toMatchObject([{ ended_at: null }]);
  });

  it('refuses to show garbage when the key is wrong: no password, a clear operator alert', async () => {
    const { vm, user } = await launched();
    cloud.advance(10 * MINUTE);
    const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
    await syncVms(cloud.deps({ ec2: { privateKeyPem: wrongKey } }), { vmId: vm.id });
    const row = await cloud.vm(vm.id);
    expect(row).toMatchObject({ state: 'provisioning', password_encrypted: null });
    const alert = (await listAlerts(cloud.db)).find((a) => a.vm_id === vm.id);
    expect(alert).toMatchObject({ kind: 'password-undecryptable' });
    // Which check failed: the data is well-formed, so the key is named.
    expect(alert?.message).toMatch(
      /^GetPasswordData i-[0-9a-f]+: The Windows password could not be decrypted\. The data is well-formed, but its PKCS#1 padding does not check out under EC2_PRIVATE_KEY_PEM: EC2_PRIVATE_KEY_PEM is not the private key of key pair legend-sandbox\./,
    );
    // Nothing was stored: the owner's password download says "not ready" rather than serve anything.
    expect((await cloud.vm(vm.id)).password_ready_at).toBeNull();
    void user;
  });

  it('counts usage only while running, once per interval however often it runs', async () => {
    const { vm } = await ready();
    await cloud.exec(sql.unsafe`
      UPDATE vms SET usage_seconds = 100, usage_counted_at = now() - interval '60 seconds' WHERE id = ${vm.id}`);
    await Promise.all([syncVms(deps, { vmId: vm.id }), syncVms(deps)]);
    await syncVms(deps);
    const counted = await cloud.vm(vm.id);
    // The minute is counted (plus the moments the sweeps took), and once: twice would be 220.
    expect(counted.usage_seconds).toBeGreaterThanOrEqual(160);
    expect(counted.usage_seconds).toBeLessThan(220);
  });
});

describe('vm-start and vm-stop', () => {
  it('stop then start: each once however often the jobs run, with a new public IP after the start', async () => {
    const { vm } = await ready();
    const firstIp = vm.public_ip;

    expect(await requestStop(cloud.db, stack.services.boss, vm.id, 'user', new Date())).not.toBeNull();
    expect(await requestStop(cloud.db, stack.services.boss, vm.id, 'user', new Date())).toBeNull();
    expect(await cloud.jobs('vm-stop', { vmId: vm.id })).toHaveLength(1);
    await stopVm(deps, { vmId: vm.id });
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    await syncVms(deps, { vmId: vm.id });
    const stopped = await cloud.vm(vm.id);
    expect(stopped).toMatchObject({ state: 'stopped', public_ip: null });
    expect(cloud.instancesOf(vm.id)[0]?.state).toBe('stopped');
    const usageWhenStopped = stopped.usage_seconds;

    expect(await requestStart(cloud.db, stack.services.boss, vm.id, 'user', new Date())).not.toBeNull();
    expect(await requestStart(cloud.db, stack.services.boss, vm.id, 'user', new Date())).toBeNull();
    await expect(startVm(deps, { vmId: vm.id })).resolves.toBe('requested');
    await startVm(deps, { vmId: vm.id });
    // While it boots nothing is counted.
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).usage_seconds).toBe(usageWhenStopped);
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    const running = await cloud.vm(vm.id);
    expect(running.state).toBe('running');
    expect(running.public_ip).toMatch(/^127\.\d+\.\d+\.\d+$/); // the sandbox's loopback address with a real listener
    expect(running.public_ip).not.toBe(firstIp);
    expect(running.usage_seconds).toBe(usageWhenStopped);
    expect((await listRunSegments(cloud.db, vm.id)).map((s) => s.ended_at === null)).toEqual([false, true]);
  });

  it('a machine shut down from inside Windows shows stopped and is not charged after the last count', async () => {
    const { vm } = await ready();
    await deps.vmEc2.ec2.stopInstance(vm.instance_id!);
    cloud.advance(2 * MINUTE);
    const before = (await cloud.vm(vm.id)).usage_seconds;
    await syncVms(deps);
    const row = await cloud.vm(vm.id);
    expect(row).toMatchObject({ state: 'stopped', state_reason: 'shut-down', usage_seconds: before });
  });

  it('gives up a start after its attempts when EC2 has no capacity: stopped again, plain message, operator alert', async () => {
    const { vm } = await ready();
    await requestStop(cloud.db, stack.services.boss, vm.id, 'user', new Date());
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'StartInstances',
          code: 'InsufficientInstanceCapacity',
          status: 500,
          instanceId: vm.instance_id!,
          times: 10,
        },
      ],
    });
    try {
      await requestStart(cloud.db, stack.services.boss, vm.id, 'user', new Date());
      // Every attempt but the last is retried by the queue; the last spends the budget and gives up.
      const budget = attemptBudget('vm-start');
      for (let attempt = 1; attempt < budget; attempt += 1) {
        await expect(startVm(deps, { vmId: vm.id })).rejects.toThrow(/InsufficientInstanceCapacity/);
      }
      await expect(startVm(deps, { vmId: vm.id })).resolves.toBe('gave-up');
      const row = await cloud.vm(vm.id);
      expect(row).toMatchObject({ state: 'stopped', state_reason: 'start-failed' });
      expect(row.problem).toMatch(/could not be started/);
      expect((await listAlerts(cloud.db)).some((a) => a.vm_id === vm.id && a.kind === 'start-failed')).toBe(
        true,
      );
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });
});

describe('vm-terminate', () => {
  it('terminates the instance once and ends the VM', async () => {
    const { vm } = await ready();
    await cloud.db.transaction(async (trx) => {
      const { requestTerminate } = await import('../../core/commands/vmActions.ts');
      await requestTerminate(trx, stack.services.boss, vm.id, 'test', new Date());
    });
    // Asked: still "being deleted" until EC2 confirms.
    await expect(terminateVm(deps, { vmId: vm.id })).resolves.toBe('deleting');
    expect((await cloud.vm(vm.id)).state).toBe('terminating');
    expect(cloud.instancesOf(vm.id)[0]?.state).toBe('shutting-down');
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    await expect(terminateVm(deps, { vmId: vm.id })).resolves.toBe('nothing-to-do');
    expect(cloud.instancesOf(vm.id)).toHaveLength(1);
    expect(cloud.instancesOf(vm.id)[0]?.state).toBe('terminated');
  });

  it('account deletion terminates every machine of the user and cancels the plan', async () => {
    const { vm, user, plan } = await ready();
    await cloud.db.transaction((trx) => releaseUserResources(trx, stack.services.boss, user.id));
    expect((await cloud.vm(vm.id)).state).toBe('terminating');
    expect(await cloud.jobs('vm-terminate', { vmId: vm.id })).toHaveLength(1);
    expect((await findSubscription(cloud.db, plan.id))?.status).toBe('cancelled');
    await terminateVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
  });
});

describe('warm pool', () => {
  it('a claimed spare EC2 will not start yet is looked at again shortly, then started', async () => {
    const pooled = cloud.deps({ vm: { warmPoolSize: { ...stack.config.vm.warmPoolSize, legend: 1 } } });
    await replenishPool(pooled);
    cloud.advance(10 * MINUTE);
    await syncVms(pooled);
    cloud.advance(2 * MINUTE);
    await syncVms(pooled);
    const spare = await cloud.db.one(
      sql.type(z.object({ instance_id: z.string() }))`
        SELECT instance_id FROM pool_instances
        WHERE plan_id = 'legend' AND state = 'ready' ORDER BY created_at DESC LIMIT 1`,
    );
    // EC2 refuses the start as it does an instance still in a transition (IncorrectInstanceState).
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'StartInstances',
          code: 'IncorrectInstanceState',
          status: 400,
          instanceId: spare.instance_id,
          times: 1,
        },
      ],
    });

    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id, { planId: 'legend' });
    await expect(provisionVm(pooled, { subscriptionId: plan.id, userId: user.id })).resolves.toBe(
      'claimed-pool',
    );
    const vm = (await findVmBySubscription(cloud.db, plan.id))!;
    expect(vm).toMatchObject({ instance_id: spare.instance_id, state: 'provisioning' });
    // Not left to the minute sweep: a check of this machine is queued, and it starts it.
    expect(await cloud.jobs('vm-sync', { vmId: vm.id })).not.toHaveLength(0);
    await syncVms(pooled, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(pooled, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('running');
  });

  it('a spare whose Windows never finishes its first boot is failed and terminated, with an alert', async () => {
    const before = stack.sandboxEc2.state();
    // The plan's image is broken: no password for ten hours.
    stack.sandboxEc2.control({ timings: { password: [36_000_000, 36_000_000] } });
    try {
      const pooled = cloud.deps({
        vm: { warmPoolSize: { ...stack.config.vm.warmPoolSize, 'pro-legend': 1 } },
      });
      await replenishPool(pooled);
      const row = await cloud.db.one(
        sql.type(z.object({ id: z.string(), instance_id: z.string() }))`
          SELECT id, instance_id FROM pool_instances
          WHERE plan_id = 'pro-legend' AND state = 'launching' ORDER BY created_at DESC LIMIT 1`,
      );
      const stateOf = async () =>
        cloud.db.oneFirst(
          sql.type(z.object({ state: z.string() }))`SELECT state FROM pool_instances WHERE id = ${row.id}`,
        );
      cloud.advance(20 * MINUTE); // running, first boot not done: it waits
      await syncVms(pooled);
      expect(await stateOf()).toBe('launching');
      // Past the first-boot deadline (the app's clock is the real one: its launch is moved back).
      cloud.advance(30 * MINUTE);
      await cloud.exec(
        sql.unsafe`UPDATE pool_instances SET launched_at = now() - interval '50 minutes' WHERE id = ${row.id}`,
      );
      await syncVms(pooled);
      expect(await stateOf()).toBe('failed');
      expect(stack.sandboxEc2.state().instances.find((i) => i.instanceId === row.instance_id)?.state).toMatch(
        /shutting-down|terminated/,
      );
      // The next spare would fail the same way: the plan's pool is held, its alert naming the image.
      const alert = (await listAlerts(cloud.db)).find((a) => a.dedupe_key === 'pool-hold:pro-legend');
      expect(alert?.kind).toBe('pool-hold');
      expect(alert?.message).toContain(row.instance_id);
      expect(alert?.message).toMatch(/Fix: check the plan's image \(EC2_AMI_PRO_LEGEND or EC2_AMI_ID\)/);
      expect((await replenishPool(pooled)).launched).toBe(0);
      // The image fixed, an operator acknowledges the alert: the hold is released at once.
      await acknowledgeAlert(cloud.db, alert!.id);
    } finally {
      stack.sandboxEc2.control({ timings: { password: before.timings.password } });
    }
  });

  it('keeps N first-boot-done stopped instances per plan, and a purchase takes one: a start, not a launch', async () => {
    const pooled = cloud.deps({ vm: { warmPoolSize: { ...stack.config.vm.warmPoolSize, 'editor-low': 2 } } });
    await Promise.all([replenishPool(pooled), replenishPool(pooled)]);
    await replenishPool(pooled);
    const rows = async () =>
      cloud.db.any(
        sql.type(z.object({ id: z.string(), state: z.string(), instance_id: z.string().nullable() }))`
          SELECT id, state, instance_id FROM pool_instances WHERE plan_id = 'editor-low' ORDER BY created_at`,
      );
    expect((await rows()).map((r) => r.state)).toEqual(['launching', 'launching']);
    const launchedIds = (await rows()).map((r) => r.instance_id);
    expect(new Set(launchedIds).size).toBe(2);

    cloud.advance(10 * MINUTE); // first boot done, password available
    await syncVms(pooled);
    expect((await rows()).map((r) => r.state)).toEqual(['stopping', 'stopping']);
    cloud.advance(2 * MINUTE);
    await syncVms(pooled);
    expect((await rows()).map((r) => r.state)).toEqual(['ready', 'ready']);
    const poolInstances = stack.sandboxEc2
      .state()
      .instances.filter((i) => launchedIds.includes(i.instanceId));
    expect(poolInstances.map((i) => [i.state, i.passwordReady])).toEqual([
      ['stopped', true],
      ['stopped', true],
    ]);
    // Stopped warm machines hold no hardware: a ready one says yes to selling the plan.
    expect(await checkCapacity(cloud.db, 'editor-low', { limits: { 'g5.2xlarge': 5 } })).toMatchObject({
      ok: true,
    });

    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id, { planId: 'editor-low' });
    await expect(provisionVm(pooled, { subscriptionId: plan.id, userId: user.id })).resolves.toBe(
      'claimed-pool',
    );
    await expect(provisionVm(pooled, { subscriptionId: plan.id, userId: user.id })).resolves.toBe(
      'in-progress',
    );
    const vm = (await findVmBySubscription(cloud.db, plan.id))!;
    expect(vm).toMatchObject({ source: 'pool', state: 'provisioning' });
    expect(launchedIds).toContain(vm.instance_id);
    expect(vm.password_encrypted).toMatch(/^v1\./);
    // Tagged as the customer's machine now.
    expect(
      stack.sandboxEc2.state().instances.find((i) => i.instanceId === vm.instance_id)?.tags,
    ).toMatchObject({
      'legend:vm': vm.id,
      'legend:owner': user.id,
    });
    cloud.advance(2 * MINUTE);
    await syncVms(pooled, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('running');
    // The claim asked for a top-up; the pool is back to two filling.
    expect(await cloud.jobs('pool-replenish')).not.toHaveLength(0);
    await replenishPool(pooled);
    expect((await rows()).filter((r) => r.state !== 'claimed')).toHaveLength(2);
  });

  it('a claim is crash-safe: ownership is written first, and tags and the start converge after a crash at any step', async () => {
    const pooled = cloud.deps({ vm: { warmPoolSize: { ...stack.config.vm.warmPoolSize, 'pro-legend': 3 } } });
    await replenishPool(pooled);
    cloud.advance(10 * MINUTE);
    await syncVms(pooled);
    cloud.advance(2 * MINUTE);
    await syncVms(pooled);
    const tagsOf = (instanceId: string | null) =>
      stack.sandboxEc2.state().instances.find((i) => i.instanceId === instanceId);

    // The worker dies at each step in turn: before tagging, between tagging and starting.
    for (const dieAt of ['tag', 'start'] as const) {
      const user = await createUser(stack);
      const plan = await cloud.activePlan(user.id, { planId: 'pro-legend' });
      const dying = cloud.deps({ vm: pooled.config.vm });
      const crash = () => {
        throw Object.assign(new Error(`worker died before ${dieAt}`), { name: 'WorkerDied' });
      };
      if (dieAt === 'tag') dying.vmEc2.ec2.tagInstances = async () => crash();
      else dying.vmEc2.launcher.startInstance = async () => crash();
      await expect(provisionVm(dying, { subscriptionId: plan.id, userId: user.id })).rejects.toThrow(
        /worker died/,
      );
      const owned = (await findVmBySubscription(cloud.db, plan.id))!;
      // Ownership is recorded whatever happened after it: the instance is this machine's.
      expect(owned).toMatchObject({ source: 'pool', state: 'provisioning' });
      expect(owned.instance_id).not.toBeNull();
      expect(tagsOf(owned.instance_id)?.tags['legend:vm']).toBe(dieAt === 'tag' ? undefined : owned.id);

      // The next worker (the job retried, or the minute sweep) carries on from the row, once the
      // failed step's backoff (the poll interval, with jitter) has passed.
      const ready = await waitFor('the claimed machine converges', async () => {
        await syncVms(pooled);
        cloud.advance(2 * MINUTE);
        await syncVms(pooled, { vmId: owned.id });
        const row = await cloud.vm(owned.id);
        return row.state === 'running' ? row : null;
      });
      expect(tagsOf(ready.instance_id)?.tags).toMatchObject({
        'legend:vm': owned.id,
        'legend:owner': user.id,
      });
      expect(cloud.instancesOf(owned.id)).toHaveLength(1);
    }
  });

  it('keeps hot spares running, sized by demand within POOL_HOT and the capacity limit; a purchase needs no start', async () => {
    const hot = cloud.deps({
      vm: {
        warmPoolSize: { ...stack.config.vm.warmPoolSize, 'ultra-legend': 0 },
        hotPoolMax: { ...stack.config.vm.hotPoolMax, 'ultra-legend': 3 },
      },
    });
    const rows = async () =>
      cloud.db.any(
        sql.type(
          z.object({
            id: z.string(),
            state: z.string(),
            hot: z.boolean(),
            instance_id: z.string().nullable(),
          }),
        )`
          SELECT id, state, hot, instance_id FROM pool_instances WHERE plan_id = 'ultra-legend' ORDER BY created_at`,
      );
    // No demand yet: one spare, however often replenish runs.
    await Promise.all([replenishPool(hot), replenishPool(hot)]);
    expect((await rows()).map((r) => [r.state, r.hot])).toEqual([['launching', true]]);
    cloud.advance(10 * MINUTE);
    await syncVms(hot);
    // First boot done: ready as it is, still running (no stop, unlike the warm pool).
    const [spare] = await rows();
    expect(spare).toMatchObject({ state: 'ready', hot: true });
    expect(stack.sandboxEc2.state().instances.find((i) => i.instanceId === spare!.instance_id)?.state).toBe(
      'running',
    );

    // A purchase takes it: tags and Remote Desktop, no StartInstances.
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id, { planId: 'ultra-legend' });
    await expect(provisionVm(hot, { subscriptionId: plan.id, userId: user.id })).resolves.toBe(
      'claimed-pool',
    );
    const vm = await cloud.vm((await findVmBySubscription(cloud.db, plan.id))!.id);
    expect(vm).toMatchObject({ state: 'running', source: 'pool', instance_id: spare!.instance_id });
    expect(vm.public_ip).not.toBeNull();

    // One claim in the last hour: two spares wanted now, within POOL_HOT = 3.
    await replenishPool(hot);
    expect((await rows()).filter((r) => r.state !== 'claimed')).toHaveLength(2);
    // A capacity limit with no room left launches none, whatever the demand.
    const full = cloud.deps({
      vm: { ...hot.config.vm, hotPoolMax: { ...stack.config.vm.hotPoolMax, 'editor-high': 3 } },
    });
    full.config.capacityLimits = { ...full.config.capacityLimits, 'g5.4xlarge': 0 };
    await replenishPool(full);
    expect(
      await cloud.db.oneFirst(
        sql.unsafe`SELECT count(*)::int FROM pool_instances WHERE plan_id = 'editor-high'`,
      ),
    ).toBe(0);
  });
});

describe('hours', () => {
  it('mails at 80 % and 100 % once, stops at 100 %, and START is refused', async () => {
    const { vm, user, plan } = await ready({ hours: 30 });
    const planSeconds = 30 * 3600;
    await cloud.exec(sql.unsafe`
      UPDATE vms SET usage_seconds = ${planSeconds * 0.8 - 1}, usage_counted_at = now() - interval '5 seconds'
      WHERE id = ${vm.id}`);
    await syncVms(deps);
    await syncVms(deps, { vmId: vm.id });
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80']);
    expect((await cloud.vm(vm.id)).state).toBe('running');

    await cloud.exec(sql.unsafe`
      UPDATE vms SET usage_seconds = ${planSeconds - 1}, usage_counted_at = now() - interval '5 seconds'
      WHERE id = ${vm.id}`);
    await Promise.all([syncVms(deps), syncVms(deps, { vmId: vm.id })]);
    const stopping = await cloud.vm(vm.id);
    expect(stopping).toMatchObject({
      state: 'stopping',
      state_reason: 'out-of-hours',
      usage_seconds: planSeconds,
    });
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80', 'vm-hours-100']);
    expect(await cloud.jobs('vm-stop', { vmId: vm.id })).toHaveLength(1);
    expect((await listNoticesOfUser(cloud.db, user.id)).map((n) => n.kind)).toEqual([
      'hours-80',
      'hours-100',
    ]);

    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
    // A start that slipped through (queued before the hours ran out) is refused by the job too.
    await cloud.exec(sql.unsafe`UPDATE vms SET state = 'starting' WHERE id = ${vm.id}`);
    await expect(startVm(deps, { vmId: vm.id })).resolves.toBe('refused');
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
    void plan;
  });
});

describe('plan expiry', () => {
  it('reminds 3 days and 1 day before, once each; stops at expiry; terminates after the grace period', async () => {
    const { vm, user, plan } = await ready();
    const setExpiry = (interval: string) =>
      cloud.exec(
        sql.unsafe`UPDATE subscriptions SET expires_at = now() + ${interval}::interval WHERE id = ${plan.id}`,
      );

    await setExpiry('2 days 12 hours');
    await runPlanExpiry(deps);
    await runPlanExpiry(deps);
    expect(await cloud.mailKinds(user.email)).toEqual(['plan-expiry-3d']);
    await setExpiry('20 hours');
    await Promise.all([runPlanExpiry(deps), runPlanExpiry(deps)]);
    expect(await cloud.mailKinds(user.email)).toEqual(['plan-expiry-3d', 'plan-expiry-1d']);
    expect((await cloud.vm(vm.id)).state).toBe('running');

    await setExpiry('-1 minute');
    await runPlanExpiry(deps);
    await runPlanExpiry(deps);
    expect((await findSubscription(cloud.db, plan.id))?.status).toBe('expired');
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'stopping', state_reason: 'plan-expired' });
    expect(await cloud.mailKinds(user.email)).toEqual(['plan-expiry-3d', 'plan-expiry-1d', 'plan-expired']);
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('stopped');

    // Within the grace period the machine is kept; after it, terminated and the customer told.
    const inSixDays = new Date(Date.now() + 6 * 86_400_000);
    expect((await runPlanExpiry(deps, inSixDays)).terminated).toBe(0);
    const inEightDays = new Date(Date.now() + 8 * 86_400_000);
    expect((await runPlanExpiry(deps, inEightDays)).terminated).toBe(1);
    expect((await runPlanExpiry(deps, inEightDays)).terminated).toBe(0);
    // Its disk is kept as a snapshot first (followed to the end in kept-disks.test.ts); the
    // customer hears of it, with the dates, once the copy is safe.
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'terminating', keep_disk: true });
    expect(await cloud.mailKinds(user.email)).not.toContain('vm-terminated');
  });

  it('a renewal keeps the same machine and disk, restarts its hours, and starts it', async () => {
    const { vm, user, plan } = await ready({ hours: 30 });
    await cloud.exec(sql.unsafe`UPDATE vms SET usage_seconds = 5000 WHERE id = ${vm.id}`);
    await cloud.exec(
      sql.unsafe`UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE id = ${plan.id}`,
    );
    await runPlanExpiry(deps);
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('stopped');

    const renewal = await cloud.activePlan(user.id, { hours: 45 });
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe('renewed');
    await provisionVm(deps, { subscriptionId: renewal.id, userId: user.id });
    const renewed = await cloud.vm(vm.id);
    expect(renewed).toMatchObject({
      subscription_id: renewal.id,
      instance_id: vm.instance_id,
      state: 'starting',
      usage_seconds: 0,
    });
    expect(await cloud.jobs('vm-start', { vmId: vm.id })).toHaveLength(1);
    expect(cloud.instancesOf(vm.id, { live: true })).toHaveLength(1);
    expect((await findLiveVmByUser(cloud.db, user.id))?.id).toBe(vm.id);
    // Renewed before the grace period ended: nothing is terminated later.
    expect((await runPlanExpiry(deps, new Date(Date.now() + 8 * 86_400_000))).terminated).toBe(0);
  });
});

describe('vm-reaper', () => {
  it('tells the customer once when provisioning runs late, alerts an operator, and re-sends stalled jobs', async () => {
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'RunInstances',
          code: 'InsufficientInstanceCapacity',
          status: 500,
          instanceType: 'g5.4xlarge',
          times: 50,
        },
      ],
    });
    try {
      const user = await createUser(stack);
      const plan = await cloud.activePlan(user.id, { planId: 'editor-high' });
      await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).rejects.toThrow();
      const vm = (await findVmBySubscription(cloud.db, plan.id))!;
      const later = new Date(Date.now() + (stack.config.vm.provisionDeadlineMinutes + 1) * MINUTE);
      await reapVms(deps, later);
      await reapVms(deps, later);
      expect(await cloud.mailKinds(user.email)).toEqual(['vm-provision-delayed']);
      expect((await cloud.vm(vm.id)).delayed_at).not.toBeNull();
      expect((await listAlerts(cloud.db)).filter((a) => a.vm_id === vm.id).map((a) => a.kind)).toEqual([
        'provision-delayed',
      ]);

      const stalled = new Date(Date.now() + (stack.config.vm.stuckSeconds + 60) * 1000);
      const before = (await cloud.jobs('vm-provision', { subscriptionId: plan.id })).length;
      expect((await reapVms(deps, stalled)).retried).toBeGreaterThanOrEqual(1);
      expect(await cloud.jobs('vm-provision', { subscriptionId: plan.id })).toHaveLength(before + 1);
      // The row was touched: the next run waits another stuck period before sending again.
      await reapVms(deps, new Date(Date.now() + 60_000));
      expect(await cloud.jobs('vm-provision', { subscriptionId: plan.id })).toHaveLength(before + 1);
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });

  it('a stop EC2 keeps refusing is sent again and reaches an operator, as the machine still bills', async () => {
    const { vm } = await ready();
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'StopInstances',
          code: 'InternalError',
          status: 500,
          instanceId: vm.instance_id!,
          times: 50,
        },
      ],
    });
    try {
      await expect(
        requestStop(cloud.db, stack.services.boss, vm.id, 'user', new Date()),
      ).resolves.toBeTruthy();
      await expect(stopVm(deps, { vmId: vm.id })).rejects.toThrow();
      expect((await cloud.vm(vm.id)).state).toBe('stopping');
      const stalledAlert = async () =>
        (await listAlerts(cloud.db)).find((a) => a.vm_id === vm.id && a.kind === 'unexpected-state');
      // Not yet stalled: nothing sent again, nobody paged.
      await reapVms(deps, new Date());
      expect(await stalledAlert()).toBeUndefined();

      const stalled = new Date(Date.now() + (stack.config.vm.stuckSeconds + 60) * 1000);
      const before = (await cloud.jobs('vm-stop', { vmId: vm.id })).length;
      await reapVms(deps, stalled);
      expect(await cloud.jobs('vm-stop', { vmId: vm.id })).toHaveLength(before + 1);
      const alert = await stalledAlert();
      expect(alert?.message).toMatch(
        /has been stopping for \d+ minutes; its job was sent again\. Last error: /,
      );
      expect(alert?.instance_id).toBe(vm.instance_id);
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });

  it('sends provisioning again, once, for a paid plan whose job died before creating its machine', async () => {
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id);
    expect(await findVmBySubscription(cloud.db, plan.id)).toBeNull();
    const sent = async () => (await cloud.jobs('vm-provision', { subscriptionId: plan.id })).length;
    const before = await sent();
    // Not yet late: nothing to do.
    await reapVms(deps, new Date());
    expect(await sent()).toBe(before);
    const late = new Date(Date.now() + (stack.config.vm.provisionDeadlineMinutes + 1) * MINUTE);
    await reapVms(deps, late);
    await reapVms(deps, late);
    expect(await sent()).toBe(before + 1);
    expect((await listAlerts(cloud.db)).some((a) => a.dedupe_key === `provision-no-machine:${plan.id}`)).toBe(
      true,
    );
    // The job sent again does what the lost one should have; then nothing is missing.
    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).resolves.toBe('launched');
    await reapVms(deps, new Date(late.getTime() + 10 * MINUTE));
    expect(await sent()).toBe(before + 1);
  });
});

describe('vm-reconcile', () => {
  it('reports an instance tagged as ours that no row owns, then terminates it after the grace period', async () => {
    const stray = await deps.vmEc2.launcher.launchInstance({
      clientToken: 'stray-0001',
      instanceType: 'g4dn.xlarge',
      imageId: stack.config.ec2.amiByPlan.legend,
      keyName: stack.config.ec2.keyName,
      securityGroupIds: stack.config.ec2.securityGroupIds,
      subnetId: stack.config.ec2.subnetIds[0]!,
      volumeSizeGb: 115,
      tags: {
        'legend:deployment': stack.config.ec2.deploymentTag,
        'legend:vm': '00000000-0000-4000-8000-000000000000',
      },
    });
    const { vm } = await ready();
    await reconcileInstances(deps);
    await reconcileInstances(deps);
    const alerts = (await listAlerts(cloud.db)).filter((a) => a.instance_id === stray.instanceId);
    expect(alerts).toMatchObject([{ kind: 'orphan-instance', occurrences: 1 }]);
    expect(
      stack.sandboxEc2.state().instances.find((i) => i.instanceId === stray.instanceId)?.state,
    ).not.toMatch(/terminated|shutting/);

    const afterGrace = new Date(Date.now() + (stack.config.vm.orphanGraceMinutes + 1) * MINUTE);
    const result = await reconcileInstances(deps, afterGrace);
    expect(result.terminated).toBe(1);
    expect(stack.sandboxEc2.state().instances.find((i) => i.instanceId === stray.instanceId)?.state).toMatch(
      /terminated|shutting/,
    );
    // Owned machines are never touched.
    expect(cloud.instancesOf(vm.id)[0]?.state).toBe('running');
  });
});

describe('npm run alerts', () => {
  it('lists open alerts for operators, resolves one, and re-provisions a machine that ended in error', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['scripts/alerts.ts', ...args], {
        env: { ...process.env, DATABASE_URL: stack.databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent' },
      });
    const { vm, plan } = await launched();
    const { markVmError } = await import('../../core/db/vms.ts');
    const { raiseAlert } = await import('../../core/db/operatorAlerts.ts');
    await markVmError(cloud.db, vm.id, 'lose', 'failed', new Date());
    const { alert } = await raiseAlert(cloud.db, {
      kind: 'provision-failed',
      message: 'Gave up after 20 attempts.',
      vmId: vm.id,
    });

    const listed = await cli();
    expect(listed.stdout).toContain(`${alert.id}  provision-failed  OPEN`);
    expect(listed.stdout).toContain('Gave up after 20 attempts.');

    await cli('reprovision', vm.id);
    expect((await cloud.vm(vm.id)).state).toBe('terminating');
    expect(await cloud.jobs('vm-provision', { subscriptionId: plan.id })).not.toHaveLength(0);
    // The plan gets a new machine (a new row, so a new ClientToken).
    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: plan.user_id })).resolves.toBe(
      'launched',
    );
    const fresh = await findVmBySubscription(cloud.db, plan.id);
    expect(fresh?.id).not.toBe(vm.id);

    await cli('resolve', alert.id);
    expect((await cli()).stdout).not.toContain(alert.id);
    expect((await cli('all')).stdout).toContain(`${alert.id}  provision-failed  resolved`);
  });
});
