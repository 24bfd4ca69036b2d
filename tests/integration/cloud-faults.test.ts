import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { dashboardBody } from '../../api/presenters/vm.ts';
import { findDashboardState } from '../../core/db/dashboard.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { findAccountBackoff, findStepFailure, vmSubject } from '../../core/db/stepFailures.ts';
import { sql } from '../../core/db/pool.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { PROVISION_DELAY_WORDS } from '../../core/domain/provisionDelay.ts';
import { createLogger } from '../../core/observability/log.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { reapVms } from '../../worker/jobs/vmReaper.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { sweepFleet } from '../../worker/lifecycle/sweep.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { sampleValue } from '../support/prometheus.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * Faults in combination against the sandbox EC2 (injected through its `_control`) and a wrong
 * key: a step that fails the same way is paced and its log line drops to a warning with a count;
 * AWS throttling slows the whole account down; the provisioning-delay notice names the real cause.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
afterAll(() => cloud.destroy());

const MINUTE = 60_000;

/** Worker dependencies whose log lines are kept (level and fields) for the test to read. */
function withLogLines() {
  const lines: Array<{ level: number; msg: string; failures?: number; action?: string; code?: string }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const deps = cloud.deps();
  return { deps: { ...deps, log: createLogger({ level: 'info', name: 'test', destination }) }, lines };
}

async function launched(planId: 'legend' | 'pro-legend' = 'legend') {
  const user = await createUser(stack);
  const plan = await cloud.activePlan(user.id, { planId });
  await provisionVm(cloud.deps(), { subscriptionId: plan.id, userId: user.id });
  return { user, plan, vm: (await findVmBySubscription(cloud.db, plan.id))! };
}

describe('a step that keeps failing the same way', () => {
  it('is paced: an error line once, then warnings with a count, and the next look waits for its backoff', async () => {
    const { vm } = await launched();
    // The machine's own look keeps failing (scoped to its instance through the filter it is asked by).
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'DescribeInstances',
          code: 'InternalError',
          status: 500,
          instanceId: vm.instance_id!,
          forMs: 30 * MINUTE,
        },
      ],
    });
    const { deps, lines } = withLogLines();
    await syncVms(deps, { vmId: vm.id });
    const first = await findStepFailure(cloud.db, vmSubject(vm.id));
    expect(first).toMatchObject({ action: 'DescribeInstances', code: 'InternalError', count: 1 });
    expect(first?.detail).toMatch(
      /^DescribeInstances \[filter instance-id=i-[0-9a-f]+\]: InternalError \(request [0-9a-f-]+\)/,
    );
    // Asked again before its backoff is over: not looked at, the check put off to then.
    const queued = (await cloud.jobs('vm-sync', { vmId: vm.id })).length;
    await syncVms(deps, { vmId: vm.id });
    expect(await findStepFailure(cloud.db, vmSubject(vm.id))).toMatchObject({ count: 1 });
    expect((await cloud.jobs('vm-sync', { vmId: vm.id })).length).toBeGreaterThan(queued);
    // Past it, it fails again: counted, a warning with the count.
    await cloud.exec(
      sql.unsafe`
        UPDATE step_failures SET next_at = now() - interval '1 second' WHERE subject = ${vmSubject(vm.id)}`,
    );
    await syncVms(deps, { vmId: vm.id });
    const second = await findStepFailure(cloud.db, vmSubject(vm.id));
    expect(second?.count).toBe(2);
    // Doubled (with jitter): at least the poll interval, more than the first wait's lower bound.
    expect(second!.next_at.getTime() - second!.last_at.getTime()).toBeGreaterThanOrEqual(
      stack.config.vm.pollSeconds * 1000,
    );
    const failing = lines.filter((l) => l.action === 'DescribeInstances');
    expect(failing.map((l) => [l.level, l.failures])).toEqual([
      [50, 1],
      [40, 2],
    ]);
    stack.sandboxEc2.control({ clearFaults: true });
    // It goes through: the run of failures is over.
    await cloud.exec(
      sql.unsafe`
        UPDATE step_failures SET next_at = now() - interval '1 second' WHERE subject = ${vmSubject(vm.id)}`,
    );
    await syncVms(deps, { vmId: vm.id });
    expect(await findStepFailure(cloud.db, vmSubject(vm.id))).toBeNull();
  });

  it('AWS throttling backs the whole account off: the sweep waits, and /metrics shows it by cause', async () => {
    stack.sandboxEc2.control({
      faults: [
        { action: 'DescribeInstances', code: 'RequestLimitExceeded', status: 503, forMs: 30 * MINUTE },
      ],
    });
    const deps = cloud.deps();
    const first = await sweepFleet(deps);
    expect(first).toMatchObject({ throttled: false, machines: 0 });
    const account = await findAccountBackoff(cloud.db);
    expect(account).toMatchObject({ action: 'DescribeInstances', code: 'RequestLimitExceeded', count: 1 });
    // Within the backoff nothing asks EC2: the sweep, and every machine's step, wait.
    await cloud.exec(
      sql.unsafe`
        UPDATE step_failures SET next_at = now() + interval '1 minute' WHERE subject = 'account'`,
    );
    expect(await sweepFleet(deps)).toMatchObject({ throttled: true });
    const user = await createUser(stack);
    const plan = await cloud.activePlan(user.id, { planId: 'pro-legend' });
    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).rejects.toThrow(
      /AWS throttles this account \(RequestLimitExceeded on DescribeInstances\)/,
    );
    expect(cloud.instancesOf((await findVmBySubscription(cloud.db, plan.id))?.id ?? 'none')).toHaveLength(0);
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    expect(
      sampleValue(text, 'legend_backed_off_steps', { action: 'DescribeInstances', cause: 'throttled' }),
    ).toBe(1);
    stack.sandboxEc2.control({ clearFaults: true });
    await cloud.exec(
      sql.unsafe`
        UPDATE step_failures SET next_at = now() - interval '1 second' WHERE subject = 'account'`,
    );
    // Through again: the account's backoff is over.
    expect(await sweepFleet(deps)).toMatchObject({ throttled: false });
    expect(await findAccountBackoff(cloud.db)).toBeNull();
  });
});

describe('the provisioning-delay notice names the real cause', () => {
  it('a machine running all along, held up by its password: the customer and the operator are told that, not "no capacity"', async () => {
    const { user, vm } = await launched();
    const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
    cloud.advance(10 * MINUTE);
    await syncVms(cloud.deps({ ec2: { privateKeyPem: wrongKey } }), { vmId: vm.id });
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'provisioning', password_encrypted: null });

    const late = new Date(Date.now() + (stack.config.vm.provisionDeadlineMinutes + 1) * MINUTE);
    await reapVms(cloud.deps(), late);
    const mail = (await cloud.jobs('email-send', { to: user.email }))
      .map((job) => job.data as { kind: string; text: string })
      .find((m) => m.kind === 'vm-provision-delayed');
    expect(mail?.text).toContain(PROVISION_DELAY_WORDS['password-not-ready']);
    expect(mail?.text).not.toMatch(/no free machine/);
    const shown = await findDashboardState(stack.services.pgPool, user.id);
    expect(dashboardBody({ ...shown!, vmConfig: stack.config.vm, now: new Date() }).notice).toBe(
      PROVISION_DELAY_WORDS['password-not-ready'],
    );
    const alert = (await listAlerts(cloud.db)).find(
      (a) => a.vm_id === vm.id && a.kind === 'provision-delayed',
    );
    expect(alert?.message).toMatch(/Cause: the password — it does not decrypt with EC2_PRIVATE_KEY_PEM/);
    expect(alert?.message).toMatch(/Last failing step: GetPasswordData \(PasswordUndecryptable\)/);
  });

  it('a launch refused for capacity: "no free machine of this kind"', async () => {
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'RunInstances',
          code: 'InsufficientInstanceCapacity',
          status: 500,
          instanceType: 'g4dn.2xlarge',
          times: 20,
        },
      ],
    });
    try {
      const user = await createUser(stack);
      const plan = await cloud.activePlan(user.id, { planId: 'pro-legend' });
      await expect(provisionVm(cloud.deps(), { subscriptionId: plan.id, userId: user.id })).rejects.toThrow();
      const vm = (await findVmBySubscription(cloud.db, plan.id))!;
      await reapVms(
        cloud.deps(),
        new Date(Date.now() + (stack.config.vm.provisionDeadlineMinutes + 1) * MINUTE),
      );
      expect((await cloud.vm(vm.id)).problem).toBe(PROVISION_DELAY_WORDS['no-capacity']);
      const alert = (await listAlerts(cloud.db)).find(
        (a) => a.vm_id === vm.id && a.kind === 'provision-delayed',
      );
      expect(alert?.message).toMatch(/Cause: no capacity.*RunInstances \(InsufficientInstanceCapacity\)/);
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });
});
