import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createPool, type Interceptor, type QueryResult, type QueryResultRow } from 'slonik';
import { createDbPool, type DatabasePool } from '../../core/db/pool.ts';
import { expireDueSubscriptions, findSubscriptionsByIds } from '../../core/db/subscriptions.ts';
import {
  findNoticeKeys,
  listSubscriptionsDueExpiredNotice,
  listSubscriptionsDueReminder,
} from '../../core/db/vmNotices.ts';
import {
  accrueUsageMany,
  findVmsByIds,
  listVmsForSyncPage,
  listVmsOutOfPlan,
  listVmsPastGrace,
  markVmsSynced,
} from '../../core/db/vms.ts';
import { deleteSamplesBefore, listVmsRunningSince } from '../../core/db/usage.ts';
import { freshDatabase } from '../support/db.ts';

/**
 * The sweeps (plan-expiry, metrics-pull, vm-sync) run every minute over every customer: they
 * must find their few rows through indexes, not by reading whole tables. With 100,000 rows in
 * each big table, shaped like a service some years in (almost every plan lapsed, almost every
 * machine terminated, a few hundred live), Postgres must plan no sequential scan of them.
 *
 * The queries are the real ones: each sweep's core/db function runs against a pool whose
 * interceptor, instead of executing the statement, asks Postgres for its plan (EXPLAIN, so
 * nothing is changed) and answers with no rows.
 */

const ROWS = 100_000;
const BIG_TABLES = ['users', 'subscriptions', 'vms', 'vm_run_segments', 'vm_metric_samples', 'vm_notices'];

const url = await freshDatabase();
let admin: pg.Client;
let plans: DatabasePool;
let db: DatabasePool;
const captured: Array<{ sql: string; values: readonly unknown[] }> = [];

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await seed(admin);
  db = await createDbPool(url, { maximumPoolSize: 2 });
  const explainInstead: Interceptor = {
    name: 'explain-instead',
    beforeQueryExecution: async (_context, query) => {
      captured.push({ sql: query.sql, values: query.values });
      const empty: QueryResult<QueryResultRow> = {
        command: 'SELECT',
        fields: [],
        notices: [],
        rowCount: 0,
        rows: [],
        type: 'QueryResult',
      };
      return empty;
    },
  };
  plans = await createPool(url, { interceptors: [explainInstead], maximumPoolSize: 1 });
}, 120_000);

afterAll(async () => {
  await plans?.end();
  await db?.end();
  await admin?.end();
});

/** Every table a plan reads with a sequential scan, with the plan for the failure message. */
async function seqScans(
  run: (db: DatabasePool) => Promise<unknown>,
): Promise<{ tables: string[]; plan: string }> {
  captured.length = 0;
  await run(plans);
  expect(captured.length, 'the function sent no statement').toBeGreaterThan(0);
  const tables: string[] = [];
  const texts: string[] = [];
  for (const query of captured) {
    const result = await admin.query(`EXPLAIN (FORMAT JSON) ${query.sql}`, query.values as unknown[]);
    const plan = (result.rows[0] as { 'QUERY PLAN': unknown[] })['QUERY PLAN'];
    texts.push(JSON.stringify(plan));
    const walk = (node: Record<string, unknown>) => {
      if (node['Node Type'] === 'Seq Scan') tables.push(String(node['Relation Name']));
      for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
    };
    walk((plan[0] as { Plan: Record<string, unknown> }).Plan);
  }
  return { tables: tables.filter((t) => BIG_TABLES.includes(t)), plan: texts.join('\n') };
}

const now = new Date();
const ids = async (table: string, n: number) =>
  (await admin.query(`SELECT id FROM ${table} ORDER BY id LIMIT ${n}`)).rows.map((r: { id: string }) => r.id);

describe(`sweep queries over ${ROWS.toLocaleString('en')} rows use indexes`, () => {
  const cases: Array<[string, (db: DatabasePool) => Promise<unknown>]> = [
    // plan-expiry
    ['expireDueSubscriptions', (d) => expireDueSubscriptions(d, now)],
    ['listSubscriptionsDueReminder', (d) => listSubscriptionsDueReminder(d, now, 3)],
    ['listSubscriptionsDueExpiredNotice', (d) => listSubscriptionsDueExpiredNotice(d, now, 7)],
    ['listVmsOutOfPlan', (d) => listVmsOutOfPlan(d, now)],
    ['listVmsPastGrace', (d) => listVmsPastGrace(d, now, 7)],
    // metrics-pull
    ['listVmsRunningSince', (d) => listVmsRunningSince(d, new Date(now.getTime() - 10 * 60_000), 500)],
    ['deleteSamplesBefore', (d) => deleteSamplesBefore(d, new Date(now.getTime() - 8 * 86_400_000), 5000)],
    // vm-sync
    ['listVmsForSyncPage (first page)', (d) => listVmsForSyncPage(d, null, 1000)],
    [
      'listVmsForSyncPage (a later page)',
      (d) => listVmsForSyncPage(d, '00000000-0000-4000-a000-000000000190', 1000),
    ],
    [
      'accrueUsageMany',
      async (d) =>
        accrueUsageMany(
          d,
          (await ids('vms', 100)).map((vmId) => ({ vmId, capSeconds: 108_000 })),
          now,
        ),
    ],
    [
      'findNoticeKeys',
      async (d) =>
        findNoticeKeys(
          d,
          (await ids('subscriptions', 100)).map((id) => `hours-80:${id}`),
        ),
    ],
    ['findVmsByIds', async (d) => findVmsByIds(d, await ids('vms', 100))],
    ['findSubscriptionsByIds', async (d) => findSubscriptionsByIds(d, await ids('subscriptions', 100))],
    ['markVmsSynced', async (d) => markVmsSynced(d, await ids('vms', 100), now)],
  ];

  it.each(cases)('%s', async (_name, run) => {
    const { tables, plan } = await seqScans(run);
    expect(tables, plan).toEqual([]);
  });

  it('actually finds the seeded live rows (the data is shaped as described)', async () => {
    expect((await listVmsForSyncPage(db, null, 1000)).length).toBeGreaterThan(100);
    expect((await listVmsOutOfPlan(db, now)).length).toBeGreaterThan(0);
    expect(
      (await listVmsRunningSince(db, new Date(now.getTime() - 10 * 60_000), 1000)).length,
    ).toBeGreaterThan(0);
  });
});

/**
 * One user per row; each has one subscription and one machine. 1 in 200 plans is active (half
 * of those with a running machine, a few lapsed but not yet swept), the rest expired or
 * cancelled long ago with their machine terminated. Every machine ran once (a closed run
 * segment) and running ones have an open one; samples span the retention window (the pull
 * deletes older ones every run); each plan has a notice.
 */
async function seed(client: pg.Client): Promise<void> {
  await client.query('BEGIN');
  await client.query(`
    INSERT INTO users (id, email, name, created_at)
    SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'u' || i || '@example.com', 'User ' || i,
           now() - make_interval(days => 1000 - i % 1000)
    FROM generate_series(1, ${ROWS}) AS i`);
  await client.query(`
    INSERT INTO subscriptions (id, user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                               status, purchased_at, expires_at, cancelled_at)
    SELECT ('00000000-0000-4000-9000-' || lpad(to_hex(i), 12, '0'))::uuid,
           ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid,
           'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000,
           CASE WHEN i % 200 = 0 THEN 'active' WHEN i % 10 = 1 THEN 'cancelled' ELSE 'expired' END,
           p.purchased, p.purchased + interval '30 days',
           CASE WHEN i % 10 = 1 THEN p.purchased + interval '3 days' END
    FROM generate_series(1, ${ROWS}) AS i,
    LATERAL (SELECT CASE
      WHEN i % 1000 = 0 THEN now() - interval '31 days'          -- active but lapsed: the sweep's work
      WHEN i % 200 = 0 THEN now() - make_interval(days => i % 25) -- active
      ELSE now() - make_interval(days => 40 + i % 900)            -- long over
    END AS purchased) AS p`);
  await client.query(`
    INSERT INTO vms (id, user_id, subscription_id, plan_id, instance_type, storage_gb, state, source, instance_id,
                     public_ip, usage_counted_at, state_changed_at, synced_at, created_at)
    SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(i), 12, '0'))::uuid,
           ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid,
           ('00000000-0000-4000-9000-' || lpad(to_hex(i), 12, '0'))::uuid,
           'legend', 'g4dn.xlarge', 115, v.state, 'launch', 'i-' || lpad(to_hex(i), 17, '0'),
           CASE WHEN v.state = 'running' THEN '203.0.113.1' END,
           CASE WHEN v.state = 'running' THEN now() END,
           now() - make_interval(days => i % 900), now() - make_interval(mins => i % 60),
           now() - make_interval(days => 1000 - i % 1000)
    FROM generate_series(1, ${ROWS}) AS i,
    LATERAL (SELECT CASE WHEN i % 400 = 0 THEN 'running' WHEN i % 200 = 0 THEN 'stopped' ELSE 'terminated' END AS state) AS v`);
  await client.query(`
    INSERT INTO vm_run_segments (vm_id, subscription_id, started_at, ended_at)
    SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(i), 12, '0'))::uuid,
           ('00000000-0000-4000-9000-' || lpad(to_hex(i), 12, '0'))::uuid,
           now() - make_interval(days => i % 900, hours => 2), now() - make_interval(days => i % 900, hours => 1)
    FROM generate_series(1, ${ROWS}) AS i`);
  await client.query(`
    INSERT INTO vm_run_segments (vm_id, subscription_id, started_at)
    SELECT id, subscription_id, now() - interval '30 minutes' FROM vms WHERE state = 'running'`);
  await client.query(`
    INSERT INTO vm_metric_samples (vm_id, metric, at, value)
    SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(i), 12, '0'))::uuid, 'cpu',
           now() - make_interval(mins => i % (8 * 24 * 60 - 10)), 12.5
    FROM generate_series(1, ${ROWS}) AS i`);
  await client.query(`
    INSERT INTO vm_notices (key, kind, user_id, subscription_id)
    SELECT 'plan-expired:' || s.id, 'plan-expired', s.user_id, s.id FROM subscriptions s`);
  await client.query('COMMIT');
  await client.query('ANALYZE');
}
