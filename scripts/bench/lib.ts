import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { createDbPool, sql, type Db } from '../../core/db/pool.ts';
import { insertSession } from '../../core/db/sessions.ts';
import { insertVm, type Vm } from '../../core/db/vms.ts';
import {
  activateSubscription,
  insertPendingSubscription,
  type Subscription,
} from '../../core/db/subscriptions.ts';
import { insertUser, type User } from '../../core/db/users.ts';
import { getPlan, planExpiry, type PlanId } from '../../core/domain/plans.ts';
/** Small helpers for benchmarks: they print figures, they never assert wall-clock times. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

export function heading(title: string): void {
  console.log(`\n== ${title}`);
}

/** One measured figure, with the baseline it is compared against (measured in the same run). */
export type Figure = {
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number; unit: string };
  /** value ÷ baseline.value */
  ratio?: number;
  /** Anything else worth keeping with the figure (sample size, percentiles, settings). */
  detail?: Record<string, unknown>;
};

const figures: Record<string, Figure[]> = {};

/** Keeps a figure for bench/results.json; the caller prints it. */
export function record(bench: string, figure: Figure): Figure {
  const withRatio =
    figure.baseline && figure.ratio === undefined && figure.baseline.value !== 0
      ? { ...figure, ratio: figure.value / figure.baseline.value }
      : figure;
  (figures[bench] ??= []).push(withRatio);
  return withRatio;
}

export function recordedFigures(): Record<string, Figure[]> {
  return figures;
}

export function fmtRatio(ratio: number | undefined): string {
  return ratio === undefined ? '' : `${ratio.toFixed(2)}×`;
}

/**
 * A customer with a paid LEGEND 30 h plan, as payment-verify leaves one (without the job it would
 * send): what a benchmark needs before it times what follows a purchase.
 */
export async function paidLegendPlan(
  db: Db,
  person: { email: string; name: string; phone: string | null },
): Promise<{ user: User; subscription: Subscription; plan: ReturnType<typeof getPlan> }> {
  const user = await insertUser(db, { ...person, passwordHash: null, googleSub: null });
  const { subscription, plan } = await paidPlanFor(db, user.id, 'legend');
  return { user, subscription, plan };
}

/** A paid 30 h plan of `planId` for an existing customer (a renewal, a plan change). */
export async function paidPlanFor(
  db: Db,
  userId: string,
  planId: PlanId,
): Promise<{ subscription: Subscription; plan: ReturnType<typeof getPlan> }> {
  const plan = getPlan(planId);
  const pending = await insertPendingSubscription(db, {
    userId,
    planId: plan.id,
    planName: plan.displayName,
    isTrial: false,
    hours: 30,
    storageGb: plan.storageGb,
    instanceType: plan.instanceType,
    pricePaise: plan.pricesPaise[30],
    trialPhone: null,
  });
  const now = new Date();
  const subscription = await activateSubscription(db, pending.id, now, planExpiry(now));
  if (!subscription) throw new Error('could not activate the bench plan');
  return { subscription, plan };
}

/** A customer with a paid LEGEND plan and its machine (as inserted: `requested`). */
export async function customerWithMachine(
  db: Db,
  person: { email: string; name: string; phone: string | null },
): Promise<{ user: User; subscription: Subscription; plan: ReturnType<typeof getPlan>; vm: Vm }> {
  const { user, subscription, plan } = await paidLegendPlan(db, person);
  const vm = await insertVm(
    db,
    {
      userId: user.id,
      subscriptionId: subscription.id,
      planId: plan.id,
      instanceType: plan.instanceType,
      storageGb: plan.storageGb,
    },
    new Date(),
  );
  return { user, subscription, plan, vm };
}

/** A user as a real purchase leaves them: active plan, a running machine, a live session. */
export async function seedSignedInUser(
  url: string,
): Promise<{ userId: string; email: string; token: string }> {
  const db = await createDbPool(url, { maximumPoolSize: 2 });
  try {
    const email = 'bench.poll@example.com';
    const { user, vm } = await customerWithMachine(db, { email, name: 'Bench Poll', phone: '9876543210' });
    await db.query(sql.unsafe`
      UPDATE vms SET state = 'running', source = 'launch', instance_id = 'i-0bench0poll0000001',
        public_ip = '203.0.113.10', password_encrypted = 'sealed', started_at = now(),
        usage_counted_at = now(), ready_at = now()
      WHERE id = ${vm.id}`);
    const token = randomToken();
    await insertSession(db, { userId: user.id, tokenHash: hashToken(token), userAgent: 'bench', ip: null });
    return { userId: user.id, email, token };
  } finally {
    await db.end();
  }
}
