import { createServer } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { loadConfig } from '../../core/config/config.ts';
import { createDbPool, sql } from '../../core/db/pool.ts';
import { insertPayment } from '../../core/db/payments.ts';
import { insertPendingSubscription } from '../../core/db/subscriptions.ts';
import { insertUser } from '../../core/db/users.ts';
import { RECONCILE_LOOKAHEAD_MS } from '../../core/domain/payments.ts';
import { getPlan } from '../../core/domain/plans.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createPayUClient, formatAmount, newTxnId } from '../../core/providers/payu.ts';
import { startBoss } from '../../core/queue.ts';
import { createSandboxPayU, SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT } from '../../sandbox/payu/index.ts';
import type { WorkerDeps } from '../../worker/deps.ts';
import { reconcilePayments } from '../../worker/jobs/paymentReconcile.ts';
import { paymentVerify } from '../../worker/jobs/paymentVerify.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import { heading } from './lib.ts';

/**
 * Lost callbacks: 100 checkouts created at once, all paid at PayU, browser closed and webhook
 * lost → seconds until every plan is active, and how many were activated twice (must be 0).
 *
 * The real payment-reconcile handler (verify_payment in batches, activation, invoice, receipt
 * and vm-provision jobs) runs against a real Postgres and the sandbox PayU over HTTP. Minutes
 * are not slept through: the sweep is called with a moved clock at the moments pg-boss would
 * fire its every-minute cron — each minute boundary plus a pickup delay drawn uniformly from
 * 0–37 s (the cron monitor's 30 s, the cron worker's 5 s and the worker's 2 s polling) — and
 * its own measured run time is added. Baseline, same run: another 100 paid checkouts whose
 * webhook arrived, each verified by the real payment-verify handler four at a time (the
 * worker's concurrency), measured from the webhook to active.
 */

const COUNT = Number(process.env.BENCH_CHECKOUTS ?? 100);
const CRON_DELAY_MAX_MS = 37_000;

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function benchReconcile(): Promise<void> {
  heading(`Lost callbacks: ${COUNT} paid checkouts, browser closed, no webhook → all active`);
  const database = await startScratchDatabase('bench-reconcile-', 'bench_reconcile');
  const payuRouter = createSandboxPayU({ key: SANDBOX_PAYU_KEY, salt: SANDBOX_PAYU_SALT });
  const app = new Koa();
  const router = new Router();
  router.use('/sandbox/payu', payuRouter.routes(), payuRouter.allowedMethods());
  app.use(router.routes());
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}/sandbox/payu`;
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      PAYU_KEY: SANDBOX_PAYU_KEY,
      PAYU_SALT: SANDBOX_PAYU_SALT,
      PAYU_CHECKOUT_URL: `${base}/_payment`,
      PAYU_API_URL: base,
    });
    const db = await createDbPool(database.url, { maximumPoolSize: 6 });
    const boss = await startBoss(database.url, 'script');
    const payu = createPayUClient(config.payu);
    const deps: WorkerDeps = {
      config,
      db,
      boss,
      log: createLogger({ level: 'silent', name: 'bench' }),
      mailer: null as never,
      vmEc2: null as never,
      remoteDesktop: null as never,
    };
    const plan = getPlan('legend');

    /** COUNT checkouts at once: rows as create-payment writes them, the form posted to PayU, then paid there. */
    async function paidCheckouts(label: string): Promise<string[]> {
      return Promise.all(
        Array.from({ length: COUNT }, async (_, i) => {
          const user = await insertUser(db, {
            email: `bench-${label}-${i}-${Date.now()}@example.com`,
            name: 'Bench Buyer',
            phone: '9876543210',
            passwordHash: null,
            googleSub: null,
          });
          const pending = await insertPendingSubscription(db, {
            userId: user.id,
            planId: plan.id,
            planName: plan.displayName,
            isTrial: false,
            hours: 30,
            storageGb: plan.storageGb,
            instanceType: plan.instanceType,
            pricePaise: plan.pricesPaise[30],
            trialPhone: null,
          });
          const txnid = newTxnId();
          const checkout = payu.buildCheckout({
            txnid,
            amountPaise: pending.price_paise,
            productinfo: 'Legend Cloud LEGEND, 30 hours, one month',
            firstname: user.name,
            email: user.email,
            phone: '9876543210',
            surl: 'http://127.0.0.1:9/api/payu/success',
            furl: 'http://127.0.0.1:9/api/payu/failure',
          });
          await insertPayment(db, {
            txnid,
            userId: user.id,
            subscriptionId: pending.id,
            amountPaise: pending.price_paise,
            amount: formatAmount(pending.price_paise),
            productinfo: checkout.productinfo,
          });
          const { action, ...fields } = checkout;
          const page = await fetch(action, { method: 'POST', body: new URLSearchParams(fields) });
          if (page.status !== 200) throw new Error(`checkout page answered ${page.status}`);
          await page.text();
          const done = await fetch(`${base}/_control`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ action: 'complete', txnid, outcome: 'success' }),
          });
          if (!done.ok) throw new Error(`completing ${txnid} failed`);
          await done.text();
          return txnid;
        }),
      );
    }

    const activeOf = async (txnids: string[]) =>
      Number(
        await db.oneFirst(sql.unsafe`
          SELECT count(*)::int FROM payments p JOIN subscriptions s ON s.id = p.subscription_id
          WHERE p.txnid = ANY(${sql.array(txnids, 'text')}) AND p.status = 'success' AND s.status = 'active'`),
      );
    const doubles = async () =>
      Number(
        await db.oneFirst(sql.unsafe`
          SELECT (SELECT count(*) FROM invoices) - (SELECT count(DISTINCT payment_id) FROM invoices)
               + (SELECT count(*) FROM pgboss.job WHERE name = 'vm-provision')
               - (SELECT count(DISTINCT data->>'subscriptionId') FROM pgboss.job WHERE name = 'vm-provision')`),
      );

    // Baseline: the webhook arrived; payment-verify runs for each, four at a time.
    const withWebhook = await paidCheckouts('webhook');
    const verify = paymentVerify(deps, payu);
    const webhookStart = performance.now();
    const queue = [...withWebhook];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let txnid = queue.shift(); txnid; txnid = queue.shift()) {
          await verify([{ id: txnid, name: 'payment-verify', data: { txnid, source: 'webhook' } } as never]);
        }
      }),
    );
    const webhookMs = performance.now() - webhookStart;
    if ((await activeOf(withWebhook)) !== COUNT) throw new Error('the baseline did not activate everything');

    // Lost callbacks: only the sweep can find them.
    const createdStart = Date.now();
    const lost = await paidCheckouts('lost');
    const createdMs = Date.now() - createdStart;
    const random = seeded(11);
    // Where the checkouts fall within the cron's minute, and each run's pickup delay.
    const phaseMs = random() * 60_000;
    let virtualMs = 0; // since the first checkout was created
    let sweeps = 0;
    let calls = 0;
    let handlerMs = 0;
    for (let minute = 0; minute < 10; minute++) {
      const tick = phaseMs + minute * 60_000 + random() * CRON_DELAY_MAX_MS;
      const started = performance.now();
      const result = await reconcilePayments(deps, payu, new Date(createdStart + tick));
      const took = performance.now() - started;
      sweeps++;
      calls += result.calls;
      handlerMs += took;
      virtualMs = tick + took;
      if ((await activeOf(lost)) === COUNT) break;
    }
    const active = await activeOf(lost);
    const worstMs = 120_000 - RECONCILE_LOOKAHEAD_MS + 60_000 + CRON_DELAY_MAX_MS + handlerMs;
    console.log(
      [
        'How: real payment-reconcile handler (verify_payment batched 50 txnids per call, activation, invoice, jobs),',
        'Postgres and the sandbox PayU over HTTP; the sweep is called with a moved clock at each cron minute plus a',
        `pickup delay (uniform 0–${CRON_DELAY_MAX_MS / 1000} s), its measured run time added. Checkouts created in ${(createdMs / 1000).toFixed(1)} s.`,
      ].join('\n'),
    );
    console.log(
      `lost callbacks: ${active}/${COUNT} active ${(virtualMs / 1000).toFixed(1)} s after checkout (virtual), ${sweeps} sweep run(s), ` +
        `${calls} verify_payment call(s), sweep handler ${(handlerMs / 1000).toFixed(2)} s; worst case by the cron model ` +
        `${(worstMs / 1000).toFixed(0)} s (target ≤ 300 s); double activations: ${await doubles()}`,
    );
    console.log(
      `baseline, webhook delivered: ${COUNT} active ${(webhookMs / 1000).toFixed(2)} s after the webhooks ` +
        `(${COUNT} verify_payment calls); ratio lost/webhook ${(virtualMs / webhookMs).toFixed(0)}×, ` +
        `PayU calls per payment ${(calls / COUNT).toFixed(2)} vs 1`,
    );
    await boss.stop({ graceful: false });
    await db.end();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await database.stop();
  }
}
