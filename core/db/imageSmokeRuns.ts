import { z } from 'zod';
import type { MachineHealthReport } from '../domain/machineHealth.ts';
import type { SmokeOutcome } from '../domain/imageSmoke.ts';
import { sql, type Db } from './pool.ts';

/**
 * `npm run aws:smoke` runs (sql/0050_image_smoke_runs.sql): one machine launched from an image to
 * read its own signed health report. The run's id is the launch's ClientToken and its secrets' key.
 */

const ts = (at: Date) => at.toISOString();

export const ImageSmokeRun = z.object({
  id: z.uuid(),
  image_id: z.string(),
  plan_id: z.string(),
  instance_type: z.string(),
  instance_id: z.string().nullable(),
  public_ip: z.string().nullable(),
  started_at: z.date(),
  reported_at: z.date().nullable(),
  received_at: z.date().nullable(),
  report: z.unknown().nullable(),
  ended_at: z.date().nullable(),
  outcome: z.string().nullable(),
});
export type ImageSmokeRun = z.infer<typeof ImageSmokeRun>;

const COLUMNS = sql.fragment`id, image_id, plan_id, instance_type, instance_id, public_ip, started_at,
  reported_at, received_at, report, ended_at, outcome`;

export async function createSmokeRun(
  db: Db,
  run: { id: string; imageId: string; planId: string; instanceType: string; startedAt: Date },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO image_smoke_runs (id, image_id, plan_id, instance_type, started_at)
    VALUES (${run.id}, ${run.imageId}, ${run.planId}, ${run.instanceType}, ${ts(run.startedAt)})`);
}

export async function findSmokeRun(db: Db, id: string): Promise<ImageSmokeRun | null> {
  return db.maybeOne(sql.type(ImageSmokeRun)`SELECT ${COLUMNS} FROM image_smoke_runs WHERE id = ${id}`);
}

/** The instance the run launched, and (once it runs) the address its reports must come from. */
export async function recordSmokeInstance(
  db: Db,
  id: string,
  instance: { instanceId: string; publicIp: string | null },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE image_smoke_runs SET instance_id = ${instance.instanceId},
      public_ip = coalesce(${instance.publicIp}, public_ip)
    WHERE id = ${id} AND ended_at IS NULL`);
}

/**
 * Stores a report as the run's latest unless one signed at the same time or later is already
 * stored, or the run is over: a replay changes nothing. True when stored.
 */
export async function recordSmokeReport(
  db: Db,
  input: { runId: string; reportedAt: Date; receivedAt: Date; report: MachineHealthReport },
): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.uuid() }))`
    UPDATE image_smoke_runs SET reported_at = ${ts(input.reportedAt)}, received_at = ${ts(input.receivedAt)},
      report = ${sql.jsonb(input.report as never)}
    WHERE id = ${input.runId} AND ended_at IS NULL
      AND (reported_at IS NULL OR reported_at < ${ts(input.reportedAt)})
    RETURNING id`);
  return row !== null;
}

export async function endSmokeRun(db: Db, id: string, outcome: SmokeOutcome, at: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE image_smoke_runs SET ended_at = ${ts(at)}, outcome = ${outcome}
    WHERE id = ${id} AND ended_at IS NULL`);
}

/** Open runs among these ids (an instance's `legend:smoke` tag): their instances are the run's to end. */
export async function openSmokeRuns(db: Db, ids: string[]): Promise<Array<{ id: string; started_at: Date }>> {
  if (ids.length === 0) return [];
  return [
    ...(await db.any(sql.type(z.object({ id: z.uuid(), started_at: z.date() }))`
      SELECT id, started_at FROM image_smoke_runs
      WHERE ended_at IS NULL AND id = ANY(${sql.array(ids, 'uuid')})`)),
  ];
}
