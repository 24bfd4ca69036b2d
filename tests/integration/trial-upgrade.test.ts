import { afterAll, describe, expect, it } from 'vitest';
import {
  activateSubscription,
  insertPendingSubscription,
  supersedeTrial,
} from '../../core/db/subscriptions.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { HANDOVER_MESSAGES } from '../../core/domain/planHandover.ts';
import { getPlan } from '../../core/domain/plans.ts';
import { trialExpiry } from '../../core/domain/trial.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { createUser, logIn, newClient } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * A plan bought while the trial runs: between the payment (the trial superseded, the plan
 * active) and `vm-provision` handing the machine over, the dashboard once showed the trial's
 * running clock against the new plan and the trial's address. Now it says "Upgrading…", that
 * the trial's unused minutes end, and shows no address, files or clock until the machine serves
 * the new plan, whose hours start at zero. The real job handlers and the sandbox EC2.
 */

// The worker carries out the handover's stop, change and start, as in production.
const stack = await startTestStack({ worker: true });
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());
const MINUTE = 60_000;

async function runningTrial() {
  const user = await createUser(stack);
  const client = newClient(stack);
  await logIn(client, user.email);
  const legend = getPlan('legend');
  const pending = await insertPendingSubscription(cloud.db, {
    userId: user.id,
    planId: legend.id,
    planName: 'Trial',
    isTrial: true,
    hours: 1,
    storageGb: legend.storageGb,
    instanceType: legend.instanceType,
    pricePaise: 4000,
    trialPhone: user.phone,
  });
  const now = new Date();
  const trial = (await activateSubscription(cloud.db, pending.id, now, trialExpiry(now)))!;
  await provisionVm(deps, { subscriptionId: trial.id, userId: user.id });
  const vm = (await findVmBySubscription(cloud.db, trial.id))!;
  cloud.advance(10 * MINUTE);
  await syncVms(deps, { vmId: vm.id });
  const dashboard = (await client.call('/api/vm/dashboard')).body;
  expect(dashboard).toMatchObject({ selectedPlan: 'Trial', isRunning: true, handover: null });
  expect(dashboard.vmPublicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  return { user, client, trial, vm, trialIp: dashboard.vmPublicIp as string };
}

describe('trial → plan upgrade', () => {
  it('says Upgrading… with no trial clock or address until the machine serves the new plan', async () => {
    const { user, client, trial, vm, trialIp } = await runningTrial();

    // What payment-verify does when the plan is paid: the trial gives way, the plan is active.
    await supersedeTrial(cloud.db, trial.id);
    const plan = await cloud.activePlan(user.id, { planId: 'pro-legend', hours: 30 });

    const upgrading = (await client.call('/api/vm/dashboard')).body;
    expect(upgrading).toMatchObject({
      selectedPlan: 'PRO LEGEND',
      planActive: true,
      handover: 'from-trial',
      vmLastState: 'starting',
      isRunning: false,
      vmPublicIp: null,
      vmUsageSeconds: 0,
      rdpUrl: null,
      pwdUrl: null,
      canStart: false,
      canStop: false,
      remainingSeconds: 30 * 3600,
      notice: HANDOVER_MESSAGES.fromTrial,
    });
    expect(HANDOVER_MESSAGES.fromTrial).toContain('unused minutes end');
    const usage = (await client.call('/api/vm/usage')).body;
    expect(usage).toMatchObject({ isRunning: false, vmUsageSeconds: 0, vmLastState: 'starting' });

    // vm-provision hands the same machine over: stopped, changed to the new kind, started.
    await provisionVm(deps, { subscriptionId: plan.id, userId: user.id });
    const handed = await cloud.vm(vm.id);
    expect(handed.subscription_id).toBe(plan.id);
    const after = await waitFor(
      'the machine to run as PRO LEGEND',
      async () => {
        cloud.advance(MINUTE);
        const body = (await client.call('/api/vm/dashboard')).body;
        return body.isRunning ? body : null;
      },
      60_000,
    );
    expect(after).toMatchObject({ handover: null, selectedPlan: 'PRO LEGEND' });
    expect(after.vmUsageSeconds).toBeLessThan(60);
    expect(after.vmPublicIp).not.toBe(trialIp);
    expect((await cloud.vm(vm.id)).instance_type).toBe(getPlan('pro-legend').instanceType);
  });
});
