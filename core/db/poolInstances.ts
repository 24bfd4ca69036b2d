import { z } from 'zod';
import { POOL_STATES } from '../domain/poolInstance.ts';
import { SPARE_CLAIM_ORDER } from '../domain/pool.ts';
import { sql, type Db } from './pool.ts';

/**
 * The warm pool: instances launched ahead of demand, first boot done and password captured,
 * then stopped (`launching → stopping → ready → claimed`, or `failed`) — or, for hot spares,
 * kept running (`launching → ready`, running). A row's id is the
 * ClientToken of its launch, so replenishing twice never launches twice for one row.
 */

export const PoolInstance = z.object({
  id: z.uuid(),
  plan_id: z.string(),
  instance_type: z.string(),
  storage_gb: z.number().int(),
  image_id: z.string(),
  state: z.enum(POOL_STATES),
  instance_id: z.string().nullable(),
  subnet_id: z.string().nullable(),
  availability_zone: z.string().nullable(),
  password_encrypted: z.string().nullable(),
  launch_attempts: z.number().int(),
  problem: z.string().nullable(),
  vm_id: z.uuid().nullable(),
  hot: z.boolean(),
  created_at: z.date(),
  launched_at: z.date().nullable(),
  first_boot_at: z.date().nullable(),
  ready_at: z.date().nullable(),
  claimed_at: z.date().nullable(),
  failed_at: z.date().nullable(),
  synced_at: z.date().nullable(),
  updated_at: z.date(),
});
export type PoolInstance = z.infer<typeof PoolInstance>;

const COLUMNS = sql.fragment`id, plan_id, instance_type, storage_gb, image_id, state, instance_id, subnet_id,
  availability_zone, password_encrypted, launch_attempts, problem, vm_id, hot, created_at, launched_at,
  first_boot_at, ready_at, claimed_at, failed_at, synced_at, updated_at`;

const ts = (at: Date) => at.toISOString();

export type PoolSpec = { planId: string; instanceType: string; storageGb: number; imageId: string };

/** Serialises replenishing one plan's pool until the transaction ends (no double top-up). */
export async function lockPoolPlan(db: Db, planId: string): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`pool:${planId}`}, 0))`);
}

/** Instances that are, or will soon be, available to claim: the stopped kind or the hot kind. */
export async function countPoolFilling(db: Db, planId: string, hot: boolean): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM pool_instances
    WHERE plan_id = ${planId} AND hot = ${hot} AND state IN ('launching', 'stopping', 'ready')`);
}

/** Spares of an instance type that exist (launching, ready…): they count against its capacity. */
export async function countPoolLive(db: Db, instanceType: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM pool_instances
    WHERE instance_type = ${instanceType} AND state IN ('launching', 'stopping', 'ready')`);
}

/** Spares of a plan claimed since `since`: the recent demand hot spares are sized by. */
export async function countPoolClaimsSince(db: Db, planId: string, since: Date): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM pool_instances
    WHERE plan_id = ${planId} AND claimed_at >= ${ts(since)}`);
}

export async function countPoolReady(db: Db, planId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM pool_instances WHERE plan_id = ${planId} AND state = 'ready'`);
}

export async function insertPoolInstances(
  db: Db,
  spec: PoolSpec,
  count: number,
  hot = false,
): Promise<PoolInstance[]> {
  if (count <= 0) return [];
  return [
    ...(await db.any(sql.type(PoolInstance)`
      INSERT INTO pool_instances (plan_id, instance_type, storage_gb, image_id, hot)
      SELECT ${spec.planId}, ${spec.instanceType}, ${spec.storageGb}, ${spec.imageId}, ${hot}
      FROM generate_series(1, ${count})
      RETURNING ${COLUMNS}`)),
  ];
}

/** Rows whose launch has not been answered yet (new, or a crash between the call and the record). */
export async function listPoolAwaitingLaunch(db: Db, limit = 50): Promise<PoolInstance[]> {
  return [
    ...(await db.any(sql.type(PoolInstance)`
      SELECT ${COLUMNS} FROM pool_instances
      WHERE state = 'launching' AND instance_id IS NULL
      ORDER BY created_at LIMIT ${limit}`)),
  ];
}

export async function beginPoolLaunch(db: Db, id: string, subnetId: string): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`
    UPDATE pool_instances SET launch_attempts = launch_attempts + 1, subnet_id = ${subnetId}, updated_at = now()
    WHERE id = ${id} AND state = 'launching' AND instance_id IS NULL
    RETURNING ${COLUMNS}`);
}

export async function recordPoolLaunch(
  db: Db,
  id: string,
  instance: { instanceId: string; subnetId: string | null; availabilityZone: string | null },
  now: Date,
): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`
    UPDATE pool_instances SET instance_id = ${instance.instanceId},
      subnet_id = coalesce(${instance.subnetId}, subnet_id),
      availability_zone = coalesce(${instance.availabilityZone}, availability_zone),
      launched_at = coalesce(launched_at, ${ts(now)}), problem = NULL, updated_at = now()
    WHERE id = ${id} AND state = 'launching' AND (instance_id IS NULL OR instance_id = ${instance.instanceId})
    RETURNING ${COLUMNS}`);
}

export async function setPoolProblem(db: Db, id: string, problem: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE pool_instances SET problem = ${problem}, updated_at = now() WHERE id = ${id}`,
  );
}

/** Pool rows the sync looks after, least recently synced first. */
export async function listPoolForSync(db: Db, limit: number): Promise<PoolInstance[]> {
  return [
    ...(await db.any(sql.type(PoolInstance)`
      SELECT ${COLUMNS} FROM pool_instances
      WHERE state IN ('launching', 'stopping', 'ready')
      ORDER BY synced_at NULLS FIRST, id LIMIT ${limit}`)),
  ];
}

export async function markPoolSynced(db: Db, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE pool_instances SET synced_at = ${ts(now)} WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

/**
 * First boot is done: the password is kept (encrypted) and the instance is to be stopped — or,
 * a hot spare, it is ready as it is, running.
 */
export async function markPoolFirstBoot(
  db: Db,
  id: string,
  passwordEncrypted: string,
  now: Date,
): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`
    UPDATE pool_instances SET state = CASE WHEN hot THEN 'ready' ELSE 'stopping' END,
      password_encrypted = ${passwordEncrypted}, first_boot_at = ${ts(now)},
      ready_at = CASE WHEN hot THEN ${ts(now)}::timestamptz ELSE ready_at END, updated_at = now()
    WHERE id = ${id} AND state = 'launching' AND instance_id IS NOT NULL
    RETURNING ${COLUMNS}`);
}

export async function markPoolReady(db: Db, id: string, now: Date): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`
    UPDATE pool_instances SET state = 'ready', ready_at = ${ts(now)}, updated_at = now()
    WHERE id = ${id} AND state = 'stopping'
    RETURNING ${COLUMNS}`);
}

export async function markPoolFailed(
  db: Db,
  id: string,
  problem: string,
  now: Date,
): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`
    UPDATE pool_instances SET state = 'failed', problem = ${problem}, failed_at = ${ts(now)}, updated_at = now()
    WHERE id = ${id} AND state IN ('launching', 'stopping', 'ready')
    RETURNING ${COLUMNS}`);
}

/** The columns `SPARE_CLAIM_ORDER` names: the claim's ORDER BY is that rule, not a copy of it. */
const CLAIM_ORDER_COLUMNS = { hot: 'hot', readyAt: 'ready_at', id: 'id' } as const;
const CLAIM_ORDER = sql.join(
  SPARE_CLAIM_ORDER.map(({ by, descending }) =>
    descending
      ? sql.fragment`${sql.identifier([CLAIM_ORDER_COLUMNS[by]])} DESC`
      : sql.fragment`${sql.identifier([CLAIM_ORDER_COLUMNS[by]])}`,
  ),
  sql.fragment`, `,
);

/**
 * Takes a ready instance that fits the machine (plan, type and disk) for a VM, in the order of
 * `SPARE_CLAIM_ORDER` (core/domain/pool.ts: a hot one first, then the oldest; `chooseSpare` is
 * the same rule over rows in memory, proven equal by tests/integration/pool-claim-order.test.ts).
 * SKIP LOCKED: two purchases at once take two different instances, neither waits for the other.
 */
export async function claimPoolInstance(
  db: Db,
  machine: { planId: string; instanceType: string; storageGb: number },
  vmId: string,
  now: Date,
): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`
    UPDATE pool_instances SET state = 'claimed', vm_id = ${vmId}, claimed_at = ${ts(now)}, updated_at = now()
    WHERE id = (
      SELECT id FROM pool_instances
      WHERE state = 'ready' AND plan_id = ${machine.planId} AND instance_type = ${machine.instanceType}
        AND storage_gb = ${machine.storageGb}
      ORDER BY ${CLAIM_ORDER}
      LIMIT 1
      FOR UPDATE SKIP LOCKED)
    RETURNING ${COLUMNS}`);
}

export async function findPoolInstancesByIds(db: Db, ids: string[]): Promise<PoolInstance[]> {
  if (ids.length === 0) return [];
  return [
    ...(await db.any(sql.type(PoolInstance)`
      SELECT ${COLUMNS} FROM pool_instances WHERE id = ANY(${sql.array(ids, 'uuid')})`)),
  ];
}

export async function findPoolInstance(db: Db, id: string): Promise<PoolInstance | null> {
  return db.maybeOne(sql.type(PoolInstance)`SELECT ${COLUMNS} FROM pool_instances WHERE id = ${id}`);
}
