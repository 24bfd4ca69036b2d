import { z } from 'zod';
import { sql, type Db } from '../db/pool.ts';
import { ALERT_KINDS } from '../db/operatorAlerts.ts';
import { MACHINE_STATES as VM_STATES } from '../domain/machineStates.ts';
import { HEALTH_OUTCOMES } from '../domain/machineHealth.ts';
import { BOSS_SCHEMA, QUEUE_NAMES, deadLetterQueue } from '../queue.ts';
import { countLaunches, countPoolHolds, holdFacts, latestPoolHolds } from '../db/launches.ts';
import { listStepFailures } from '../db/stepFailures.ts';
import { poolHoldStatus } from '../domain/launchBudget.ts';
import { backedOff, backoffCauseOf } from '../domain/stepBackoff.ts';

/**
 * Fleet-wide figures for /metrics, read from Postgres (read-only). The web process serves
 * them; any one web instance answers for the whole fleet, so they come from rows and the
 * job table rather than from counters in one process.
 */

/** Bucket bounds (seconds) of paid → ready: a warm start is about a minute, a cold launch about five. */
export const PROVISION_BUCKETS = [30, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1800, 3600];

/** The job states a queue's backlog is made of (completed jobs are history, not load). */
export const QUEUE_JOB_STATES = ['created', 'retry', 'active', 'failed'] as const;

export type ProvisionHistogram = { buckets: number[]; sum: number; count: number };

export type FleetSnapshot = {
  queueJobs: Array<{ queue: string; state: string; count: number }>;
  deadLetters: Array<{ queue: string; count: number }>;
  /** Keyed by `warm` (taken from the pool) and `cold` (a launch). */
  provision: Record<'warm' | 'cold', ProvisionHistogram>;
  payments: Array<{ outcome: string; count: number }>;
  machines: Array<{ state: string; count: number }>;
  alertsOpen: Array<{ kind: string; count: number }>;
  /** Machines' health reports refused in the last hour, by why (forged, wrong address, replayed…). */
  healthRefusals: Array<{ outcome: string; count: number }>;
  /** EC2 launches by kind (pool, machine), plan, outcome (launched, failed, refused) and cause. */
  launches: Array<{ kind: string; plan: string; outcome: string; cause: string; count: number }>;
  /** Plans whose warm pool is held now, by cause; and every hold begun so far. */
  poolHolds: Array<{ plan: string; cause: string; held: number; total: number }>;
  /** Steps waiting out a backoff now, by EC2 action and cause (throttled, capacity, permission…). */
  backedOffSteps: Array<{ action: string; cause: string; count: number }>;
};

const Count = z.object({ key: z.string(), sub: z.string().nullable(), count: z.number() });

/** What the cause label of a launch says: fine, the error's class, or what refused it. */
function launchCause(outcome: string, code: string | null): string {
  if (outcome === 'launched') return 'ok';
  if (code === 'PoolHold') return 'hold';
  return backoffCauseOf(code ?? 'Error');
}

async function readCloudFaults(
  db: Db,
  now: Date,
): Promise<Pick<FleetSnapshot, 'launches' | 'poolHolds' | 'backedOffSteps'>> {
  const [launchRows, holdTotals, latest, failures] = await Promise.all([
    countLaunches(db),
    countPoolHolds(db),
    latestPoolHolds(db),
    listStepFailures(db),
  ]);
  const launches = new Map<string, FleetSnapshot['launches'][number]>();
  for (const row of launchRows) {
    const cause = launchCause(row.outcome, row.error_code);
    const key = `${row.kind}|${row.plan_id}|${row.outcome}|${cause}`;
    const entry = launches.get(key) ?? {
      kind: row.kind,
      plan: row.plan_id,
      outcome: row.outcome,
      cause,
      count: 0,
    };
    entry.count += row.count;
    launches.set(key, entry);
  }
  const holds = new Map<string, FleetSnapshot['poolHolds'][number]>();
  for (const row of holdTotals)
    holds.set(`${row.plan_id}|${row.cause}`, {
      plan: row.plan_id,
      cause: row.cause,
      held: 0,
      total: row.count,
    });
  for (const [plan, row] of latest) {
    const status = poolHoldStatus(holdFacts(row), row.ready_since, now);
    const entry = holds.get(`${plan}|${row.cause}`);
    if (entry && status.kind === 'held') entry.held = 1;
  }
  const steps = new Map<string, FleetSnapshot['backedOffSteps'][number]>();
  for (const row of failures) {
    if (!backedOff({ nextAt: row.next_at }, now)) continue;
    const cause = backoffCauseOf(row.code);
    const key = `${row.action}|${cause}`;
    const entry = steps.get(key) ?? { action: row.action, cause, count: 0 };
    entry.count += 1;
    steps.set(key, entry);
  }
  return {
    launches: [...launches.values()],
    poolHolds: [...holds.values()],
    backedOffSteps: [...steps.values()],
  };
}

export async function readFleetSnapshot(db: Db, now: Date = new Date()): Promise<FleetSnapshot> {
  const jobTable = sql.identifier([BOSS_SCHEMA, 'job']);
  const dlqNames = QUEUE_NAMES.map(deadLetterQueue);
  const [jobs, dead, provision, payments, machines, alerts, refusals, cloudFaults] = await Promise.all([
    db.any(sql.type(Count)`
      SELECT name AS key, state::text AS sub, count(*)::int AS count FROM ${jobTable}
      WHERE name = ANY(${sql.array(QUEUE_NAMES, 'text')})
        AND state::text = ANY(${sql.array([...QUEUE_JOB_STATES], 'text')})
      GROUP BY name, state`),
    db.any(sql.type(Count)`
      SELECT name AS key, NULL AS sub, count(*)::int AS count FROM ${jobTable}
      WHERE name = ANY(${sql.array(dlqNames, 'text')}) AND state IN ('created', 'retry')
      GROUP BY name`),
    readProvisionHistogram(db),
    // Pending payments are those PayU has not settled yet; a paid one that could not activate
    // anything (payments.problem) is counted apart so it stands out.
    db.any(sql.type(Count)`
      SELECT CASE WHEN status = 'success' AND problem IS NOT NULL THEN 'paid-not-activated'
                  WHEN status = 'initiated' THEN 'pending' ELSE status END AS key,
             NULL AS sub, count(*)::int AS count
      FROM payments GROUP BY 1`),
    db.any(sql.type(Count)`SELECT state AS key, NULL AS sub, count(*)::int AS count FROM vms GROUP BY state`),
    db.any(sql.type(Count)`
      SELECT kind AS key, NULL AS sub, count(*)::int AS count FROM operator_alerts
      WHERE resolved_at IS NULL GROUP BY kind`),
    db.any(sql.type(Count)`
      SELECT outcome AS key, NULL AS sub, count(*)::int AS count FROM machine_health_refusals
      WHERE at > now() - interval '1 hour' GROUP BY outcome`),
    readCloudFaults(db, now),
  ]);
  const countOf = (rows: readonly z.infer<typeof Count>[], key: string, sub: string | null = null) =>
    rows.find((r) => r.key === key && r.sub === sub)?.count ?? 0;
  return {
    // Every declared queue and state appears, zero included, so a dashboard's series never vanish.
    queueJobs: QUEUE_NAMES.flatMap((queue) =>
      QUEUE_JOB_STATES.map((state) => ({ queue, state, count: countOf(jobs, queue, state) })),
    ),
    deadLetters: QUEUE_NAMES.map((queue) => ({ queue, count: countOf(dead, deadLetterQueue(queue)) })),
    provision,
    payments: ['success', 'failure', 'pending', 'paid-not-activated'].map((outcome) => ({
      outcome,
      count: countOf(payments, outcome),
    })),
    machines: VM_STATES.map((state) => ({ state, count: countOf(machines, state) })),
    alertsOpen: [...new Set<string>([...ALERT_KINDS, ...alerts.map((a) => a.key)])].map((kind) => ({
      kind,
      count: countOf(alerts, kind),
    })),
    healthRefusals: HEALTH_OUTCOMES.filter((o) => o !== 'accepted').map((outcome) => ({
      outcome,
      count: countOf(refusals, outcome),
    })),
    ...cloudFaults,
  };
}

const ProvisionRow = z.object({
  source: z.enum(['warm', 'cold']),
  buckets: z.array(z.number()),
  sum: z.number(),
  count: z.number(),
});

/**
 * Paid → ready of every machine that became ready: from its row's request to its first
 * `ready_at`, labelled by how the instance was obtained (pool = warm, launch = cold).
 * Cumulative bucket counts are computed in SQL, so a scrape costs one aggregate.
 */
async function readProvisionHistogram(db: Db): Promise<FleetSnapshot['provision']> {
  const rows = await db.any(sql.type(ProvisionRow)`
    WITH d AS (
      SELECT CASE WHEN source = 'pool' THEN 'warm' ELSE 'cold' END AS source,
             extract(epoch FROM ready_at - requested_at)::float8 AS seconds
      FROM vms WHERE ready_at IS NOT NULL AND source IS NOT NULL
    ), per_bucket AS (
      SELECT d.source, b.le, count(*) FILTER (WHERE d.seconds <= b.le)::int AS c
      FROM d CROSS JOIN unnest(${sql.array(PROVISION_BUCKETS, 'float8')}) AS b (le)
      GROUP BY d.source, b.le
    )
    SELECT t.source,
           (SELECT array_agg(p.c ORDER BY p.le) FROM per_bucket p WHERE p.source = t.source) AS buckets,
           t.sum, t.count
    FROM (SELECT source, sum(seconds)::float8 AS sum, count(*)::int AS count FROM d GROUP BY source) t`);
  const empty = (): ProvisionHistogram => ({ buckets: PROVISION_BUCKETS.map(() => 0), sum: 0, count: 0 });
  const result = { warm: empty(), cold: empty() };
  for (const row of rows) result[row.source] = { buckets: row.buckets, sum: row.sum, count: row.count };
  return result;
}
