import { stopIdle, warnIdle, withdrawIdleWarning } from '../../core/commands/idle.ts';
import { listIdleCandidates, type IdleCandidate } from '../../core/db/idle.ts';
import {
  idleAct,
  idleDecision,
  IDLE_METRICS_LATENESS_MS,
  IDLE_STOP_CHOICES,
  type IdleDecision,
  withNotice,
} from '../../core/domain/idle.ts';
import { createCloudWatch, type CloudWatch } from '../../core/providers/cloudwatch.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/**
 * `vm-idle` (cron, every minute): the idle auto-stop. For every running machine whose
 * auto-stop is on, CloudWatch's CPU, GPU, session and network series for the longest window
 * (one GetMetricData per 100 machines), the rule in core/domain/idle.ts, then:
 * - warn: the warning of this idle episode is recorded (the dashboard shows it) and mailed,
 *   once per episode, in one transaction;
 * - stop: the same stop the customer's STOP asks for (core/commands/vmActions.ts), reason
 *   'idle', recorded in `vm_idle_stops` for the hours saved;
 * - busy or idle for less than the warning point: a pending warning is withdrawn.
 * Missing or late metrics change nothing (no stop, warning left as it was). A CloudWatch
 * failure fails the run (retried once; the next minute's run decides afresh).
 */
export function vmIdle(deps: WorkerDeps) {
  const cloudWatch = deps.cloudWatch ?? createCloudWatch(deps.config.metrics.cloudWatch);
  return sweepJob('vm-idle', () => sweepIdleMachines({ ...deps, cloudWatch }));
}

export type IdleSweepDeps = Pick<WorkerDeps, 'db' | 'boss' | 'log' | 'config'> & { cloudWatch: CloudWatch };
export type IdleSweepReport = { vms: number; warned: number; stopped: number; withdrawn: number };

const MAX_VMS = 10_000;
const LONGEST_WINDOW_MS = Math.max(...IDLE_STOP_CHOICES) * 60_000;

export async function sweepIdleMachines(
  deps: IdleSweepDeps,
  now: Date = new Date(),
): Promise<IdleSweepReport> {
  const { db, log, cloudWatch } = deps;
  const periodSeconds = deps.config.metrics.periodSeconds;
  const periodMs = periodSeconds * 1000;
  const report: IdleSweepReport = { vms: 0, warned: 0, stopped: 0, withdrawn: 0 };
  const candidates = await listIdleCandidates(db, MAX_VMS);
  report.vms = candidates.length;
  if (candidates.length === 0) return report;

  const lookback = LONGEST_WINDOW_MS + 2 * periodMs + IDLE_METRICS_LATENESS_MS;
  const start = new Date(Math.floor((now.getTime() - lookback) / periodMs) * periodMs);
  const series = await cloudWatch.idleSeries({
    instanceIds: candidates.map((c) => c.instance_id),
    start,
    end: now,
    periodSeconds,
  });

  for (const vm of candidates) {
    const decision = withNotice(
      idleDecision({
        minutes: vm.minutes,
        periodSeconds,
        periods: series.get(vm.instance_id) ?? [],
        runningSince: vm.started_at,
        keptAt: vm.kept_at,
        now,
      }),
      vm.warned_at,
      now,
    );
    const outcome = await act(deps, vm, decision, now);
    if (outcome) report[outcome] += 1;
  }
  log.info(report, 'idle machines checked');
  return report;
}

async function act(
  deps: IdleSweepDeps,
  vm: IdleCandidate,
  decision: IdleDecision,
  now: Date,
): Promise<'warned' | 'stopped' | 'withdrawn' | null> {
  const act = idleAct(decision, vm.warned_at);
  switch (act.kind) {
    case 'warn':
      return (await warnIdle(deps, vm, act.stopAt, now)) ? 'warned' : null;
    case 'stop':
      return (await stopIdle(deps, vm, act.idleSince, now)) ? 'stopped' : null;
    case 'withdraw':
      await withdrawIdleWarning(deps.db, vm.vm_id);
      return 'withdrawn';
    case 'nothing':
      return null;
  }
}
