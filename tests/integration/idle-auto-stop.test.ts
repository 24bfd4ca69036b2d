import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { keepRunning } from '../../core/db/idle.ts';
import { sql } from '../../core/db/pool.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createCloudWatch } from '../../core/providers/cloudwatch.ts';
import { idleHelpers } from '../support/idle.ts';
import { createUser, logIn, newClient } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * Idle auto-stop end to end: the `vm-idle` sweep reading the sandbox CloudWatch through the
 * real @aws-sdk/client-cloudwatch (series scripted per instance and metric over the real wire
 * protocol), deciding, warning once, and stopping through the customer's STOP path; the API the
 * dashboard uses. Time moves with the sandbox's clock, which the sweep is told as its `now`.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const cloudWatch = createCloudWatch({ ...stack.config.metrics.cloudWatch, maxAttempts: 1 });
const sweepDeps = {
  db: stack.services.db,
  boss: stack.services.boss,
  log: createLogger({ level: 'silent', name: 'test' }),
  config: stack.config,
  cloudWatch,
};
afterAll(() => {
  cloud.destroy();
  cloudWatch.destroy();
});

const MINUTE = 60_000;
const { script, runningMachine, sweepAt, worldNow } = idleHelpers(stack, cloud, sweepDeps);

async function idleRow(vmId: string) {
  return stack.services.db.maybeOne(sql.type(
    z.object({ warned_at: z.date().nullable(), stop_at: z.date().nullable() }),
  )`
    SELECT warned_at, stop_at FROM vm_idle WHERE vm_id = ${vmId}`);
}

describe('vm-idle sweep', () => {
  it('idle for the whole window: warned once ten minutes ahead, mailed once, then stopped as the STOP button would', async () => {
    const { user, client, vm, instanceId, since } = await runningMachine();
    await script(instanceId, {});

    await sweepAt(since, 22);
    const warned = await idleRow(vm.id);
    expect(warned?.warned_at).not.toBeNull();
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-idle-warning']);
    const shown = await client.call('/api/vm/idle');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ minutes: 30, running: true, warning: { stopAt: expect.any(String) } });

    // The next minutes' sweeps keep the warning and send nothing more.
    await sweepAt(since, 24);
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-idle-warning']);
    expect((await cloud.vm(vm.id)).state).toBe('running');

    await sweepAt(since, 33);
    const stopped = await cloud.vm(vm.id);
    expect(stopped.state).toBe('stopping');
    expect(stopped.state_reason).toBe('idle');
    expect(await cloud.jobs('vm-stop', { vmId: vm.id })).toHaveLength(1);
    const stops = await stack.services.db.any(sql.type(z.object({ remaining_seconds: z.number() }))`
      SELECT remaining_seconds FROM vm_idle_stops WHERE vm_id = ${vm.id}`);
    expect(stops).toHaveLength(1);
    expect(stops[0]!.remaining_seconds).toBeGreaterThan(0);
    expect((await client.call('/api/vm/idle')).body).toMatchObject({
      running: false,
      warning: null,
      saved: { stops: 1 },
    });

    // Run twice, effect once.
    await sweepAt(since, 34);
    expect(await cloud.jobs('vm-stop', { vmId: vm.id })).toHaveLength(1);
  });

  it('a GPU render with nobody connected keeps running', async () => {
    const { user, vm, instanceId, since } = await runningMachine();
    await script(instanceId, { gpu: 95 });
    await sweepAt(since, 45);
    expect((await cloud.vm(vm.id)).state).toBe('running');
    expect(await idleRow(vm.id)).toBeNull();
    expect(await cloud.mailKinds(user.email)).toEqual([]);
  });

  it('someone connected over Remote Desktop with the CPU idle keeps it running', async () => {
    const { vm, instanceId, since } = await runningMachine();
    await script(instanceId, { rdp: 1 });
    await sweepAt(since, 45);
    expect((await cloud.vm(vm.id)).state).toBe('running');
    expect(await idleRow(vm.id)).toBeNull();
  });

  it('a browser (DCV) session connected keeps it running', async () => {
    const { vm, instanceId, since } = await runningMachine();
    await script(instanceId, { dcv: 1 });
    await sweepAt(since, 45);
    expect((await cloud.vm(vm.id)).state).toBe('running');
    expect(await idleRow(vm.id)).toBeNull();
  });

  it('missing metrics never stop: a session counter that never arrived, or a gap in the window', async () => {
    const never = await runningMachine();
    await script(never.instanceId, { rdp: null });
    const gap = await runningMachine();
    await script(gap.instanceId, {});
    // CPU went missing for three minutes twenty minutes in: the window restarts after it.
    await script(
      gap.instanceId,
      { cpu: null },
      { from: gap.since + 20 * MINUTE, to: gap.since + 23 * MINUTE },
    );
    // 35 minutes in: without the gap it would be warned (a first warning, never a stop);
    // counted from the gap's end it has been idle 12 minutes, not yet warning time.
    await sweepAt(Math.max(never.since, gap.since), 35);
    expect((await cloud.vm(never.vm.id)).state).toBe('running');
    expect((await cloud.vm(gap.vm.id)).state).toBe('running');
    expect(await idleRow(never.vm.id)).toBeNull();
    expect(await idleRow(gap.vm.id)).toBeNull();
  });

  it('"Keep it running" withdraws the warning and starts the window again', async () => {
    const { user, client, vm, instanceId, since } = await runningMachine();
    await script(instanceId, {});
    await sweepAt(since, 22);
    expect((await idleRow(vm.id))?.warned_at).not.toBeNull();

    const kept = await client.call('/api/vm/keep-running', { body: {} });
    expect(kept.status).toBe(200);
    expect(kept.body.warning).toBeNull();
    expect((await idleRow(vm.id))?.warned_at).toBeNull();
    // The API stamps the click with the real clock; the sandbox world runs ahead of it (the
    // tests advanced it), so the reset is replayed at the world's time, through the same query.
    await keepRunning(stack.services.db, vm.id, worldNow());

    // Where it would have stopped it keeps running: the window counts from the click.
    await sweepAt(since, 33);
    expect((await cloud.vm(vm.id)).state).toBe('running');
    expect((await idleRow(vm.id))?.warned_at).toBeNull();
    // A full window after the click, a new idle episode warns again.
    await sweepAt(since, 22 + 21);
    expect((await idleRow(vm.id))?.warned_at).not.toBeNull();
    expect(await cloud.mailKinds(user.email)).toEqual(['vm-idle-warning', 'vm-idle-warning']);
  });
});

describe('idle API', () => {
  it('the customer chooses 15, 30, 60 minutes or off; anything else is a 400', async () => {
    const { client, vm } = await runningMachine();
    expect((await client.call('/api/vm/idle')).body.minutes).toBe(30);
    const set = await client.call('/api/vm/idle', { body: { minutes: 60 } });
    expect(set.status).toBe(200);
    expect(set.body.minutes).toBe(60);
    expect((await client.call('/api/vm/idle', { body: { minutes: null } })).body.minutes).toBeNull();
    for (const bad of [{ minutes: 5 }, { minutes: '30' }, {}, { minutes: 30, vmId: vm.id }]) {
      const refused = await client.call('/api/vm/idle', { body: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toEqual(expect.any(String));
    }
  });

  it('an idle machine with auto-stop off is never warned or stopped', async () => {
    const { client, vm, instanceId, since } = await runningMachine();
    await client.call('/api/vm/idle', { body: { minutes: null } });
    await script(instanceId, {});
    await sweepAt(since, 70);
    expect((await cloud.vm(vm.id)).state).toBe('running');
    expect(await idleRow(vm.id)).toMatchObject({ warned_at: null });
  });

  it('owner only: signed out is a 401, a customer without a machine cannot change anything (and reads that it has none), a stopped machine cannot be kept', async () => {
    const anonymous = newClient(stack);
    expect((await anonymous.call('/api/vm/idle')).status).toBe(401);
    expect((await anonymous.call('/api/vm/keep-running', { body: {} })).status).toBe(401);
    const nobody = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, nobody.email);
    expect((await client.call('/api/vm/keep-running', { body: {} })).status).toBe(404);
    expect((await client.call('/api/vm/idle', { body: { minutes: 15 } })).status).toBe(404);
    // Reading is not an error without a machine (the dashboard asks before it knows): nothing to show.
    const none = await client.call('/api/vm/idle');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ machine: false, warning: null, running: false });
    const { client: owner, vm } = await runningMachine();
    await cloud.exec(sql.unsafe`UPDATE vms SET state = 'stopped', public_ip = NULL WHERE id = ${vm.id}`);
    expect((await owner.call('/api/vm/keep-running', { body: {} })).status).toBe(409);
  });
});
