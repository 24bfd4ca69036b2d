import { recordHealthReport } from '../db/machineHealth.ts';
import { raiseAlert, resolveAlertsByKeys } from '../db/operatorAlerts.ts';
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
} from '../domain/machineHealth.ts';

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
