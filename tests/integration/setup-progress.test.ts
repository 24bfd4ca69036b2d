import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findLiveVmByUser } from '../../core/db/vms.ts';
import { MIN_PROVISIONS_FOR_FIGURE } from '../../core/domain/content/timeToDesktop.ts';
import type { SetupRecord } from '../../core/domain/setupProgress.ts';
import { createUser, type Client } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * The wait after paying, on the `aws` sandbox profile (a Windows launch takes 4–6 minutes to its
 * password, as on AWS): the dashboard record carries the new PC's phase as it goes (machine being
 * prepared, checking Remote Desktop, ready), and GET /api/site the recorded provisions by kind the
 * estimate is made from. The sandbox's clock is moved on (`advanceMs`) rather than waited for, and
 * its Remote Desktop listener held shut for a while, so every phase is seen in seconds.
 */

const stack = await startTestStack({
  worker: true,
  env: { SANDBOX_PROFILE: 'aws' },
  sandboxEc2: { profile: 'aws' },
});
const { buyer, checkout, pay, paymentStatus } = paymentHelpers(stack);
const { activePlan } = cloudPcHelpers(stack);

async function setupOf(client: Client): Promise<{ setup: SetupRecord | null; vmPublicIp: string | null }> {
  const reply = await client.call('/api/vm/dashboard');
  expect(reply.status).toBe(200);
  return reply.body;
}

async function untilPhase(client: Client, phase: SetupRecord['phase'] | null) {
  return waitFor(
    `the setup phase to be ${phase}`,
    async () => {
      const record = await setupOf(client);
      return (record.setup?.phase ?? null) === phase ? record : null;
    },
    30_000,
  );
}

describe('the wait after paying, phase by phase (aws timings)', () => {
  it('machine being prepared → checking Remote Desktop → ready, with the time the machine was asked for', async () => {
    const { user, client } = await buyer({ name: 'Farhan Qureshi' });
    const started = await checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
    await pay(started.txnid);
    await paymentStatus(started.txnid, 'success');

    // No warm pool here: a fresh launch, minutes of first boot.
    const preparing = await untilPhase(client, 'preparing');
    expect(preparing.vmPublicIp).toBeNull();
    const vm = await waitFor('the instance to be launched', async () => {
      const row = await findLiveVmByUser(stack.services.db, user.id);
      return row?.instance_id ? row : null;
    });
    expect((await setupOf(client)).setup).toEqual({
      phase: 'preparing',
      source: 'launch',
      requestedAt: vm.requested_at.toISOString(),
    });

    // A minute on, Windows is still on its first boot: still being prepared.
    await stack.sandboxEc2.setRdp(vm.instance_id!, 'closed');
    stack.sandboxEc2.control({ advanceMs: 60_000 });
    expect((await setupOf(client)).setup?.phase).toBe('preparing');

    // Past the password (4–6 minutes): the worker waits for Remote Desktop to answer.
    stack.sandboxEc2.control({ advanceMs: 330_000 });
    await untilPhase(client, 'remote-desktop');

    // Remote Desktop answers: ready, the wait is over.
    await stack.sandboxEc2.setRdp(vm.instance_id!, 'open');
    const ready = await untilPhase(client, null);
    await waitFor('the address', async () => (await setupOf(client)).vmPublicIp);
    expect(ready.setup).toBeNull();
  });

  it('the estimate comes from the recorded provisions the landing figure uses, by kind', async () => {
    const db = stack.services.db;
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < MIN_PROVISIONS_FOR_FIGURE; i++) {
      const user = await createUser(stack, { password: null });
      const plan = await activePlan(user.id);
      const readyAt = new Date(base + i * 1000);
      // Launches of 280–299 s, as the aws profile gives.
      await db.query(sql.unsafe`
        INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, instance_id,
                         source, requested_at, ready_at, terminated_at)
        VALUES (${user.id}, ${plan.id}, ${plan.plan_id}, ${plan.instance_type}, ${plan.storage_gb},
                'terminated', ${`i-${(i + 1).toString(16).padStart(17, '0')}`}, 'launch',
                ${new Date(readyAt.getTime() - (280 + i) * 1000).toISOString()}, ${readyAt.toISOString()},
                ${readyAt.toISOString()})`);
    }
    const site = await stack.api('/api/site');
    expect(site.body.setupTimes.launch).toMatchObject({ sampleSize: expect.any(Number) });
    expect(site.body.setupTimes.launch.sampleSize).toBeGreaterThanOrEqual(MIN_PROVISIONS_FOR_FIGURE);
    expect(site.body.setupTimes.launch.p50Seconds).toBeGreaterThan(280);
    expect(site.body.setupTimes.launch.p90Seconds).toBeGreaterThanOrEqual(
      site.body.setupTimes.launch.p50Seconds,
    );
    expect(site.body.setupTimes.pool).toBeNull();
  });
});
