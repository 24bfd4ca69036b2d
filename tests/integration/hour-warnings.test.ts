import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { startVm } from '../../worker/jobs/vmStart.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { runPlanExpiry } from '../../worker/jobs/planExpiry.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack } from '../support/stack.ts';
import { listNoticesOfUser } from '../support/rows.ts';

/**
 * The 80% and 100% hour mails go out once per plan period: a worker retry (the same job run
 * again), concurrent accruals (the minute sweep racing a machine's own follow-up check) and
 * repeated sweeps send each once; a renewal is a new period and sends them again. Real
 * handlers, real Postgres, the sandbox EC2 through the SDK, mails counted in the queue.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());

const MINUTE = 60_000;
const PLAN_SECONDS = 30 * 3600;

/** Sets the stored usage and pretends the last count was a few seconds ago, so the next accrual adds a little. */
async function setUsage(vmId: string, seconds: number) {
  await cloud.exec(sql.unsafe`
    UPDATE vms SET usage_seconds = ${seconds}, usage_counted_at = now() - interval '5 seconds'
    WHERE id = ${vmId}`);
}

/** What a retry storm and a race look like: the job twice in a row, then three at once with the sweep. */
async function accrueHard(vmId: string) {
  await syncVms(deps, { vmId });
  await syncVms(deps, { vmId });
  await Promise.all([syncVms(deps), syncVms(deps, { vmId }), syncVms(deps, { vmId })]);
  await syncVms(deps);
}

async function runningMachine(userId: string, subscriptionId: string) {
  await provisionVm(deps, { subscriptionId, userId });
  const vm = await findVmBySubscription(cloud.db, subscriptionId);
  if (!vm) throw new Error('no vm');
  cloud.advance(10 * MINUTE);
  await syncVms(deps, { vmId: vm.id });
  expect((await cloud.vm(vm.id)).state).toBe('running');
  return vm;
}

describe('hour-bank mails', () => {
  it('80% and 100% once each per plan period, however often and however concurrently usage is counted; a renewal starts again', async () => {
    const user = await createUser(stack);
    const first = await cloud.activePlan(user.id, { hours: 30 });
    const vm = await runningMachine(user.id, first.id);

    await setUsage(vm.id, PLAN_SECONDS * 0.8 - 2);
    await accrueHard(vm.id);
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80']);
    // Further accruals inside the same period stay quiet.
    await setUsage(vm.id, PLAN_SECONDS * 0.9);
    await accrueHard(vm.id);
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80']);

    await setUsage(vm.id, PLAN_SECONDS - 2);
    await accrueHard(vm.id);
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80', 'vm-hours-100']);
    expect((await cloud.vm(vm.id)).state).toBe('stopping');
    await stopVm(deps, { vmId: vm.id });
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await accrueHard(vm.id);
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-hours-80', 'vm-hours-100']);

    // The plan ends; the customer renews: a new period, whose alerts are its own.
    await cloud.exec(
      sql.unsafe`UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE id = ${first.id}`,
    );
    await runPlanExpiry(deps);
    const renewal = await cloud.activePlan(user.id, { hours: 30 });
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe('renewed');
    expect((await cloud.vm(vm.id)).usage_seconds).toBe(0);
    await startVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('running');
    await accrueHard(vm.id);
    const hourMailsOf = async () =>
      (await cloud.mailKinds(user.email)).filter((kind) => kind.startsWith('vm-hours-'));
    expect(await hourMailsOf()).toEqual(['vm-hours-80', 'vm-hours-100']);

    await setUsage(vm.id, PLAN_SECONDS * 0.8);
    await accrueHard(vm.id);
    await setUsage(vm.id, PLAN_SECONDS);
    await accrueHard(vm.id);
    expect(await hourMailsOf()).toEqual(['vm-hours-80', 'vm-hours-100', 'vm-hours-80', 'vm-hours-100']);
    const notices = (await listNoticesOfUser(cloud.db, user.id)).filter((n) => n.kind.startsWith('hours-'));
    expect(notices.map((n) => n.key).sort()).toEqual(
      [
        `hours-80:${first.id}`,
        `hours-100:${first.id}`,
        `hours-80:${renewal.id}`,
        `hours-100:${renewal.id}`,
      ].sort(),
    );
  });
});
