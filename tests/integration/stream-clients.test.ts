import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { sendJob } from '../../core/queue.ts';
import { createUser, logIn, newClient, type Client } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * Moonlight across restarts, through the real stack (worker, sandbox machines with their Sunshine
 * and health reporter): the dashboard's paired devices follow Sunshine's own client list on the
 * PC. A device paired in Sunshine's page (or found on a disk brought back from a copy) is listed
 * and can be removed; one removed there is no longer listed; after STOP/START a paired device is
 * still paired and the card says what to open in Moonlight.
 */

const stack = await startTestStack({ worker: true });
const cloud = cloudPcHelpers(stack);
const db = stack.services.db;
afterAll(() => cloud.destroy());

type Device = { id: string; name: string; removing: boolean; foundOnPc: boolean };
type Streaming = {
  host: string | null;
  pairedNote: string | null;
  addressNote: string;
  pairedDevices: Device[];
  pairing: { message: string | null } | null;
};

async function streaming(client: Client): Promise<Streaming> {
  const reply = await client.call('/api/vm/dashboard');
  expect(reply.status).toBe(200);
  return reply.body.streaming as Streaming;
}

async function sunshine(machines: Record<string, unknown>) {
  const reply = await stack.api('/sandbox/sunshine/_control', { method: 'POST', body: { machines } });
  expect(reply.status).toBe(204);
}

async function clientsOn(ip: string): Promise<Array<{ uuid: string; name: string }>> {
  return (await stack.api('/sandbox/sunshine/_state')).body.hosts[ip]?.clients ?? [];
}

async function runningIp(userId: string) {
  return waitFor(
    'the machine to run',
    async () => {
      const row = await db.maybeOne(
        sql.type(z.object({ id: z.uuid(), public_ip: z.string().nullable() }))`
          SELECT id, public_ip FROM vms WHERE user_id = ${userId} AND state = 'running'`,
      );
      return row?.public_ip ? { id: row.id, ip: row.public_ip } : null;
    },
    60_000,
  );
}

describe("paired devices follow the PC's own list", () => {
  it('a device paired on the PC is listed and removable; one removed there goes; after a restart the pairing stays', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const plan = await cloud.activePlan(user.id);
    await sendJob(stack.services.boss, 'vm-provision', { subscriptionId: plan.id, userId: user.id });
    const { id: vmId, ip } = await runningIp(user.id);
    await waitFor('its streaming host to report', async () => (await streaming(client))?.host === ip, 30_000);

    // Paired in Sunshine's own page: the next report brings it to the dashboard.
    await sunshine({ [ip]: { pairedHere: ['Old phone', 'Tablet'], reportNow: true } });
    const listed = await waitFor(
      'the devices found on the PC',
      async () => {
        const devices = (await streaming(client)).pairedDevices;
        return devices.length === 2 ? devices : null;
      },
      30_000,
    );
    expect(listed.map((d) => [d.name, d.foundOnPc]).sort()).toEqual([
      ['Old phone', true],
      ['Tablet', true],
    ]);

    // Removed from the dashboard: gone from the PC too.
    const phone = listed.find((d) => d.name === 'Old phone')!;
    const removed = await client.call(`/api/vm/stream-pair/${phone.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await clientsOn(ip)).map((c) => c.name)).toEqual(['Tablet']);
    expect((await streaming(client)).pairedDevices.map((d) => d.name)).toEqual(['Tablet']);
    // Read again, the list does not bring it back.
    const reads = async () =>
      (await cloud.jobs('stream-clients', { vmId })).filter((job) => job.state === 'completed').length;
    const before = await reads();
    await sunshine({ [ip]: { reportNow: true } });
    await waitFor('the list to be read again', async () => (await reads()) > before, 30_000);
    expect((await streaming(client)).pairedDevices.map((d) => d.name)).toEqual(['Tablet']);

    // Removed in Sunshine's page: no longer listed.
    await sunshine({ [ip]: { pairedHere: ['Console'], removedHere: ['Tablet'], reportNow: true } });
    await waitFor(
      'the list to follow the PC',
      async () =>
        JSON.stringify((await streaming(client)).pairedDevices.map((d) => d.name)) === '["Console"]',
      30_000,
    );

    // STOP and START: a new address, the device still paired, and the card says what to do.
    expect((await client.call('/api/vm/stop-vm', { body: { email: user.email } })).status).toBe(202);
    await cloud.waitForVm(vmId, 'to stop', (vm) => vm.state === 'stopped', 30_000);
    expect((await client.call('/api/vm/start-vm', { body: { email: user.email } })).status).toBeLessThan(300);
    const again = await cloud.waitForVm(vmId, 'to run again', (vm) => vm.state === 'running', 30_000);
    expect(again.public_ip).not.toBe(ip);
    const view = await waitFor(
      'the card at the new address',
      async () => {
        const s = await streaming(client);
        return s.host === again.public_ip ? s : null;
      },
      30_000,
    );
    expect(view.pairedDevices.map((d) => d.name)).toEqual(['Console']);
    expect(view.pairedNote).toBe(
      `Your paired devices stay paired when your PC restarts, but its address is new: in Moonlight, add host ${again.public_ip} (no new PIN needed).`,
    );
    expect(view.addressNote).toMatch(/new IP address every time it starts/);
    expect(view.pairing).toBeNull();
  }, 150_000);
});
