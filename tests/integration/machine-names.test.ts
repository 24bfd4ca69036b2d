import { afterAll, describe, expect, it } from 'vitest';
import { requestStart, requestStop, requestTerminate } from '../../core/commands/vmActions.ts';
import { findMachineName } from '../../core/db/machineNames.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import { MACHINE_NAME_TTL_SECONDS, NAME_SINK_ADDRESS } from '../../core/domain/machineName.ts';
import { SANDBOX_ROUTE53_ZONE } from '../../sandbox/route53/index.ts';
import { syncNames } from '../../worker/jobs/machineName.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { startVm } from '../../worker/jobs/vmStart.ts';
import { stopVm } from '../../worker/jobs/vmStop.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { logIn, newClient } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { machineHelpers } from '../support/machines.ts';
import { startTestStack } from '../support/stack.ts';

/** A name's label: `pc-` and 8 of Crockford's base32 letters, lowercase (no i, l, o, u). */
const LABEL_PATTERN = /^pc-[0-9a-hjkmnp-tv-z]{8}$/;

/**
 * The PC keeps its name, through the real lifecycle handlers and the real Route 53 SDK against the
 * sandbox's Route 53: the record is pointed before the machine is shown running and follows it
 * across STOP/START, the dashboard and the Remote Desktop, DCV and browser-desktop links carry
 * the name; an outage shows the IP with a note and alerts after 10 minutes; a record someone else
 * edited is corrected at the next start and alerted; a gone machine's record is deleted, a failed
 * delete retried.
 */

const SUFFIX = SANDBOX_ROUTE53_ZONE.name;
const stack = await startTestStack({
  env: {
    MACHINE_DNS_ZONE_ID: SANDBOX_ROUTE53_ZONE.id,
    MACHINE_DNS_SUFFIX: SUFFIX,
    DCV_WEB_URL: 'http://{host}:8443/',
    SNAPSHOT_KEEP_DAYS: '0',
  },
});
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
const machines = machineHelpers(stack, cloud, deps);
const db = stack.services.db;
const MINUTE = 60_000;
afterAll(() => cloud.destroy());

type Records = Array<{ name: string; type: string; ttl: number; values: string[] }>;
async function records(): Promise<Records> {
  const state = (await stack.api('/sandbox/route53/_state')).body as {
    zones: Array<{ id: string; records: Records }>;
  };
  return state.zones.find((z) => z.id === SANDBOX_ROUTE53_ZONE.id)?.records ?? [];
}
async function recordOf(host: string) {
  return (await records()).find((r) => r.name === `${host}.`) ?? null;
}
async function route53(control: Record<string, unknown>) {
  expect((await stack.api('/sandbox/route53/_control', { method: 'POST', body: control })).status).toBe(204);
}

async function stopAndStart(vmId: string) {
  await requestStop(db, stack.services.boss, vmId, 'user', new Date());
  await stopVm(deps, { vmId });
  cloud.advance(2 * MINUTE);
  await syncVms(deps, { vmId });
  expect((await cloud.vm(vmId)).state).toBe('stopped');
  await requestStart(db, stack.services.boss, vmId, 'user', new Date());
  await startVm(deps, { vmId });
  cloud.advance(2 * MINUTE);
  await syncVms(deps, { vmId });
  return cloud.vm(vmId);
}

async function signedIn(email: string) {
  const client = newClient(stack);
  await logIn(client, email);
  return client;
}

describe('a machine keeps its name', () => {
  it('is named before it runs, and its name follows it across STOP/START; the files and links carry it', async () => {
    const { user, vm } = await machines.runningMachine();
    const name = await findMachineName(db, vm.id);
    expect(name?.label).toMatch(LABEL_PATTERN);
    const host = `${name?.label}.${SUFFIX}`;
    // Pointed before it was shown running: the record names the address the row has.
    expect(name?.points_to).toBe(vm.public_ip);
    expect(await recordOf(host)).toEqual({
      name: `${host}.`,
      type: 'A',
      ttl: MACHINE_NAME_TTL_SECONDS,
      values: [vm.public_ip],
    });

    const client = await signedIn(user.email);
    const record = (await client.call('/api/vm/dashboard')).body;
    expect(record.machineName).toEqual({ host, current: true });
    expect(record.namesEnabled).toBe(true);
    expect(record.vmPublicIp).toBe(vm.public_ip);
    const rdp = await client.call('/api/vm/rdp');
    expect(rdp.status).toBe(200);
    expect(rdp.body).toContain(`full address:s:${host}\r\n`);
    const dcv = await client.call('/api/vm/dcv-file');
    expect(dcv.status).toBe(200);
    expect(dcv.body).toContain(`host=${host}\r\nport=8443\r\n`);
    const desktop = await client.call('/api/vm/desktop-token', { method: 'POST', body: {} });
    expect(desktop.status).toBe(200);
    expect(desktop.body.url).toMatch(new RegExp(`^http://${host.replaceAll('.', '\\.')}:8443/\\?authToken=`));

    const started = await stopAndStart(vm.id);
    expect(started.state).toBe('running');
    expect(started.public_ip).not.toBe(vm.public_ip);
    expect((await findMachineName(db, vm.id))?.label).toBe(name?.label);
    expect((await recordOf(host))?.values).toEqual([started.public_ip]);
    expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({ host, current: true });
    expect((await client.call('/api/vm/rdp')).body).toContain(`full address:s:${host}\r\n`);
    // Never reused: the next machine has a name of its own.
    const other = await machines.runningMachine();
    expect((await findMachineName(db, other.vm.id))?.label).not.toBe(name?.label);
  });

  it('STOP takes the name off the address EC2 takes back before the instance stops; START points it at the new one before the PC is shown running', async () => {
    const { user, vm } = await machines.runningMachine();
    const host = `${(await findMachineName(db, vm.id))!.label}.${SUFFIX}`;
    expect((await recordOf(host))?.values).toEqual([vm.public_ip]);
    const client = await signedIn(user.email);

    await requestStop(db, stack.services.boss, vm.id, 'user', new Date());
    await stopVm(deps, { vmId: vm.id });
    // StopInstances is sent and Windows is still shutting down: the name already leads to the sink.
    expect((await cloud.vm(vm.id)).state).toBe('stopping');
    expect(await recordOf(host)).toMatchObject({
      values: [NAME_SINK_ADDRESS],
      ttl: MACHINE_NAME_TTL_SECONDS,
    });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);
    expect((await findMachineName(db, vm.id))?.points_to).toBe(NAME_SINK_ADDRESS);
    expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({ host, current: null });
    // The minute sweep finds nothing to do: the sink is where it should be.
    await syncNames(deps);
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);

    await requestStart(db, stack.services.boss, vm.id, 'user', new Date());
    await startVm(deps, { vmId: vm.id });
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    const started = await cloud.vm(vm.id);
    expect(started.state).toBe('running');
    expect(started.public_ip).not.toBe(vm.public_ip);
    expect((await recordOf(host))?.values).toEqual([started.public_ip]);
    // Pointed before it was shown running: our write is not later than the running transition.
    const named = await findMachineName(db, vm.id);
    expect(named?.points_to).toBe(started.public_ip);
    expect(named!.written_at!.getTime()).toBeLessThanOrEqual(started.started_at!.getTime());
    expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({ host, current: true });
    // The sink is our own write, not someone else's edit.
    expect(await nameAlerts('machine-name-drift', vm.id)).toHaveLength(0);
  });

  it('a PC shut down from inside Windows: its name is taken to the sink as soon as the stop is seen', async () => {
    const { vm } = await machines.runningMachine();
    const host = `${(await findMachineName(db, vm.id))!.label}.${SUFFIX}`;
    await deps.vmEc2.ec2.stopInstance(vm.instance_id!);
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'stopped', public_ip: null });
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);
  });

  it('a Route 53 outage at STOP does not hold the stop: the sink is retried, alerted after 10 minutes as a risk, set once Route 53 is back', async () => {
    const { vm } = await machines.runningMachine();
    const label = (await findMachineName(db, vm.id))!.label;
    const host = `${label}.${SUFFIX}`;
    await route53({ failing: 'ServiceUnavailable' });
    try {
      await requestStop(db, stack.services.boss, vm.id, 'user', new Date());
      await stopVm(deps, { vmId: vm.id });
      expect((await cloud.vm(vm.id)).state).toBe('stopping');
      cloud.advance(2 * MINUTE);
      await syncVms(deps, { vmId: vm.id });
      expect((await cloud.vm(vm.id)).state).toBe('stopped');
      expect((await recordOf(host))?.values).toEqual([vm.public_ip]);
      expect((await findMachineName(db, vm.id))?.last_error).toMatch(/ServiceUnavailable/);
      expect((await cloud.jobs('machine-name', { vmId: vm.id })).length).toBeGreaterThan(0);
      await db.query(sql.unsafe`
        UPDATE machine_names SET failing_since = now() - interval '11 minutes' WHERE label = ${label}`);
      await syncNames(deps);
      const [alert] = await nameAlerts('machine-name-failing', vm.id);
      expect(alert?.message).toMatch(/another AWS customer/);
    } finally {
      await route53({ failing: null });
    }
    await syncNames(deps);
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);
    expect((await findMachineName(db, vm.id))?.failing_since).toBeNull();
    expect(await nameAlerts('machine-name-failing', vm.id)).toHaveLength(0);
  });

  it('a PC stopped with its name still at its old address (stopped before the sink, or a lost write) is sunk by the minute sweep', async () => {
    const { vm } = await machines.runningMachine();
    const label = (await findMachineName(db, vm.id))!.label;
    const host = `${label}.${SUFFIX}`;
    await requestStop(db, stack.services.boss, vm.id, 'user', new Date());
    await stopVm(deps, { vmId: vm.id });
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    // As a machine stopped before this rule was deployed: row and record at the old address, no failure.
    await route53({ set: { name: host, ip: vm.public_ip! } });
    await db.query(sql.unsafe`UPDATE machine_names SET points_to = ${vm.public_ip} WHERE label = ${label}`);
    await syncNames(deps);
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);
    expect((await findMachineName(db, vm.id))?.points_to).toBe(NAME_SINK_ADDRESS);
    expect(await nameAlerts('machine-name-drift', vm.id)).toHaveLength(0);
  });

  it('a record someone pointed elsewhere while the PC ran is taken to the sink at STOP, and an operator is told', async () => {
    const { vm } = await machines.runningMachine();
    const host = `${(await findMachineName(db, vm.id))!.label}.${SUFFIX}`;
    await route53({ set: { name: host, ip: '198.51.100.78' } });
    await requestStop(db, stack.services.boss, vm.id, 'user', new Date());
    await stopVm(deps, { vmId: vm.id });
    expect((await recordOf(host))?.values).toEqual([NAME_SINK_ADDRESS]);
    const [drift] = await nameAlerts('machine-name-drift', vm.id);
    expect(drift?.message).toContain('198.51.100.78');
  });

  it('a Route 53 outage at START: shown running with its IP and a note; alerted after 10 minutes; corrected when it returns', async () => {
    const { user, vm } = await machines.runningMachine();
    const label = (await findMachineName(db, vm.id))!.label;
    const host = `${label}.${SUFFIX}`;
    const client = await signedIn(user.email);
    await route53({ failing: 'ServiceUnavailable' });
    let started;
    try {
      started = await stopAndStart(vm.id);
      expect(started.state).toBe('running');
      const record = (await client.call('/api/vm/dashboard')).body;
      expect(record.machineName).toEqual({ host, current: false });
      expect(record.vmPublicIp).toBe(started.public_ip);
      // The files name the address that works now.
      expect((await client.call('/api/vm/rdp')).body).toContain(`full address:s:${started.public_ip}\r\n`);
      const failing = await findMachineName(db, vm.id);
      expect(failing?.failing_since).not.toBeNull();
      expect(failing?.last_error).toMatch(/ServiceUnavailable/);
      // Retried with backoff by its own job.
      const queued = await cloud.jobs('machine-name', { vmId: vm.id });
      expect(queued.length).toBeGreaterThan(0);

      // Nine minutes of failing: no alert yet. Ten: the sweep tells an operator, once.
      const failFor = (minutes: number) =>
        db.query(sql.unsafe`
          UPDATE machine_names SET failing_since = now() - ${`${minutes} minutes`}::interval WHERE label = ${label}`);
      await failFor(9);
      await syncNames(deps);
      expect(await nameAlerts('machine-name-failing', vm.id)).toHaveLength(0);
      await failFor(11);
      await syncNames(deps);
      await syncNames(deps);
      const alerts = await nameAlerts('machine-name-failing', vm.id);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]?.occurrences).toBe(1);
      expect(alerts[0]?.message).toMatch(new RegExp(`${host.replaceAll('.', '\\.')} has not been updated`));
    } finally {
      await route53({ failing: null });
    }
    await syncNames(deps);
    expect((await recordOf(host))?.values).toEqual([started.public_ip]);
    expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({ host, current: true });
    expect(await nameAlerts('machine-name-failing', vm.id)).toHaveLength(0);
  });

  it('a record someone pointed elsewhere is corrected at the next start, and an operator is told', async () => {
    const { vm } = await machines.runningMachine();
    const host = `${(await findMachineName(db, vm.id))!.label}.${SUFFIX}`;
    await route53({ set: { name: host, ip: '198.51.100.77' } });
    const started = await stopAndStart(vm.id);
    expect((await recordOf(host))?.values).toEqual([started.public_ip]);
    const [drift] = await nameAlerts('machine-name-drift', vm.id);
    expect(drift?.message).toContain('198.51.100.77');
  });

  it("a gone machine's record is deleted; a failed delete is retried, never left silently", async () => {
    const { vm } = await machines.runningMachine();
    const label = (await findMachineName(db, vm.id))!.label;
    const host = `${label}.${SUFFIX}`;
    await requestTerminate(db, stack.services.boss, vm.id, 'account-deleted', new Date());
    await terminateVm(deps, { vmId: vm.id });
    cloud.advance(5 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    expect(await recordOf(host)).not.toBeNull();

    await route53({ failing: 'Throttling' });
    try {
      await syncNames(deps);
      const failing = await findMachineName(db, vm.id);
      expect(failing?.released_at).toBeNull();
      expect(failing?.last_error).toMatch(/Throttling/);
      expect(await recordOf(host)).not.toBeNull();
    } finally {
      await route53({ failing: null });
    }
    await syncNames(deps);
    expect(await recordOf(host)).toBeNull();
    const released = await findMachineName(db, vm.id);
    expect(released?.released_at).not.toBeNull();
    expect(released?.failing_since).toBeNull();
    // The label stays taken for good: the table refuses it to anyone else.
    await expect(
      db.query(sql.unsafe`
        INSERT INTO machine_names (label, user_id, vm_id)
        SELECT ${label}, user_id, id FROM vms WHERE id <> ${vm.id} LIMIT 1`),
    ).rejects.toThrow();
  });
});

describe("the name follows the customer's PC to the machine that replaces it", () => {
  it('a lost machine is replaced (no kept disk): the new one waits while the old row is being deleted, then takes the same name', async () => {
    const { user, plan, vm } = await machines.runningMachine();
    const label = (await findMachineName(db, vm.id))!.label;
    const host = `${label}.${SUFFIX}`;
    // Terminated outside us: the row is being deleted, and a new machine is made for the plan.
    await deps.vmEc2.ec2.terminateInstance(vm.instance_id!);
    cloud.advance(2 * MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'terminating', state_reason: 'replaced' });
    await expect(provisionVm(deps, { subscriptionId: plan.id, userId: user.id })).resolves.toBe('launched');
    const replacement = (await findVmBySubscription(db, plan.id))!;
    expect(replacement.id).not.toBe(vm.id);
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: replacement.id });
    const running = await cloud.vm(replacement.id);
    expect(running.state).toBe('running');

    // The old row is not gone yet: no second machine behind the name, no new name either.
    expect(await findMachineName(db, replacement.id)).toBeNull();
    const client = await signedIn(user.email);
    expect((await client.call('/api/vm/dashboard')).body).toMatchObject({
      vmPublicIp: running.public_ip,
      machineName: null,
    });

    await terminateVm(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    await syncNames(deps);
    expect((await findMachineName(db, replacement.id))?.label).toBe(label);
    expect((await recordOf(host))?.values).toEqual([running.public_ip]);
    expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({ host, current: true });
    // Its next START points the same name at its next address.
    const started = await stopAndStart(replacement.id);
    expect((await recordOf(host))?.values).toEqual([started.public_ip]);
    expect((await findMachineName(db, replacement.id))?.label).toBe(label);
  });
});

async function nameAlerts(kind: string, vmId: string) {
  return (await listAlerts(db)).filter((a) => a.kind === kind && a.vm_id === vmId);
}
