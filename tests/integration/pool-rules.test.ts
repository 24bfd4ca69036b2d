import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { claimPoolInstance, PoolInstance } from '../../core/db/poolInstances.ts';
import { insertVm } from '../../core/db/vms.ts';
import { getPlan, type PlanId } from '../../core/domain/plans.ts';
import { chooseSpare, decidePoolTopUp, type SpareFacts } from '../../core/domain/pool.ts';
import { replenishPool } from '../../worker/jobs/poolReplenish.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The pool's decisions (core/domain/pool.ts) are what production carries out, so the pool
 * simulation (`npm run bench -- pool-sim`), which calls the same functions, reports production:
 * - the claim in SQL (`claimPoolInstance`, under SKIP LOCKED) takes the spare `chooseSpare` picks;
 * - `pool-replenish` launches the spares `decidePoolTopUp` asks for.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const db = stack.services.db;
afterAll(() => cloud.destroy());

const NOW = Date.now();
const MINUTE = 60_000;

/** A customer's new machine of the plan, as vm-provision makes it before it claims. */
async function newMachine(planId: PlanId): Promise<string> {
  const plan = getPlan(planId);
  const user = await createUser(stack, { password: null });
  const subscription = await cloud.activePlan(user.id, { planId });
  const vm = await insertVm(
    db,
    {
      userId: user.id,
      subscriptionId: subscription.id,
      planId,
      instanceType: plan.instanceType,
      storageGb: plan.storageGb,
    },
    new Date(NOW),
  );
  return vm.id;
}

type Seed = {
  hot: boolean;
  readyMinutesAgo: number | null;
  state?: string;
  planId?: PlanId;
  storageGb?: number;
};

async function insertSpares(seeds: Seed[], tag: string): Promise<void> {
  for (const [i, seed] of seeds.entries()) {
    const plan = getPlan(seed.planId ?? 'legend');
    const state = seed.state ?? 'ready';
    const launched = state !== 'launching';
    await db.query(sql.unsafe`
      INSERT INTO pool_instances (plan_id, instance_type, storage_gb, image_id, state, hot, instance_id,
        password_encrypted, ready_at)
      VALUES (${plan.id}, ${plan.instanceType}, ${seed.storageGb ?? plan.storageGb}, 'ami-test', ${state},
        ${seed.hot}, ${launched ? `i-${tag}-${i}` : null}, ${launched ? 'sealed' : null},
        ${seed.readyMinutesAgo === null ? null : new Date(NOW - seed.readyMinutesAgo * MINUTE).toISOString()})`);
  }
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
    await insertSpares(
      [
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
      ],
      'claim-order',
    );
    const legend = getPlan('legend');
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
      const claimed = await claimPoolInstance(db, machine, await newMachine('legend'), new Date(NOW));
      expect(claimed?.id ?? null).toBe(rule.kind === 'launch' ? null : rule.spare.id);
      kinds.push(rule.kind);
    }
    // Both kinds and the end of the pool were exercised: 2 hot, 4 warm, then launches.
    expect(kinds).toEqual(['hot', 'hot', 'warm', 'warm', 'warm', 'warm', 'launch', 'launch']);
  });
});

describe('topping up: pool-replenish launches what decidePoolTopUp decides', () => {
  it('twelve claims in the last hour: the warm pool grows past its size and hot spares follow, within POOL_HOT', async () => {
    const planId: PlanId = 'ultra-legend';
    const plan = getPlan(planId);
    // Twelve spares claimed in the last hour (and one two hours ago, which no longer counts).
    await insertSpares(
      Array.from({ length: 13 }, () => ({ hot: false, readyMinutesAgo: 180, planId })),
      'claimed',
    );
    const ids = await db.manyFirst(
      sql.type(z.object({ id: z.string() }))`SELECT id FROM pool_instances WHERE plan_id = ${planId}`,
    );
    for (const [i, id] of ids.entries()) {
      const claimedAt = new Date(NOW - (i === 0 ? 120 : 5 * i) * MINUTE);
      await db.query(sql.unsafe`
        UPDATE pool_instances SET state = 'claimed', vm_id = ${await newMachine(planId)},
          claimed_at = ${claimedAt.toISOString()} WHERE id = ${id}`);
    }
    const pooled = cloud.deps({
      vm: {
        warmPoolSize: { ...stack.config.vm.warmPoolSize, [planId]: 1 },
        hotPoolMax: { ...stack.config.vm.hotPoolMax, [planId]: 16 },
      },
    });
    // Room for all of them: the thirteen machines above are in use.
    pooled.config.capacityLimits = { ...pooled.config.capacityLimits, [plan.instanceType]: 100 };

    const expected = decidePoolTopUp({
      warmSize: 1,
      hotMax: 16,
      claimsLastHour: 12,
      capacityRoom: 100 - 13,
      warmFilling: 0,
      hotFilling: 0,
    });
    // The rule's answer, stated: five warm (not one), four hot (not thirteen).
    expect(expected).toMatchObject({ warm: 5, hot: 4 });
    await replenishPool(pooled, new Date(NOW));
    const made = await db.any(sql.type(z.object({ hot: z.boolean(), count: z.number() }))`
      SELECT hot, count(*)::int AS count FROM pool_instances
      WHERE plan_id = ${planId} AND state <> 'claimed' GROUP BY hot ORDER BY hot`);
    expect(made).toEqual([
      { hot: false, count: expected.warm },
      { hot: true, count: expected.hot },
    ]);
    // Run again: the spares now filling are counted, nothing more is launched.
    await replenishPool(pooled, new Date(NOW));
    expect(
      await db.oneFirst(sql.type(z.object({ count: z.number() }))`
        SELECT count(*)::int AS count FROM pool_instances WHERE plan_id = ${planId} AND state <> 'claimed'`),
    ).toBe(9);
  });
});
