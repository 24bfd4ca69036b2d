import { z } from 'zod';
import { POOL_HOLD_CAUSES, type PoolHoldCause, type PoolHoldFacts } from '../domain/launchBudget.ts';
import { sql, type Db } from './pool.ts';

/**
 * The launch ledger (every RunInstances, and every launch a budget or a hold refused; pruned by
 * housekeeping, sql/0088_launch_totals.sql) and the warm pool's holds
 * (sql/0060_launch_budgets.sql). The rules that read them are core/domain/launchBudget.ts.
 */

const ts = (at: Date) => at.toISOString();

export type LaunchRecord = {
  kind: 'pool' | 'machine';
  planId: string;
  subscriptionId?: string | null;
  vmId?: string | null;
  poolInstanceId?: string | null;
  outcome: 'launched' | 'failed' | 'refused';
  instanceId?: string | null;
  errorCode?: string | null;
  at: Date;
};

export async function recordLaunchAttempt(db: Db, launch: LaunchRecord): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO ec2_launches (kind, plan_id, subscription_id, vm_id, pool_instance_id, outcome, instance_id,
      error_code, at)
    VALUES (${launch.kind}, ${launch.planId}, ${launch.subscriptionId ?? null}, ${launch.vmId ?? null},
      ${launch.poolInstanceId ?? null}, ${launch.outcome}, ${launch.instanceId ?? null},
      ${launch.errorCode ?? null}, ${ts(launch.at)})`);
}

/** When each instance of a plan's pool was launched since `since` (the budget's window). */
export async function poolLaunchTimes(db: Db, planId: string, since: Date): Promise<Date[]> {
  return [
    ...(await db.anyFirst(sql.type(z.object({ at: z.date() }))`
      SELECT at FROM ec2_launches
      WHERE kind = 'pool' AND plan_id = ${planId} AND outcome = 'launched' AND at > ${ts(since)}
      ORDER BY at`)),
  ];
}

/** When each instance for a customer's plan (any of its machines) was launched since `since`. */
export async function planLaunchTimes(db: Db, subscriptionId: string, since: Date): Promise<Date[]> {
  return [
    ...(await db.anyFirst(sql.type(z.object({ at: z.date() }))`
      SELECT at FROM ec2_launches
      WHERE kind = 'machine' AND subscription_id = ${subscriptionId} AND outcome = 'launched'
        AND at > ${ts(since)}
      ORDER BY at`)),
  ];
}

/**
 * Deletes up to `limit` ledger rows from before `before`, adding each to ec2_launch_totals in the
 * same statement, so /metrics' launch counter neither drops nor counts a row twice (a row a
 * concurrent run deleted first is not returned here). Returns how many went.
 */
export async function pruneLaunches(db: Db, before: Date, limit: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    WITH doomed AS (
      SELECT id FROM ec2_launches WHERE at < ${ts(before)} ORDER BY at LIMIT ${limit}
    ), gone AS (
      DELETE FROM ec2_launches l USING doomed d WHERE l.id = d.id
      RETURNING l.kind, l.plan_id, l.outcome, l.error_code
    ), folded AS (
      INSERT INTO ec2_launch_totals AS t (kind, plan_id, outcome, error_code, count)
      SELECT kind, plan_id, outcome, error_code, count(*) FROM gone
      GROUP BY kind, plan_id, outcome, error_code
      ON CONFLICT (kind, plan_id, outcome, error_code) DO UPDATE SET count = t.count + excluded.count
    )
    SELECT count(*)::int AS count FROM gone`);
}

const HoldRow = z.object({
  id: z.uuid(),
  plan_id: z.string(),
  cause: z.enum(POOL_HOLD_CAUSES),
  detail: z.string(),
  level: z.number().int(),
  begun_at: z.date(),
  until: z.date(),
  pool_instance_id: z.uuid().nullable(),
  alert_id: z.uuid().nullable(),
  acknowledged_at: z.date().nullable(),
  ready_since: z.boolean(),
});
export type PoolHoldRow = z.infer<typeof HoldRow>;

/**
 * The latest hold of each plan (or of one), with its alert's acknowledgement and whether a spare
 * of the plan became ready after it began: everything `poolHoldStatus` reads.
 */
export async function latestPoolHolds(db: Db, planId?: string): Promise<Map<string, PoolHoldRow>> {
  const rows = await db.any(sql.type(HoldRow)`
    SELECT DISTINCT ON (h.plan_id) h.id, h.plan_id, h.cause, h.detail, h.level, h.begun_at, h.until,
      h.pool_instance_id, h.alert_id, a.acknowledged_at,
      EXISTS (SELECT 1 FROM pool_instances p
              WHERE p.plan_id = h.plan_id AND p.ready_at > h.begun_at) AS ready_since
    FROM pool_holds h
    LEFT JOIN operator_alerts a ON a.id = h.alert_id
    ${planId === undefined ? sql.fragment`` : sql.fragment`WHERE h.plan_id = ${planId}`}
    ORDER BY h.plan_id, h.begun_at DESC, h.id`);
  return new Map(rows.map((row) => [row.plan_id, row]));
}

export function holdFacts(row: PoolHoldRow): PoolHoldFacts {
  return {
    cause: row.cause,
    begunAt: row.begun_at,
    until: row.until,
    level: row.level,
    acknowledgedAt: row.acknowledged_at,
  };
}

/** A new hold, once per failed spare or reporting machine (a second sighting adds nothing). */
export async function insertPoolHold(
  db: Db,
  hold: {
    planId: string;
    cause: PoolHoldCause;
    detail: string;
    level: number;
    begunAt: Date;
    until: Date;
    poolInstanceId: string | null;
    vmId?: string | null;
  },
): Promise<{ id: string } | null> {
  return db.maybeOne(sql.type(z.object({ id: z.uuid() }))`
    INSERT INTO pool_holds (plan_id, cause, detail, level, begun_at, until, pool_instance_id, vm_id)
    VALUES (${hold.planId}, ${hold.cause}, ${hold.detail.slice(0, 1000)}, ${hold.level}, ${ts(hold.begunAt)},
            ${ts(hold.until)}, ${hold.poolInstanceId}, ${hold.vmId ?? null})
    ON CONFLICT DO NOTHING
    RETURNING id`);
}

export async function setPoolHoldAlert(db: Db, holdId: string, alertId: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE pool_holds SET alert_id = ${alertId} WHERE id = ${holdId}`);
}

/** Spares of a plan launched and not yet through their first boot: a pool on probation tries one at a time. */
export async function countPoolInFlight(db: Db, planId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM pool_instances
    WHERE plan_id = ${planId} AND state = 'launching' AND launch_attempts > 0`);
}

/**
 * For /metrics: launches (made, failed, refused) per kind, plan and error code, since the start:
 * the ledger's rows and the totals of those pruned from it, read in one statement so a prune
 * running meanwhile is seen wholly or not at all.
 */
export async function countLaunches(
  db: Db,
): Promise<
  Array<{ kind: string; plan_id: string; outcome: string; error_code: string | null; count: number }>
> {
  return [
    ...(await db.any(sql.type(
      z.object({
        kind: z.string(),
        plan_id: z.string(),
        outcome: z.string(),
        error_code: z.string().nullable(),
        count: z.number(),
      }),
    )`
      SELECT kind, plan_id, outcome, error_code, sum(count)::int AS count FROM (
        SELECT kind, plan_id, outcome, error_code, count(*) AS count FROM ec2_launches
        GROUP BY kind, plan_id, outcome, error_code
        UNION ALL
        SELECT kind, plan_id, outcome, error_code, count FROM ec2_launch_totals
      ) AS launches
      GROUP BY kind, plan_id, outcome, error_code`)),
  ];
}

/** For /metrics: holds ever begun, per plan and cause. */
export async function countPoolHolds(
  db: Db,
): Promise<Array<{ plan_id: string; cause: string; count: number }>> {
  return [
    ...(await db.any(sql.type(z.object({ plan_id: z.string(), cause: z.string(), count: z.number() }))`
      SELECT plan_id, cause, count(*)::int AS count FROM pool_holds GROUP BY plan_id, cause`)),
  ];
}
