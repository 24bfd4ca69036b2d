import { raiseSilentAlert, silentAlertKey } from '../../core/commands/machineHealth.ts';
import { listForgerySuspects, listSilentMachines, purgeHealthRefusals } from '../../core/db/machineHealth.ts';
import { listOpenAlertKeys, raiseAlert, resolveAlertsByKeys } from '../../core/db/operatorAlerts.ts';
import { FORGERY_ALERT_THRESHOLD } from '../../core/domain/machineHealth.ts';
import { DAY_MS, HOUR_MS } from '../../core/domain/time.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/** Refused reports are kept this long for questions ("was someone posing as my machine?"). */
const REFUSALS_KEPT_DAYS = 30;

/**
 * `machine-health` (cron, every minute): what machines' own reports cannot say themselves.
 *
 * - A running machine silent for 15 minutes (none since it started, or since its last report)
 *   raises `machine-silent`; the alert is resolved once it reports again or stops running.
 * - An address (or a machine) refused five times in an hour for reports that did not prove
 *   themselves (bad signature, wrong address, replays…) raises `health-forged`.
 * - Refusals older than a month are deleted, a bounded batch per run.
 */
export function machineHealthSweep(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      parsePayload('machine-health', job.data);
      await sweepMachineHealth(deps);
    }
  };
}

export async function sweepMachineHealth(
  deps: WorkerDeps,
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
