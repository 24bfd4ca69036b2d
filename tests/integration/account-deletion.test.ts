import { DescribeInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { createEc2Client } from '../../core/providers/ec2.ts';
import { paymentHelpers } from '../support/payments.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * Deleting an account through `DELETE /api/user` with the real worker running: every machine of
 * the customer — one running (taken from a hot spare when one is up), one whose plan was paid a
 * moment ago and is still being claimed or launched — is terminated by `vm-terminate` jobs, and
 * EC2 (the sandbox, asked through the AWS SDK) holds no live instance or disk of theirs. The
 * invoices and payments stay, without the person on them.
 */

const stack = await startTestStack({ worker: true, env: { POOL_HOT: 'legend=1' } });
const payments = paymentHelpers(stack);
const cloud = cloudPcHelpers(stack);
const ec2 = createEc2Client(stack.config.ec2).client;
const db = stack.services.db;
afterAll(() => cloud.destroy());

const VmRow = z.object({ id: z.string(), state: z.string(), instance_id: z.string().nullable() });
const vmsOf = (userId: string) =>
  db.any(
    sql.type(VmRow)`SELECT id, state, instance_id FROM vms WHERE user_id = ${userId} ORDER BY created_at`,
  );

/** Every instance EC2 lists that belongs to the customer: by our owner tag, by a machine's tag or ClientToken, by id. */
async function instancesOfCustomer(userId: string, vms: ReadonlyArray<z.infer<typeof VmRow>>) {
  const byFilter = async (Name: string, Values: string[]) => {
    if (Values.length === 0) return [];
    const page = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name, Values }] }));
    return (page.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  };
  const found = [
    ...(await byFilter('tag:legend:owner', [userId])),
    ...(await byFilter(
      'tag:legend:vm',
      vms.map((vm) => vm.id),
    )),
    ...(await byFilter(
      'client-token',
      vms.map((vm) => vm.id),
    )),
    ...(await byFilter(
      'instance-id',
      vms.flatMap((vm) => (vm.instance_id ? [vm.instance_id] : [])),
    )),
  ];
  return [...new Map(found.map((i: Instance) => [i.InstanceId, i])).values()];
}

async function paid(name: string) {
  const { user, client } = await payments.buyer({ name });
  const checkout = await payments.checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
  await payments.pay(checkout.txnid);
  await payments.paymentStatus(checkout.txnid, 'success');
  return { user, client, txnid: checkout.txnid };
}

describe('account deletion', () => {
  it('terminates every machine of the customer through jobs, leaves no instance or disk in EC2, and keeps minimised invoices', async () => {
    // A hot spare up first, so the running customer's purchase claims it.
    await waitFor(
      'a hot spare to be ready',
      async () =>
        (await db.oneFirst(
          sql.type(z.object({ n: z.number() }))`
            SELECT count(*)::int AS n FROM pool_instances WHERE plan_id = 'legend' AND hot AND state = 'ready'`,
        )) > 0,
      60_000,
    );

    const running = await paid('Meera Iyer');
    await waitFor(
      'the machine to run',
      async () => (await vmsOf(running.user.id)).some((vm) => vm.state === 'running'),
      60_000,
    );
    // It came from the hot spare: a pool claim, already running.
    expect(
      await db.maybeOneFirst(sql.type(z.object({ hot: z.boolean() }))`
        SELECT p.hot FROM pool_instances p JOIN vms v ON v.id = p.vm_id WHERE v.user_id = ${running.user.id}`),
    ).toBe(true);
    // The second customer deletes right after paying: the claim or launch is in flight.
    const fresh = await paid('Arjun Nair');

    const invoiceBefore = await db.one(
      sql.type(
        z.object({ invoice_number: z.string(), total_paise: z.number(), customer_name: z.string() }),
      )`SELECT invoice_number, total_paise, customer_name FROM invoices WHERE user_id = ${running.user.id}`,
    );
    expect(invoiceBefore.customer_name).toBe('Meera Iyer');
    const answerOf = async (txnid: string) =>
      JSON.stringify(
        await db.oneFirst(
          sql.type(
            z.object({ a: z.unknown() }),
          )`SELECT verify_answer AS a FROM payments WHERE txnid = ${txnid}`,
        ),
      );
    // PayU's answer names the payer (firstname, name_on_card) until the account is deleted.
    expect(await answerOf(running.txnid)).toContain('Meera');

    for (const { user, client } of [running, fresh]) {
      const reply = await client.call('/api/user', { method: 'DELETE', body: { email: user.email } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }

    for (const { user } of [running, fresh]) {
      // A provisioning still queued finds the plan cancelled and does nothing; wait until none is left to run.
      await waitFor(`no provisioning left for ${user.id}`, async () => {
        const open = (await cloud.jobs('vm-provision', { userId: user.id })).filter((j) =>
          ['created', 'retry', 'active'].includes(j.state),
        );
        return open.length === 0;
      });
      // The worker terminates each machine the customer has, whatever step it was at.
      const vms = await waitFor(
        `every machine of ${user.id} to be terminated`,
        async () => {
          const rows = await vmsOf(user.id);
          return rows.every((vm) => vm.state === 'terminated') ? rows : null;
        },
        60_000,
      );
      if (user.id === running.user.id) expect(vms.length).toBeGreaterThan(0);
      const terminateJobs = await cloud.jobs('vm-terminate');
      for (const vm of vms)
        expect(terminateJobs.filter((j) => (j.data as { vmId: string }).vmId === vm.id)).toHaveLength(1);

      const instances = await waitFor(
        `EC2 to hold nothing live of ${user.id}`,
        async () => {
          const listed = await instancesOfCustomer(user.id, vms);
          return listed.every((i) => i.State?.Name === 'terminated') ? listed : null;
        },
        60_000,
      );
      for (const instance of instances) {
        // The root volume goes with the instance: nothing of theirs is left on a disk we pay for.
        for (const mapping of instance.BlockDeviceMappings ?? [])
          expect(mapping.Ebs?.DeleteOnTermination, mapping.Ebs?.VolumeId).toBe(true);
      }
      expect(
        await db.oneFirst(sql.type(z.object({ n: z.number() }))`
          SELECT count(*)::int AS n FROM subscriptions WHERE user_id = ${user.id} AND status = 'active'`),
      ).toBe(0);
    }
    // The running customer's instance was there to be terminated.
    expect((await instancesOfCustomer(running.user.id, await vmsOf(running.user.id))).length).toBeGreaterThan(
      0,
    );

    // Invoices and payments are kept, without the person.
    const invoice = await db.one(sql.type(
      z.object({
        invoice_number: z.string(),
        total_paise: z.number(),
        customer_name: z.string(),
        customer_email: z.string(),
        customer_phone: z.string().nullable(),
        place_of_supply: z.string(),
        supplier_gstin: z.string(),
      }),
    )`SELECT invoice_number, total_paise, customer_name, customer_email, customer_phone, place_of_supply,
         supplier_gstin FROM invoices WHERE user_id = ${running.user.id}`);
    expect(invoice).toMatchObject({
      invoice_number: invoiceBefore.invoice_number,
      total_paise: invoiceBefore.total_paise,
      customer_name: 'Deleted customer',
      customer_email: `deleted-${running.user.id}@deleted.invalid`,
      customer_phone: null,
      supplier_gstin: stack.config.invoice.gstin,
    });
    expect(invoice.place_of_supply).not.toBe('');
    const kept = await answerOf(running.txnid);
    expect(kept).not.toContain(running.user.email);
    expect(kept).not.toContain('Meera');
    expect(kept).toContain(running.txnid);
  });
});
