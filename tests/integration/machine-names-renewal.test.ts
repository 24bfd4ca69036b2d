import { afterAll, describe, expect, it } from 'vitest';
import { findMachineName } from '../../core/db/machineNames.ts';
import { sql } from '../../core/db/pool.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { SANDBOX_ROUTE53_ZONE } from '../../sandbox/route53/index.ts';
import { syncNames } from '../../worker/jobs/machineName.ts';
import { NAME_SINK_ADDRESS } from '../../core/domain/machineName.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { logIn, newClient } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { machineHelpers } from '../support/machines.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The name follows the customer's PC: their machine's plan ends, its disk is kept, they renew and
 * a new machine is made from the kept copy. It takes over the old machine's name once that
 * machine is gone, through the real lifecycle handlers and the Route 53 SDK against the sandbox:
 * the dashboard and the files name the same host, whose record now points at the new address.
 * While the old machine's termination lags, the name stays with it and the new machine is shown
 * with its address; once it is terminated the sweep hands the name over. Another customer never
 * gets it.
 */

const SUFFIX = SANDBOX_ROUTE53_ZONE.name;
const stack = await startTestStack({
  env: { MACHINE_DNS_ZONE_ID: SANDBOX_ROUTE53_ZONE.id, MACHINE_DNS_SUFFIX: SUFFIX },
});
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
const machines = machineHelpers(stack, cloud, deps);
const db = stack.services.db;
const MINUTE = 60_000;
afterAll(() => cloud.destroy());

type Records = Array<{ name: string; type: string; ttl: number; values: string[] }>;
async function recordOf(host: string) {
  const state = (await stack.api('/sandbox/route53/_state')).body as {
    zones: Array<{ id: string; records: Records }>;
  };
  const records = state.zones.find((z) => z.id === SANDBOX_ROUTE53_ZONE.id)?.records ?? [];
  return records.find((r) => r.name === `${host}.`) ?? null;
}

async function signedIn(email: string) {
  const client = newClient(stack);
  await logIn(client, email);
  return client;
}

/** A running machine, its plan ended past its grace: the disk copied, and the instance asked to go. */
async function endedWithDiskKept() {
  const made = await machines.runningMachine();
  const name = (await findMachineName(db, made.vm.id))!;
  await machines.expireAndPassGrace(made.vm.id, made.plan.id);
  await terminateVm(deps, { vmId: made.vm.id });
  cloud.advance(5 * MINUTE);
  return { ...made, name, host: `${name.label}.${SUFFIX}` };
}

/** The copy done and EC2 confirming the instance gone. */
async function terminated(vmId: string) {
  await syncVms(deps, { vmId });
  cloud.advance(MINUTE);
  await syncVms(deps, { vmId });
  expect((await cloud.vm(vmId)).state).toBe('terminated');
}

/** The customer renews: a new machine made from the kept copy, running. */
async function renew(userId: string) {
  const renewal = await cloud.activePlan(userId);
  await expect(provisionVm(deps, { subscriptionId: renewal.id, userId })).resolves.toBe('launched');
  const renewed = (await findVmBySubscription(db, renewal.id))!;
  expect(renewed.restore_snapshot_id).not.toBeNull();
  cloud.advance(10 * MINUTE);
  await syncVms(deps, { vmId: renewed.id });
  const running = await cloud.vm(renewed.id);
  expect(running.state).toBe('running');
  return running;
}

/** The database's own words refusing a statement (slonik keeps them as the error's cause). */
async function refusal(query: ReturnType<typeof sql.unsafe>): Promise<string> {
  const error: unknown = await db.query(query).then(
    () => new Error('the statement was accepted'),
    (refused: unknown) => refused,
  );
  return error instanceof Error
    ? `${error.message} ${error.cause instanceof Error ? error.cause.message : ''}`
    : '';
}

async function namesOf(userId: string) {
  return db.anyFirst(sql.unsafe`SELECT label FROM machine_names WHERE user_id = ${userId} ORDER BY label`);
}

describe("a customer's renewed PC keeps its name", () => {
  it('restored from the kept disk after the old name was released: the same name, pointed at the new address; another customer meanwhile gets a name of their own', async () => {
    const old = await endedWithDiskKept();
    await terminated(old.vm.id);
    // The sweep deletes the gone machine's record and releases the name.
    await syncNames(deps);
    expect(await recordOf(old.host)).toBeNull();
    expect((await findMachineName(db, old.vm.id))?.released_at).not.toBeNull();

    // Meanwhile another customer's machine starts: a name of its own, never the released one.
    const other = await machines.runningMachine();
    const othersName = await findMachineName(db, other.vm.id);
    expect(othersName?.label).not.toBe(old.name.label);

    const renewed = await renew(old.user.id);
    expect(renewed.public_ip).not.toBe(old.vm.public_ip);
    const name = await findMachineName(db, renewed.id);
    expect(name).toMatchObject({ label: old.name.label, user_id: old.user.id, released_at: null });
    expect(name?.points_to).toBe(renewed.public_ip);
    expect((await recordOf(old.host))?.values).toEqual([renewed.public_ip]);
    expect(await namesOf(old.user.id)).toEqual([old.name.label]);

    // The dashboard and the files name the PC as before.
    const client = await signedIn(old.user.email);
    const record = (await client.call('/api/vm/dashboard')).body;
    expect(record.vmPublicIp).toBe(renewed.public_ip);
    expect(record.machineName).toEqual({ host: old.host, current: true });
    expect((await client.call('/api/vm/rdp')).body).toContain(`full address:s:${old.host}\r\n`);
    expect((await client.call('/api/vm/dcv-file')).body).toContain(`host=${old.host}\r\n`);
    // The other customer's dashboard names their own PC.
    const theirs = (await (await signedIn(other.user.email)).call('/api/vm/dashboard')).body;
    expect(theirs.machineName.host).toBe(`${othersName?.label}.${SUFFIX}`);

    // The database refuses the label to another customer's machine, whatever the caller.
    expect(
      await refusal(
        sql.unsafe`UPDATE machine_names SET vm_id = ${other.vm.id} WHERE label = ${old.name.label}`,
      ),
    ).toMatch(new RegExp(`${old.name.label}: machine ${other.vm.id} is not its customer's`));
    expect(
      await refusal(
        sql.unsafe`UPDATE machine_names SET user_id = ${other.user.id}, vm_id = ${other.vm.id} WHERE label = ${old.name.label}`,
      ),
    ).toMatch(/a label stays with its customer/);
    expect((await findMachineName(db, renewed.id))?.label).toBe(old.name.label);
  });

  it("renewed before the gone machine's record was deleted: the record is pointed at the new machine, and the sweep leaves it there", async () => {
    const old = await endedWithDiskKept();
    await terminated(old.vm.id);
    expect((await recordOf(old.host))?.values).toEqual([NAME_SINK_ADDRESS]);

    const renewed = await renew(old.user.id);
    expect((await findMachineName(db, renewed.id))?.label).toBe(old.name.label);
    expect(await findMachineName(db, old.vm.id)).toBeNull();
    expect((await recordOf(old.host))?.values).toEqual([renewed.public_ip]);
    // The gone machine's deletion does not take its successor's record; nobody is told of drift.
    await syncNames(deps);
    await syncNames(deps);
    expect((await recordOf(old.host))?.values).toEqual([renewed.public_ip]);
    expect((await findMachineName(db, renewed.id))?.released_at).toBeNull();
    const client = await signedIn(old.user.email);
    expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({
      host: old.host,
      current: true,
    });
  });

  it('the old machine still being deleted: the new one is shown with its address, and takes the name once the old one is gone', async () => {
    const old = await endedWithDiskKept();
    const instanceId = old.vm.instance_id!;
    // EC2 refuses to terminate the old instance for an hour.
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'TerminateInstances',
          code: 'ServiceUnavailable',
          status: 503,
          message: 'The service is unavailable. Please try again shortly.',
          instanceId,
          forMs: 60 * MINUTE,
        },
      ],
    });
    try {
      await expect(terminateVm(deps, { vmId: old.vm.id })).rejects.toThrow(/ServiceUnavailable/);
      expect((await cloud.vm(old.vm.id)).state).toBe('terminating');

      const renewed = await renew(old.user.id);
      // One machine behind the name: it stays with the old one, and no new name is drawn.
      expect(await findMachineName(db, renewed.id)).toBeNull();
      expect((await findMachineName(db, old.vm.id))?.label).toBe(old.name.label);
      expect((await recordOf(old.host))?.values).toEqual([NAME_SINK_ADDRESS]);
      const client = await signedIn(old.user.email);
      const shown = (await client.call('/api/vm/dashboard')).body;
      expect(shown.vmPublicIp).toBe(renewed.public_ip);
      expect(shown.machineName).toBeNull();
      expect((await client.call('/api/vm/rdp')).body).toContain(`full address:s:${renewed.public_ip}\r\n`);
      // The sweep looks, and it still waits.
      await syncNames(deps);
      expect(await findMachineName(db, renewed.id)).toBeNull();
      expect(await namesOf(old.user.id)).toEqual([old.name.label]);

      // The hour is over: EC2 terminates the old instance; the sweep hands the name over.
      cloud.advance(61 * MINUTE);
      await expect(terminateVm(deps, { vmId: old.vm.id })).resolves.toBe('deleting');
      await terminated(old.vm.id);
      await syncNames(deps);
      expect((await findMachineName(db, renewed.id))?.label).toBe(old.name.label);
      expect((await recordOf(old.host))?.values).toEqual([renewed.public_ip]);
      expect((await client.call('/api/vm/dashboard')).body.machineName).toEqual({
        host: old.host,
        current: true,
      });
      expect((await client.call('/api/vm/rdp')).body).toContain(`full address:s:${old.host}\r\n`);
      expect(await namesOf(old.user.id)).toEqual([old.name.label]);
    } finally {
      stack.sandboxEc2.control({ clearFaults: true });
    }
  });
});
