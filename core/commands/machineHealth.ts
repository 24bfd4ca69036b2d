import {
  listForgerySuspects,
  listSilentMachines,
  purgeHealthRefusals,
  recordHealthReport,
} from '../db/machineHealth.ts';
import { listOpenAlertKeys, raiseAlert, resolveAlertsByKeys } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import {
  alertingProblems,
  HEALTH_PROBLEM_WORDS,
  operatorProblemMessage,
  HEALTH_PROBLEMS,
  HEALTH_SILENCE_MINUTES,
  normaliseFingerprint,
  type HealthProblem,
  type MachineHealthReport,
  FORGERY_ALERT_THRESHOLD,
} from '../domain/machineHealth.ts';
import { DAY_MS, HOUR_MS } from '../domain/time.ts';
import type { Logger } from '../observability/log.ts';

/**
 * What an authenticated health report changes: it becomes the machine's latest (unless it is a
 * replay), and the operator alerts follow it — one open alert per machine and fault while the
 * fault lasts, resolved by the first report without it; a report also ends a silence.
 */

export const unhealthyAlertKey = (problem: HealthProblem, vmId: string) =>
  `machine-unhealthy:${problem}:${vmId}`;
export const silentAlertKey = (vmId: string) => `machine-silent:${vmId}`;

/** Stores an authenticated report; false when it was a replay (or overtaken by a newer one). */
export async function applyHealthReport(
  db: Db,
  input: {
    vmId: string;
    instanceId: string;
    /** The machine's instance type: the GPU it should report. Null when unknown. */
    instanceType: string | null;
    report: MachineHealthReport;
    reportedAt: Date;
    receivedAt: Date;
  },
): Promise<boolean> {
  const { instanceType, ...row } = input;
  const stored = await recordHealthReport(db, {
    ...row,
    certSha256: input.report.sunshine.certSha256
      ? normaliseFingerprint(input.report.sunshine.certSha256)
      : null,
  });
  if (!stored) return false;
  const faults = alertingProblems(input.report, instanceType);
  for (const problem of faults) {
    await raiseAlert(db, {
      kind: 'machine-unhealthy',
      dedupeKey: unhealthyAlertKey(problem, input.vmId),
      message: `Machine ${input.instanceId}: ${operatorProblemMessage(problem, input.report, instanceType)}`,
      vmId: input.vmId,
      instanceId: input.instanceId,
      details:
        problem === 'gpu-mismatch'
          ? { problem, reportedGpu: input.report.gpu.name, instanceType }
          : { problem },
    });
  }
  // Faults this report no longer shows are over; so is any silence. The worker's own finding
  // (Sunshine unreachable from it) is resolved by the worker when it reaches it again.
  const over = HEALTH_PROBLEMS.filter(
    (p) => HEALTH_PROBLEM_WORDS[p].alert && p !== 'stream-host-unreachable' && !faults.includes(p),
  );
  await resolveAlertsByKeys(db, [
    ...over.map((p) => unhealthyAlertKey(p, input.vmId)),
    silentAlertKey(input.vmId),
  ]);
  return true;
}

/** The alert for a running machine that has gone quiet. */
export async function raiseSilentAlert(
  db: Db,
  machine: { vmId: string; instanceId: string | null; lastReportAt: Date | null; startedAt: Date },
): Promise<void> {
  await raiseAlert(db, {
    kind: 'machine-silent',
    dedupeKey: silentAlertKey(machine.vmId),
    message: `Machine ${machine.instanceId ?? machine.vmId} is running but has sent no health report for ${HEALTH_SILENCE_MINUTES} minutes (${
      machine.lastReportAt
        ? `last at ${machine.lastReportAt.toISOString()}`
        : `none since it started at ${machine.startedAt.toISOString()}`
    }): its reporter task, its network or Windows itself may be stuck.`,
    vmId: machine.vmId,
    instanceId: machine.instanceId,
  });
}

/** Refused reports are kept this long for questions ("was someone posing as my machine?"). */
const REFUSALS_KEPT_DAYS = 30;

/**
 * The `machine-health` sweep: what machines' own reports cannot say themselves.
 *
 * - A running machine silent for 15 minutes (none since it started, or since its last report)
 *   raises `machine-silent`; the alert is resolved once it reports again or stops running.
 * - An address (or a machine) refused five times in an hour for reports that did not prove
 *   themselves (bad signature, wrong address, replays…) raises `health-forged`.
 * - Refusals older than a month are deleted, a bounded batch per run.
 */
export async function sweepMachineHealth(
  deps: { db: Db; log: Logger },
  now: Date = new Date(),
): Promise<{ silent: number; recovered: number; suspects: number; purged: number }> {
  const { db, log } = deps;
  const silent = await listSilentMachines(db, now);
  for (const machine of silent) {
    await raiseSilentAlert(db, {
      vmId: machine.vm_id,
      instanceId: machine.instance_id,
      lastReportAt: machine.last_report_at,
      startedAt: machine.started_at,
    });
  }
  const stillSilent = new Set(silent.map((m) => silentAlertKey(m.vm_id)));
  const recoveredKeys = (await listOpenAlertKeys(db, 'machine-silent')).filter(
    (key) => !stillSilent.has(key),
  );
  const recovered = await resolveAlertsByKeys(db, recoveredKeys);

  const suspects = await listForgerySuspects(db, new Date(now.getTime() - HOUR_MS), FORGERY_ALERT_THRESHOLD);
  for (const suspect of suspects) {
    await raiseAlert(db, {
      kind: 'health-forged',
      dedupeKey: `health-forged:${suspect.caller_address}:${suspect.vm_id ?? 'none'}`,
      message: `${suspect.refusals} health reports refused in the last hour from ${suspect.caller_address}${
        suspect.vm_id ? ` naming machine ${suspect.vm_id}` : ''
      } (${suspect.outcomes.join(', ')}): someone other than the machine is posting reports, or its reporter has a wrong secret or clock.`,
      vmId: suspect.vm_id,
      details: {
        callerAddress: suspect.caller_address,
        refusals: suspect.refusals,
        outcomes: suspect.outcomes,
      },
    });
  }
  const purged = await purgeHealthRefusals(db, new Date(now.getTime() - REFUSALS_KEPT_DAYS * DAY_MS));
  if (silent.length > 0 || suspects.length > 0 || recovered > 0)
    log.info(
      { silent: silent.length, recovered, suspects: suspects.length, purged },
      'machine-health: swept',
    );
  return { silent: silent.length, recovered, suspects: suspects.length, purged };
}
