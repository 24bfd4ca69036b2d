import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planLaunchTimes, poolLaunchTimes } from '../../core/db/launches.ts';
import { sql } from '../../core/db/pool.ts';
import {
  LAUNCH_BUDGET_WINDOW_MS,
  LAUNCH_LEDGER_RETENTION_MS,
  launchBudgetLeft,
} from '../../core/domain/launchBudget.ts';
import { readFleetSnapshot } from '../../core/observability/metricsFleet.ts';
import { housekeeping } from '../../worker/jobs/housekeeping.ts';
import { createUser, uniqueEmail } from '../support/accounts.ts';
import { startTestStack } from '../support/stack.ts';

const stack = await startTestStack();
const db = stack.services.db;
const count = (table: string, where = sql.fragment`TRUE`) =>
  db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE ${where}`,
  );

describe('housekeeping', () => {
  it('deletes dead rows, keeps live ones, and a second run deletes nothing', async () => {
    const user = await createUser(stack);
    const now = Date.now();
    await db.query(sql.unsafe`
      INSERT INTO rate_limits (key, points, expire) VALUES
        ('hk:dead', 3, ${now - 60_000}), ('hk:live', 1, ${now + 60_000}), ('hk:forever', 1, NULL)`);
    await db.query(sql.unsafe`
      INSERT INTO sessions (user_id, token_hash, expires_at, revoked_at) VALUES
        (${user.id}, 'hk-old-expired', now() - interval '40 days', NULL),
        (${user.id}, 'hk-old-revoked', now() + interval '5 days', now() - interval '31 days'),
        (${user.id}, 'hk-recently-revoked', now() + interval '5 days', now() - interval '1 day'),
        (${user.id}, 'hk-live', now() + interval '10 days', NULL)`);
    const stale = uniqueEmail('stale');
    const fresh = uniqueEmail('fresh');
    await db.query(sql.unsafe`
      INSERT INTO pending_registrations (email, requester_hash, name, phone, password_hash, created_at, updated_at) VALUES
        (${stale}, 'r1', 'Old', '9876543210', 'x', now() - interval '3 days', now() - interval '3 days'),
        (${fresh}, 'r1', 'New', '9876543210', 'x', now(), now())`);

    const handler = housekeeping({ db, log: stack.services.log });
    await handler([]);

    expect(await count('rate_limits', sql.fragment`key LIKE 'hk:%'`)).toBe(2);
    expect(await count('rate_limits', sql.fragment`key = 'hk:dead'`)).toBe(0);
    const sessions = await db.anyFirst(
      sql.type(
        z.object({ token_hash: z.string() }),
      )`SELECT token_hash FROM sessions WHERE token_hash LIKE 'hk-%' ORDER BY token_hash`,
    );
    expect(sessions).toEqual(['hk-live', 'hk-recently-revoked']);
    expect(await count('pending_registrations', sql.fragment`email = ${stale}`)).toBe(0);
    expect(await count('pending_registrations', sql.fragment`email = ${fresh}`)).toBe(1);

    await handler([]);
    expect(await count('rate_limits', sql.fragment`key LIKE 'hk:%'`)).toBe(2);
    expect(await count('sessions', sql.fragment`token_hash LIKE 'hk-%'`)).toBe(2);
  });

  it('deletes launch-ledger rows past their retention, keeps the rest, and changes no budget or counter', async () => {
    const user = await createUser(stack);
    const subscriptionId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                 status, purchased_at, expires_at)
      VALUES (${user.id}, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000, 'active', now(),
              now() + interval '30 days')
      RETURNING id`);
    const plan = 'hk-ledger';
    const now = Date.now();
    const MINUTE = 60_000;
    const old = now - LAUNCH_LEDGER_RETENTION_MS - 60 * MINUTE;
    const kept = now - LAUNCH_LEDGER_RETENTION_MS + 60 * MINUTE;
    const launches: Array<[string, string | null, string, string | null, number]> = [
      ['pool', null, 'launched', null, old],
      ['pool', null, 'failed', 'InsufficientInstanceCapacity', old],
      ['pool', null, 'refused', 'PoolHold', old - 10 * MINUTE],
      ['pool', null, 'launched', null, kept],
      ['pool', null, 'launched', null, now - 50 * MINUTE],
      ['pool', null, 'launched', null, now - 5 * MINUTE],
      ['machine', subscriptionId, 'launched', null, old],
      ['machine', subscriptionId, 'launched', null, now - 30 * MINUTE],
    ];
    for (const [kind, subscription, outcome, errorCode, at] of launches) {
      await db.query(sql.unsafe`
        INSERT INTO ec2_launches (kind, plan_id, subscription_id, outcome, error_code, at)
        VALUES (${kind}, ${plan}, ${subscription}, ${outcome}, ${errorCode}, ${new Date(at).toISOString()})`);
    }
    const since = new Date(now - LAUNCH_BUDGET_WINDOW_MS);
    const budgets = async () => ({
      pool: launchBudgetLeft(4, await poolLaunchTimes(db, plan, since), now),
      machine: launchBudgetLeft(4, await planLaunchTimes(db, subscriptionId, since), now),
    });
    const counted = async () =>
      (await readFleetSnapshot(db)).launches
        .filter((row) => row.plan === plan)
        .sort((a, b) => `${a.kind}${a.outcome}${a.cause}`.localeCompare(`${b.kind}${b.outcome}${b.cause}`));
    const budgetsBefore = await budgets();
    const countedBefore = await counted();
    expect(budgetsBefore.pool.left).toBe(2);
    expect(budgetsBefore.machine.left).toBe(3);

    const handler = housekeeping({ db, log: stack.services.log });
    await handler([]);

    const left = await db.anyFirst(sql.type(z.object({ at: z.date() }))`
      SELECT at FROM ec2_launches WHERE plan_id = ${plan} ORDER BY at`);
    expect(left.map((at) => at.getTime())).toEqual([
      kept,
      now - 50 * MINUTE,
      now - 30 * MINUTE,
      now - 5 * MINUTE,
    ]);
    expect(await budgets()).toEqual(budgetsBefore);
    // /metrics' legend_ec2_launches_total is a counter: a pruned launch still counts, once.
    expect(await counted()).toEqual(countedBefore);
    await handler([]);
    expect(await count('ec2_launches', sql.fragment`plan_id = ${plan}`)).toBe(4);
    expect(await counted()).toEqual(countedBefore);
  });
});
