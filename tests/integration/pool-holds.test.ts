import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import { CARD_PLANS } from '../../core/domain/plans.ts';
import { replenishPool } from '../../worker/jobs/poolReplenish.ts';
import { sweepFleet } from '../../worker/lifecycle/sweep.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { sampleValue } from '../support/prometheus.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * A wrong EC2_PRIVATE_KEY_PEM for an hour: every spare's Windows password is undecryptable. The
 * pool must not churn (one billed GPU launch per plan every five minutes): each failure holds
 * its plan's pool, 15 minutes doubling, one alert per plan naming the key; the pool comes back
 * once the key is fixed and the alert acknowledged with `npm run alerts -- ack`. The hour is
 * simulated: `pool-replenish` and the minute sweep are run every five minutes of a clock the
 * test moves (the sandbox EC2 moved with it), as the existing lifecycle tests drive time.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
afterAll(() => cloud.destroy());

const MINUTE = 60_000;
const warmEveryCardPlan = Object.fromEntries(
  Object.keys(stack.config.vm.warmPoolSize).map((id) => [id, CARD_PLANS.some((p) => p.id === id) ? 1 : 0]),
) as typeof stack.config.vm.warmPoolSize;
const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

/** Instances the sandbox EC2 launched for a plan's pool, terminated ones included. */
function poolInstancesOf(planId: string) {
  return stack.sandboxEc2
    .state()
    .instances.filter((i) => i.tags['legend:pool'] && i.tags['legend:plan'] === planId);
}

/** `npm run alerts -- …` as an operator runs it, against this stack's database. */
async function alertsCommand(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['scripts/alerts.ts', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: stack.databaseUrl,
      LOG_LEVEL: 'silent',
    },
  });
  return stdout;
}

describe('a wrong EC2_PRIVATE_KEY_PEM for an hour', () => {
  it('launches at most the budget per plan, alerts once per plan naming the key, and the pool is back once fixed and acknowledged', async () => {
    const broken = cloud.deps({
      vm: { warmPoolSize: warmEveryCardPlan },
      ec2: { privateKeyPem: wrongKey },
    });
    const budget = broken.config.vm.launchBudget.pool;
    // The simulated hour ends now, so an operator's acknowledgement (written at the real time) comes after it.
    const start = Date.now() - 65 * MINUTE;
    for (let tick = 0; tick <= 12; tick += 1) {
      const now = new Date(start + tick * 5 * MINUTE);
      await replenishPool(broken, now);
      // Five minutes pass in EC2 too: launches boot, Windows writes its password data.
      cloud.advance(5 * MINUTE);
      await sweepFleet(broken, now);
    }

    for (const plan of CARD_PLANS) {
      // Every RunInstances is in the ledger (EC2 forgets terminated instances after an hour).
      const launched = await cloud.db.anyFirst(
        sql.type(z.object({ instance_id: z.string() }))`
          SELECT instance_id FROM ec2_launches
          WHERE kind = 'pool' AND plan_id = ${plan.id} AND outcome = 'launched' ORDER BY at`,
      );
      // Not one launch every five minutes (13): at most the budget, and the doubling holds make it 3.
      expect(launched.length, plan.id).toBeLessThanOrEqual(budget[plan.id]);
      expect(launched, plan.id).toHaveLength(3);
      // Each undecryptable spare was terminated at once: none of them is left billing.
      const live = poolInstancesOf(plan.id).filter(
        (i) => i.state !== 'terminated' && i.state !== 'shutting-down',
      );
      expect(live).toEqual([]);
      const holds = await cloud.db.any(
        sql.type(z.object({ cause: z.string(), level: z.number(), minutes: z.number() }))`
          SELECT cause, level, (extract(epoch FROM until - begun_at) / 60)::int AS minutes
          FROM pool_holds WHERE plan_id = ${plan.id} ORDER BY begun_at`,
      );
      expect(holds).toEqual([
        { cause: 'password-undecryptable', level: 0, minutes: 15 },
        { cause: 'password-undecryptable', level: 1, minutes: 30 },
        { cause: 'password-undecryptable', level: 2, minutes: 60 },
      ]);
    }

    // One alert per plan, bumped by each hold, naming the key and how to release the hold.
    const holdAlerts = (await listAlerts(cloud.db)).filter((a) => a.kind === 'pool-hold');
    expect(holdAlerts.map((a) => a.dedupe_key).sort()).toEqual(
      CARD_PLANS.map((p) => `pool-hold:${p.id}`).sort(),
    );
    for (const alert of holdAlerts) {
      expect(alert.occurrences).toBe(3);
      expect(alert.message).toMatch(/PKCS#1 padding does not check out under EC2_PRIVATE_KEY_PEM/);
      expect(alert.message).toMatch(
        /Fix: set EC2_PRIVATE_KEY_PEM to the private key of key pair legend-sandbox/,
      );
      expect(alert.message).toMatch(/npm run alerts -- ack/);
    }

    // Nothing silent: /metrics has the launches and the holds by cause.
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    for (const plan of CARD_PLANS) {
      const labels = { kind: 'pool', plan: plan.id };
      expect(
        sampleValue(text, 'legend_ec2_launches_total', { ...labels, outcome: 'launched', cause: 'ok' }),
      ).toBe(3);
      expect(
        sampleValue(text, 'legend_ec2_launches_total', { ...labels, outcome: 'refused', cause: 'hold' }),
      ).toBeGreaterThanOrEqual(1);
      const hold = { plan: plan.id, cause: 'password-undecryptable' };
      expect(sampleValue(text, 'legend_pool_holds_total', hold)).toBe(3);
      expect(sampleValue(text, 'legend_pool_held', hold)).toBe(1);
    }

    // Still held now: replenishing launches nothing.
    expect((await replenishPool(broken)).launched).toBe(0);

    // The key is fixed (the worker restarted with the right one) and each alert acknowledged.
    const fixed = cloud.deps({ vm: { warmPoolSize: warmEveryCardPlan } });
    for (const alert of holdAlerts) expect(await alertsCommand('ack', alert.id)).toContain('acknowledged');
    expect((await replenishPool(fixed)).launched).toBe(CARD_PLANS.length);
    const ready = await waitFor('every card plan has a ready spare again', async () => {
      cloud.advance(5 * MINUTE);
      await sweepFleet(fixed);
      const rows = await cloud.db.anyFirst(
        sql.type(
          z.object({ plan_id: z.string() }),
        )`SELECT DISTINCT plan_id FROM pool_instances WHERE state = 'ready'`,
      );
      return rows.length === CARD_PLANS.length ? rows : null;
    });
    expect([...ready].sort()).toEqual(CARD_PLANS.map((p) => p.id).sort());
    // The problem is over: the hold alerts are resolved.
    const open = (await listAlerts(cloud.db)).filter((a) => a.kind === 'pool-hold');
    expect(open).toEqual([]);
    await waitFor('/metrics says no pool is held', async () => {
      const now = await (await fetch(`${stack.url}/metrics`)).text();
      return CARD_PLANS.every(
        (p) => sampleValue(now, 'legend_pool_held', { plan: p.id, cause: 'password-undecryptable' }) === 0,
      );
    });
  });
});
