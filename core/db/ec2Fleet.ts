import { z } from 'zod';
import { sql, type Db } from './pool.ts';

/**
 * What we learn about EC2 as a whole rather than about one of our machines: instances tagged as
 * ours that no row owns (orphans), and EC2's latest answer on capacity per instance type.
 */

export const Orphan = z.object({
  instance_id: z.string(),
  state: z.string(),
  tags: z.record(z.string(), z.string()),
  first_seen_at: z.date(),
  last_seen_at: z.date(),
  terminated_at: z.date().nullable(),
  cleared_at: z.date().nullable(),
});
export type Orphan = z.infer<typeof Orphan>;

const ORPHAN_COLUMNS = sql.fragment`instance_id, state, tags, first_seen_at, last_seen_at, terminated_at, cleared_at`;

/** Records a sighting; `isNew` when it was not a known (uncleared) orphan before. */
export async function sightOrphan(
  db: Db,
  instance: { instanceId: string; state: string; tags: Record<string, string> },
  now: Date,
): Promise<{ orphan: Orphan; isNew: boolean }> {
  const row = await db.one(sql.type(Orphan.extend({ inserted: z.boolean() }))`
    INSERT INTO ec2_orphans (instance_id, state, tags, first_seen_at, last_seen_at)
    VALUES (${instance.instanceId}, ${instance.state}, ${sql.jsonb(instance.tags)}, ${now.toISOString()},
            ${now.toISOString()})
    ON CONFLICT (instance_id) DO UPDATE SET
      state = EXCLUDED.state, tags = EXCLUDED.tags, last_seen_at = EXCLUDED.last_seen_at,
      -- Seen unowned again after it had been cleared: a new sighting, with a new grace period.
      first_seen_at = CASE WHEN ec2_orphans.cleared_at IS NOT NULL THEN EXCLUDED.first_seen_at
                           ELSE ec2_orphans.first_seen_at END,
      cleared_at = NULL
    RETURNING ${ORPHAN_COLUMNS}, (xmax = 0 OR first_seen_at = last_seen_at) AS inserted`);
  const { inserted, ...orphan } = row;
  return { orphan, isNew: inserted };
}

export async function markOrphanTerminated(db: Db, instanceId: string, now: Date): Promise<Orphan | null> {
  return db.maybeOne(sql.type(Orphan)`
    UPDATE ec2_orphans SET terminated_at = ${now.toISOString()}
    WHERE instance_id = ${instanceId} AND terminated_at IS NULL
    RETURNING ${ORPHAN_COLUMNS}`);
}

/** Instances that turned out to be owned after all (a row adopted them). */
export async function clearOrphans(db: Db, instanceIds: string[], now: Date): Promise<void> {
  if (instanceIds.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE ec2_orphans SET cleared_at = ${now.toISOString()}
    WHERE instance_id = ANY(${sql.array(instanceIds, 'text')}) AND cleared_at IS NULL AND terminated_at IS NULL`);
}

export async function listOrphans(db: Db, options: { all?: boolean } = {}): Promise<Orphan[]> {
  return [
    ...(await db.any(sql.type(Orphan)`
      SELECT ${ORPHAN_COLUMNS} FROM ec2_orphans
      WHERE ${options.all ? sql.fragment`TRUE` : sql.fragment`cleared_at IS NULL AND terminated_at IS NULL`}
      ORDER BY first_seen_at`)),
  ];
}

export const CapacitySignal = z.object({
  instance_type: z.string(),
  insufficient_at: z.date().nullable(),
  available_at: z.date().nullable(),
  message: z.string().nullable(),
});
export type CapacitySignal = z.infer<typeof CapacitySignal>;

/** EC2 refused a launch or start of this type for lack of machines. */
export async function recordCapacityShortage(
  db: Db,
  instanceType: string,
  message: string,
  now: Date,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO ec2_capacity (instance_type, insufficient_at, message)
    VALUES (${instanceType}, ${now.toISOString()}, ${message.slice(0, 500)})
    ON CONFLICT (instance_type) DO UPDATE SET insufficient_at = EXCLUDED.insufficient_at, message = EXCLUDED.message`);
}

/** EC2 launched or started a machine of this type. */
export async function recordCapacityAvailable(db: Db, instanceType: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO ec2_capacity (instance_type, available_at) VALUES (${instanceType}, ${now.toISOString()})
    ON CONFLICT (instance_type) DO UPDATE SET available_at = EXCLUDED.available_at`);
}

export async function findCapacitySignal(db: Db, instanceType: string): Promise<CapacitySignal | null> {
  return db.maybeOne(sql.type(CapacitySignal)`
    SELECT instance_type, insufficient_at, available_at, message FROM ec2_capacity
    WHERE instance_type = ${instanceType}`);
}
