import { z } from 'zod';
import {
  FORGERY_OUTCOMES,
  HEALTH_SILENCE_MINUTES,
  type HealthOutcome,
  type MachineHealthReport,
} from '../domain/machineHealth.ts';
import { launchTokenOf, SECRETS_OF_VM } from './machineSecrets.ts';
import { sql, type Db } from './pool.ts';

/**
 * Machines' own health reports (sql/0021_streaming.sql): the last accepted one per machine, the
 * refused ones, and what the worker learnt when it could not reach a machine's Sunshine.
 */

const ts = (at: Date) => at.toISOString();

const ReportingMachine = z.object({
  vm_id: z.uuid().nullable(),
  vm_state: z.string().nullable(),
  public_ip: z.string().nullable(),
  /** The machine's instance type: the GPU its reports should show. */
  instance_type: z.string().nullable(),
  /** An open `npm run aws:smoke` run holding the instance, and the address it reports from. */
  smoke_run_id: z.uuid().nullable(),
  smoke_ip: z.string().nullable(),
  health_secret_sealed: z.string(),
});
export type ReportingMachine = z.infer<typeof ReportingMachine>;

/**
 * The machine a report says it comes from, with the key its signature must be made with: a
 * customer's machine holding that instance, a warm-pool spare (no customer, no address yet), or
 * the machine of an open image smoke run. Null when no secrets were ever made for the instance.
 */
export async function findReportingMachine(db: Db, instanceId: string): Promise<ReportingMachine | null> {
  return db.maybeOne(sql.type(ReportingMachine)`
    SELECT v.id AS vm_id, v.state AS vm_state, v.public_ip, v.instance_type,
      s.id AS smoke_run_id, s.public_ip AS smoke_ip, ms.health_secret_sealed
    FROM (SELECT ${instanceId}::text AS instance_id) q
    LEFT JOIN vms v ON v.instance_id = q.instance_id
    LEFT JOIN image_smoke_runs s ON s.instance_id = q.instance_id AND s.ended_at IS NULL
    JOIN machine_secrets ms
      ON ms.launch_token = COALESCE(${launchTokenOf(sql.fragment`q.instance_id`, sql.fragment`v.id`)}, s.id)
    LIMIT 1`);
}

/**
 * Stores a report as the machine's latest unless one signed at the same time or later is
 * already stored: that makes a replay (or a report overtaken by a newer one) change nothing.
 * True when stored.
 */
export async function recordHealthReport(
  db: Db,
  input: {
    vmId: string;
    instanceId: string;
    reportedAt: Date;
    receivedAt: Date;
    report: MachineHealthReport;
    certSha256: string | null;
  },
): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ vm_id: z.uuid() }))`
    INSERT INTO machine_health AS h (vm_id, instance_id, reported_at, received_at, report, sunshine_cert_sha256)
    VALUES (${input.vmId}, ${input.instanceId}, ${ts(input.reportedAt)}, ${ts(input.receivedAt)},
            ${sql.jsonb(input.report as never)}, ${input.certSha256})
    ON CONFLICT (vm_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, reported_at = EXCLUDED.reported_at,
      received_at = EXCLUDED.received_at, report = EXCLUDED.report,
      sunshine_cert_sha256 = EXCLUDED.sunshine_cert_sha256
    WHERE h.reported_at < EXCLUDED.reported_at
    RETURNING h.vm_id`);
  return row !== null;
}

/** A proven report of this machine was refused for its clock running `seconds` ahead of ours. */
export async function recordClockAhead(
  db: Db,
  observation: { vmId: string; seconds: number; at: Date },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO machine_clocks (vm_id, ahead_seconds, observed_at)
    VALUES (${observation.vmId}, ${observation.seconds}, ${ts(observation.at)})
    ON CONFLICT (vm_id) DO UPDATE SET ahead_seconds = EXCLUDED.ahead_seconds, observed_at = EXCLUDED.observed_at`);
}

export async function recordHealthRefusal(
  db: Db,
  refusal: {
    outcome: Exclude<HealthOutcome, 'accepted'>;
    callerAddress: string;
    instanceId: string | null;
    vmId: string | null;
    at: Date;
  },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO machine_health_refusals (outcome, caller_address, instance_id, vm_id, at)
    VALUES (${refusal.outcome}, ${refusal.callerAddress}, ${refusal.instanceId}, ${refusal.vmId},
            ${ts(refusal.at)})`);
}

export const StreamHost = z.object({
  vm_id: z.uuid(),
  user_id: z.uuid(),
  state: z.string(),
  public_ip: z.string().nullable(),
  instance_id: z.string().nullable(),
  sunshine_username: z.string().nullable(),
  sunshine_password_sealed: z.string().nullable(),
  sunshine_cert_sha256: z.string().nullable(),
  sunshine_running: z.boolean().nullable(),
  reported: z.boolean(),
});
export type StreamHost = z.infer<typeof StreamHost>;

/**
 * A machine as pairing needs it: its state and address, its Sunshine credentials and the
 * certificate fingerprint its last report gave (what the worker pins).
 */
export async function findStreamHost(db: Db, vmId: string): Promise<StreamHost | null> {
  return db.maybeOne(sql.type(StreamHost)`
    SELECT v.id AS vm_id, v.user_id, v.state, v.public_ip, v.instance_id, ms.sunshine_username,
      ms.sunshine_password_sealed, h.sunshine_cert_sha256,
      (h.report -> 'sunshine' ->> 'running')::boolean AS sunshine_running, h.vm_id IS NOT NULL AS reported
    FROM vms v
    LEFT JOIN ${SECRETS_OF_VM}
    LEFT JOIN machine_health h ON h.vm_id = v.id AND h.instance_id = v.instance_id
    WHERE v.id = ${vmId}`);
}

/** The worker could not reach this machine's Sunshine: the card says so until a call succeeds. */
export async function markStreamHostUnreachable(
  db: Db,
  vmId: string,
  problem: string,
  at: Date,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE machine_health SET stream_host_unreachable_at = ${ts(at)}, stream_host_problem = ${problem}
    WHERE vm_id = ${vmId}`);
}

export async function clearStreamHostUnreachable(db: Db, vmId: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE machine_health SET stream_host_unreachable_at = NULL, stream_host_problem = NULL
    WHERE vm_id = ${vmId} AND stream_host_unreachable_at IS NOT NULL`);
}

const Silent = z.object({
  vm_id: z.uuid(),
  instance_id: z.string().nullable(),
  started_at: z.date(),
  last_report_at: z.date().nullable(),
});

/**
 * Running machines (able to report: they have secrets) that have not reported for
 * HEALTH_SILENCE_MINUTES since they started or since their last report: `healthSilent`
 * (core/domain/machineHealth.ts) in SQL.
 */
export async function listSilentMachines(
  db: Db,
  now: Date,
  limit = 500,
): Promise<Array<z.infer<typeof Silent>>> {
  const cutoff = new Date(now.getTime() - HEALTH_SILENCE_MINUTES * 60_000);
  return [
    ...(await db.any(sql.type(Silent)`
      SELECT v.id AS vm_id, v.instance_id, v.started_at, h.received_at AS last_report_at
      FROM vms v
      JOIN ${SECRETS_OF_VM}
      LEFT JOIN machine_health h ON h.vm_id = v.id
      WHERE v.state = 'running' AND v.started_at IS NOT NULL
        AND greatest(v.started_at, coalesce(h.received_at, '-infinity'::timestamptz)) <= ${ts(cutoff)}
      ORDER BY v.started_at
      LIMIT ${limit}`)),
  ];
}

const Suspect = z.object({
  caller_address: z.string(),
  vm_id: z.uuid().nullable(),
  refusals: z.number(),
  outcomes: z.array(z.string()),
});

/** Addresses (with the machine they named, if any) refused as forgery-like at least `threshold` times since `since`. */
export async function listForgerySuspects(
  db: Db,
  since: Date,
  threshold: number,
): Promise<Array<z.infer<typeof Suspect>>> {
  return [
    ...(await db.any(sql.type(Suspect)`
      SELECT caller_address, vm_id, count(*)::int AS refusals, array_agg(DISTINCT outcome) AS outcomes
      FROM machine_health_refusals
      WHERE at >= ${ts(since)} AND outcome = ANY(${sql.array([...FORGERY_OUTCOMES], 'text')})
      GROUP BY caller_address, vm_id
      HAVING count(*) >= ${threshold}
      ORDER BY count(*) DESC
      LIMIT 100`)),
  ];
}

/** Refusals older than `days` (bounded batch): kept a month for questions, then deleted. */
export async function purgeHealthRefusals(db: Db, before: Date): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    WITH doomed AS (SELECT id FROM machine_health_refusals WHERE at < ${ts(before)} LIMIT 5000),
         gone AS (DELETE FROM machine_health_refusals WHERE id IN (SELECT id FROM doomed) RETURNING 1)
    SELECT count(*)::int AS count FROM gone`);
}
