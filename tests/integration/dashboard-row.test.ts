import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DashboardAutopay,
  DashboardKeptDisk,
  DashboardSubscription,
  DashboardVm,
  findDashboardState,
} from '../../core/db/dashboard.ts';
import { insertPendingMandate } from '../../core/db/autopay.ts';
import { insertPayment } from '../../core/db/payments.ts';
import { createDbPool, sql } from '../../core/db/pool.ts';
import { insertUser } from '../../core/db/users.ts';
import { freshDatabase } from '../support/db.ts';
import { customerWithMachine } from '../../scripts/bench/lib.ts';

/**
 * The dashboard statement's row is taken on trust on every poll (no per-row validation on the
 * hot path), so its schemas are checked here instead, against real rows with every part
 * present: a column whose type or values drift from what the presenter was written for fails
 * here rather than reaching the customer.
 */

const databaseUrl = await freshDatabase();
const db = await createDbPool(databaseUrl, { maximumPoolSize: 2 });
// The statement runs on a plain pg pool, as the web process's pgPool runs it.
const pgPool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
afterAll(async () => {
  await pgPool.end();
  await db.end();
});

describe('the dashboard row', () => {
  it('holds exactly what its schemas say, for a customer with a plan, a machine, a kept disk and AutoPay', async () => {
    const { user, subscription, plan, vm } = await customerWithMachine(db, {
      email: 'row.check@example.com',
      name: 'Row Check',
      phone: '9876500001',
    });
    await db.query(sql.unsafe`
      UPDATE vms SET state = 'running', source = 'pool', instance_id = 'i-0row0check0000001',
        public_ip = '203.0.113.20', password_encrypted = 'sealed', started_at = now(),
        usage_seconds = 12.5, usage_counted_at = now(), delayed_at = now(), state_reason = 'user',
        resize_to_type = 'g5.xlarge', resize_to_gb = 225, problem = 'a problem'
      WHERE id = ${vm.id}`);
    const snapshotId = await db.oneFirst(sql.unsafe`
      INSERT INTO vm_snapshots (user_id, vm_id, state, volume_gb, instance_type, created_at, completed_at, keep_until)
      VALUES (${user.id}, ${vm.id}, 'completed', 115, 'g4dn.xlarge', now(), now(), now() + interval '30 days')
      RETURNING id`);
    // The kept disk is read only when the record can show it: here, a machine made from a copy.
    await db.query(
      sql.unsafe`UPDATE vms SET restore_snapshot_id = ${snapshotId as string} WHERE id = ${vm.id}`,
    );
    const payment = await insertPayment(db, {
      txnid: 'rowcheck0001',
      userId: user.id,
      subscriptionId: subscription.id,
      amountPaise: plan.pricesPaise[30],
      amount: '1.00',
      productinfo: 'LEGEND',
    });
    const mandate = await insertPendingMandate(db, {
      userId: user.id,
      registrationPaymentId: payment.id,
      planId: plan.id,
      planName: plan.displayName,
      hours: 30,
      storageGb: plan.storageGb,
      instanceType: plan.instanceType,
      amountPaise: plan.pricesPaise[30],
      endDate: '2030-01-01',
    });
    const renewal = await db.oneFirst(sql.unsafe`
      INSERT INTO autopay_renewals (mandate_id, user_id, renews_subscription_id, period_key, renewal_at, debit_at,
                                    amount_paise, state, request_id, notice_sent_at, next_attempt_at, failure_reason)
      VALUES (${mandate.id}, ${user.id}, ${subscription.id}, '2030-01-01', now() + interval '30 days',
              now() + interval '29 days', ${plan.pricesPaise[30]}, 'retrying', 'rowcheck-renewal', now(), now(), 'declined')
      RETURNING id`);
    await db.query(sql.unsafe`
      UPDATE autopay_mandates SET status = 'active', method = 'upi', next_debit_at = now(), problem = 'none',
        latest_renewal_id = ${renewal as string}
      WHERE id = ${mandate.id}`);

    await db.query(sql.unsafe`
      INSERT INTO machine_names (label, user_id, vm_id, points_to, written_at)
      VALUES ('pc-r0wcheck', ${user.id}, ${vm.id}, '203.0.113.20', now())`);

    const state = (await findDashboardState(pgPool, user.id))!;
    expect(state.user).toEqual({ email: 'row.check@example.com', name: 'Row Check' });
    expect(state.name).toEqual({ label: 'pc-r0wcheck', pointsTo: '203.0.113.20', released: false });
    // Every part present, every field of its schema there and of the schema's type: parse
    // answers the same object (the schemas transform nothing) and strips nothing.
    for (const [part, schema] of [
      [state.subscription, DashboardSubscription],
      [state.vm, DashboardVm],
      [state.keptDisk, DashboardKeptDisk],
      [state.autopay, DashboardAutopay],
    ] as const) {
      expect(part).not.toBeNull();
      expect(Object.keys(part!).sort()).toEqual(Object.keys(schema.shape).sort());
      expect(schema.strict().parse(part)).toEqual(part);
    }
    expect(state.vm).toMatchObject({ usage_seconds: 12.5, resize_to_gb: 225, source: 'pool' });
    expect(state.autopay).toMatchObject({ status: 'active', renewal_state: 'retrying', method: 'upi' });
  });

  it('is absent for a deleted account, and its parts are null for a customer with nothing yet', async () => {
    const user = await insertUser(db, {
      email: 'row.empty@example.com',
      name: 'Row Empty',
      phone: null,
      passwordHash: null,
      googleSub: null,
    });
    expect(await findDashboardState(pgPool, user.id)).toEqual({
      user: { email: 'row.empty@example.com', name: 'Row Empty' },
      subscription: null,
      vm: null,
      keptDisk: null,
      reportsHealth: false,
      health: null,
      clockAhead: null,
      pairings: [],
      autopay: null,
      name: null,
    });
    await db.query(sql.unsafe`UPDATE users SET deleted_at = now() WHERE id = ${user.id}`);
    expect(await findDashboardState(pgPool, user.id)).toBeNull();
  });
});
