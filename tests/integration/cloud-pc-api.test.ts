import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findDashboardVm } from '../../core/db/vms.ts';
import { decryptWindowsPassword } from '../../core/providers/windowsPassword.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { OTHER_USER_MESSAGE } from '../../api/middleware/auth.ts';
import { createUser, logIn, newClient, type Client } from '../support/accounts.ts';
import { paymentHelpers } from '../support/payments.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * The cloud PC through the API with the real worker: paying provisions a machine, the
 * dashboard record shows it (spec §3), START/STOP move it, the RDP and password files download
 * for their owner only.
 */

const stack = await startTestStack({ worker: true });
const payments = paymentHelpers(stack);
const cloud = cloudPcHelpers(stack);

const SPEC_FIELDS = [
  'email',
  'name',
  'purchaseDate',
  'expiryDate',
  'selectedPlan',
  'selectedDuration',
  'selectedStorage',
  'selectedPrice',
  'vmUsageSeconds',
  'vmLastState',
  'vmLastStateChange',
  'rdpUrl',
  'pwdUrl',
  'isRunning',
  'vmPublicIp',
];

async function dashboard(client: Client, email: string) {
  const reply = await client.call(`/api/vm/dashboard/${encodeURIComponent(email)}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

async function until(
  client: Client,
  email: string,
  what: string,
  check: (body: any) => boolean,
  timeoutMs = 25_000,
) {
  return waitFor(
    what,
    async () => {
      const body = await dashboard(client, email);
      return check(body) ? body : null;
    },
    timeoutMs,
  );
}

/** Someone who paid for a LEGEND plan through PayU (sandbox) and whose machine is ready. */
async function paidAndReady() {
  const { user, client } = await payments.buyer({ name: 'Meera Iyer' });
  const checkout = await payments.checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
  await payments.pay(checkout.txnid);
  const ready = await until(client, user.email, 'the machine to be ready', (b) => b.vmPublicIp !== null);
  return { user, client, ready };
}

describe('cloud PC API', () => {
  it('pays, waits with no IP while provisioning, then shows every dashboard field with the IP and files', async () => {
    const { user, client } = await payments.buyer({ name: 'Meera Iyer' });
    const empty = await dashboard(client, user.email);
    expect(empty).toMatchObject({
      selectedPlan: '',
      vmPublicIp: null,
      isRunning: false,
      rdpUrl: null,
      pwdUrl: null,
    });

    const checkout = await payments.checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
    await payments.pay(checkout.txnid);
    const waiting = await until(client, user.email, 'the plan to show', (b) => b.selectedPlan === 'LEGEND');
    if (waiting.vmPublicIp === null) {
      expect(waiting.vmLastState).toBe('provisioning');
      expect(waiting.rdpUrl).toBeNull();
    }

    const ready = await until(client, user.email, 'the machine to be ready', (b) => b.vmPublicIp !== null);
    for (const field of SPEC_FIELDS) expect(ready).toHaveProperty(field);
    const vm = await findDashboardVm(stack.services.db, user.id);
    expect(ready).toMatchObject({
      email: user.email,
      name: 'Meera Iyer',
      selectedPlan: 'LEGEND',
      selectedDuration: 30,
      selectedStorage: '115 GB',
      selectedPrice: 1450,
      vmLastState: 'running',
      isRunning: true,
      vmPublicIp: vm?.public_ip,
      // Identified by the session: no email in the address (docs/security.md, "Privacy").
      pwdUrl: '/api/vm/password',
      planActive: true,
      canStop: true,
      canStart: false,
      notice: null,
    });
    expect(ready.rdpUrl).toMatch(/^\/api\/vm\/rdp\?v=\d+$/);
    expect(ready.vmUsageSeconds).toBe(0);
    expect(Date.parse(ready.vmLastStateChange)).toBeGreaterThan(Date.parse(ready.purchaseDate));
    expect(Date.parse(ready.expiryDate)).toBeGreaterThan(Date.parse(ready.purchaseDate));
    // The password never travels in the record.
    expect(JSON.stringify(ready)).not.toMatch(/password_encrypted|v1\./);

    const rdp = await client.call(ready.rdpUrl);
    expect(rdp.status).toBe(200);
    expect(rdp.headers.get('content-type')).toBe('application/x-rdp');
    expect(rdp.headers.get('content-disposition')).toBe('attachment; filename="LegendCloud-PC.rdp"');
    expect(rdp.headers.get('cache-control')).toBe('no-store');
    expect(rdp.body).toContain(`full address:s:${ready.vmPublicIp}\r\n`);
    expect(rdp.body).toContain('username:s:Administrator\r\n');
    expect(
      rdp.body
        .split('\r\n')
        .slice(0, -1)
        .every((line: string) => /^[a-z0-9 ]+:[si]:.+$/.test(line)),
    ).toBe(true);

    const pwd = await client.call(ready.pwdUrl);
    expect(pwd.status).toBe(200);
    expect(pwd.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(pwd.headers.get('cache-control')).toBe('no-store');
    expect(pwd.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.txt"$/);
    const { passwordData } = await cloud.deps().vmEc2.ec2.getPasswordData(vm!.instance_id!);
    const decrypted = decryptWindowsPassword(passwordData, stack.config.ec2.privateKeyPem!);
    expect(pwd.body).toBe(decrypted.status === 'ready' ? decrypted.password : 'not ready');
    cloud.destroy();
  });

  it("refuses another user's dashboard, RDP file and password file (403), and anonymous callers (401)", async () => {
    const { user, client: owner, ready } = await paidAndReady();
    const other = await createUser(stack);
    const otherClient = newClient(stack);
    await logIn(otherClient, other.email);
    const email = encodeURIComponent(user.email);
    // The spec's addresses that name an email.
    for (const path of [`/api/vm/dashboard/${email}`, `/api/vm/rdp/${email}`, `/api/vm/password/${email}`]) {
      const reply = await otherClient.call(path);
      expect(reply.status, path).toBe(403);
      expect(reply.body).toEqual({ message: OTHER_USER_MESSAGE });
      expect((await newClient(stack).call(path)).status, path).toBe(401);
    }
    // The session's own addresses give another customer only their own (no machine: 409).
    for (const path of [ready.rdpUrl, ready.pwdUrl]) {
      expect((await otherClient.call(path)).status, path).toBe(409);
      expect((await newClient(stack).call(path)).status, path).toBe(401);
    }
    // The owner still gets the files by the spec's addresses.
    expect((await owner.call(`/api/vm/rdp/${email}`)).status).toBe(200);
    for (const path of ['/api/vm/start-vm', '/api/vm/stop-vm']) {
      expect((await otherClient.call(path, { body: { email: user.email } })).status).toBe(403);
    }
  });

  it('STOP then START: stopping, stopped with START offered, then running again on a new IP', async () => {
    const { user, client, ready } = await paidAndReady();
    const stop = await client.call('/api/vm/stop-vm', { body: { email: user.email } });
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({
      vmLastState: 'stopping',
      isRunning: false,
      vmPublicIp: null,
      rdpUrl: null,
    });
    // A second STOP is harmless.
    expect((await client.call('/api/vm/stop-vm', { body: { email: user.email } })).status).toBe(200);
    const stopped = await until(
      client,
      user.email,
      'the machine to stop',
      (b) => b.vmLastState === 'stopped',
    );
    expect(stopped).toMatchObject({ canStart: true, canStop: false, vmPublicIp: null });
    expect((await client.call(ready.rdpUrl)).status).toBe(409);

    const start = await client.call('/api/vm/start-vm', { body: { email: user.email } });
    expect(start.status).toBe(202);
    expect(start.body.vmLastState).toBe('starting');
    const again = await until(client, user.email, 'the machine to run again', (b) => b.vmPublicIp !== null);
    expect(again.vmPublicIp).not.toBe(ready.vmPublicIp);
    expect(again.rdpUrl).not.toBe(ready.rdpUrl);
    const rdp = await client.call(again.rdpUrl);
    expect(rdp.body).toContain(`full address:s:${again.vmPublicIp}\r\n`);
  });

  it('refuses START with a clear message once the hours are used up or the plan has expired', async () => {
    const { user, client } = await paidAndReady();
    const vm = (await findDashboardVm(stack.services.db, user.id))!;
    await client.call('/api/vm/stop-vm', { body: { email: user.email } });
    await until(client, user.email, 'the machine to stop', (b) => b.vmLastState === 'stopped');

    await cloud.exec(sql.unsafe`UPDATE vms SET usage_seconds = 30 * 3600 WHERE id = ${vm.id}`);
    const outOfHours = await client.call('/api/vm/start-vm', { body: { email: user.email } });
    expect(outOfHours.status).toBe(409);
    expect(outOfHours.body.message).toBe(VM_MESSAGES.outOfHours);
    expect(await dashboard(client, user.email)).toMatchObject({
      outOfHours: true,
      canStart: false,
      remainingSeconds: 0,
      notice: VM_MESSAGES.outOfHours,
      startBlocked: VM_MESSAGES.outOfHours,
    });

    await cloud.exec(sql.unsafe`UPDATE vms SET usage_seconds = 0 WHERE id = ${vm.id}`);
    await cloud.exec(
      sql.unsafe`UPDATE subscriptions SET expires_at = now() - interval '1 minute' WHERE id = ${vm.subscription_id}`,
    );
    const expired = await client.call('/api/vm/start-vm', { body: { email: user.email } });
    expect(expired.status).toBe(409);
    expect(expired.body.message).toBe(VM_MESSAGES.planExpired);
    const body = await dashboard(client, user.email);
    // The plan-end banner says it ended and what now; START is refused with the reason.
    expect(body).toMatchObject({
      planActive: false,
      canStart: false,
      notice: null,
      startBlocked: VM_MESSAGES.planExpired,
      planEnd: {
        phase: 'ended',
        renewal: 'none',
        renewOffer: { label: expect.stringMatching(/^Renew LEGEND \d+ h$/) },
      },
    });
    expect(Date.parse(body.keptUntil) - Date.parse(body.expiryDate)).toBe(
      stack.config.vm.graceDays * 86_400_000,
    );
    expect((await cloud.vm(vm.id)).state).toBe('stopped');
  });
});
