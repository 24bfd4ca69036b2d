import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDbPool, sql, type DatabasePool } from '../../core/db/pool.ts';
import { claimPoolInstance, PoolInstance } from '../../core/db/poolInstances.ts';
import { activateSubscription, insertPendingSubscription } from '../../core/db/subscriptions.ts';
import { insertUser } from '../../core/db/users.ts';
import { insertVm } from '../../core/db/vms.ts';
import { getPlan, planExpiry } from '../../core/domain/plans.ts';
import { chooseSpare, type SpareFacts } from '../../core/domain/pool.ts';
import { freshDatabase } from '../support/db.ts';

/**
 * The claim in SQL (`claimPoolInstance`: which row a purchase takes, under SKIP LOCKED) and the
 * claim rule in memory (`chooseSpare`, which the pool simulation calls) must be one rule. A mix of
 * spares is written (hot and warm, ready at different times, other plans, disks and states);
 * purchases claim one after another and each SQL pick is compared with the rule's pick over the
 * rows left.
 */

const url = await freshDatabase();
let db: DatabasePool;
beforeAll(async () => {
  db = await createDbPool(url, { maximumPoolSize: 2 });
});
afterAll(async () => {
  await db.end();
});

const NOW = Date.parse('2030-03-01T12:00:00.000Z');
const MINUTE = 60_000;
const legend = getPlan('legend');

type Seed = {
  hot: boolean;
  readyMinutesAgo: number | null;
  state?: string;
  planId?: string;
  storageGb?: number;
};
const SEEDS: Seed[] = [
  { hot: false, readyMinutesAgo: 90 },
  { hot: false, readyMinutesAgo: 30 },
  { hot: true, readyMinutesAgo: 5 },
  { hot: false, readyMinutesAgo: 600 },
  { hot: true, readyMinutesAgo: 50 },
  // Same ready time: the id decides, in both.
  { hot: false, readyMinutesAgo: 30 },
  // Never claimable by a LEGEND machine.
  { hot: true, readyMinutesAgo: 700, planId: 'pro-legend' },
  { hot: true, readyMinutesAgo: 700, storageGb: 225 },
  { hot: true, readyMinutesAgo: null, state: 'launching' },
  { hot: false, readyMinutesAgo: null, state: 'stopping' },
];

async function seedSpares(): Promise<void> {
  for (const [i, seed] of SEEDS.entries()) {
    const planId = seed.planId ?? 'legend';
    const plan = getPlan(planId as typeof legend.id);
    const state = seed.state ?? 'ready';
    const launched = state !== 'launching';
    await db.query(sql.unsafe`
      INSERT INTO pool_instances (plan_id, instance_type, storage_gb, image_id, state, hot, instance_id,
        password_encrypted, ready_at)
      VALUES (${planId}, ${plan.instanceType}, ${seed.storageGb ?? plan.storageGb}, 'ami-test', ${state},
        ${seed.hot}, ${launched ? `i-claim-order-${i}` : null}, ${launched ? 'sealed' : null},
        ${seed.readyMinutesAgo === null ? null : new Date(NOW - seed.readyMinutesAgo * MINUTE).toISOString()})`);
  }
}

async function legendMachine(n: number): Promise<string> {
  const user = await insertUser(db, {
    email: `claim-order-${n}@example.com`,
    name: 'Claim order',
    phone: null,
    passwordHash: null,
    googleSub: null,
  });
  const pending = await insertPendingSubscription(db, {
    userId: user.id,
    planId: legend.id,
    planName: legend.displayName,
    isTrial: false,
    hours: 30,
    storageGb: legend.storageGb,
    instanceType: legend.instanceType,
    pricePaise: legend.pricesPaise[30],
    trialPhone: null,
  });
  const now = new Date(NOW);
  const subscription = await activateSubscription(db, pending.id, now, planExpiry(now));
  if (!subscription) throw new Error('the plan did not activate');
  const vm = await insertVm(
    db,
    {
      userId: user.id,
      subscriptionId: subscription.id,
      planId: legend.id,
      instanceType: legend.instanceType,
      storageGb: legend.storageGb,
    },
    now,
  );
  return vm.id;
}

const facts = (row: PoolInstance): SpareFacts => ({
  id: row.id,
  planId: row.plan_id,
  instanceType: row.instance_type,
  storageGb: row.storage_gb,
  state: row.state,
  hot: row.hot,
  readyAt: row.ready_at,
});

describe('claiming a spare: SQL and chooseSpare agree', () => {
  it('takes the spares in the rule’s order, hot first, then ready longest, then none', async () => {
    await seedSpares();
    const machine = {
      planId: legend.id,
      instanceType: legend.instanceType,
      storageGb: legend.storageGb,
      restoring: false,
    };
    const kinds: string[] = [];
    for (let n = 0; n < 8; n++) {
      const rows = await db.any(sql.type(PoolInstance)`SELECT * FROM pool_instances`);
      const rule = chooseSpare(machine, rows.map(facts));
      const claimed = await claimPoolInstance(db, machine, await legendMachine(n), new Date(NOW));
      expect(claimed?.id ?? null).toBe(rule.kind === 'launch' ? null : rule.spare.id);
      kinds.push(rule.kind);
    }
    // Both kinds and the end of the pool were exercised: 2 hot, 4 warm, then launches.
    expect(kinds).toEqual(['hot', 'hot', 'warm', 'warm', 'warm', 'warm', 'launch', 'launch']);
  });
});
