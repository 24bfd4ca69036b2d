import type { WorkerDeps } from './deps.ts';
import { sendJob } from '../core/queue.ts';

/**
 * Cron sweeps. pg-boss fires each schedule once across all workers. Sweeps select a bounded
 * batch by a predicate that excludes rows already handled, so a re-run is harmless.
 */
export async function registerSchedules(deps: WorkerDeps): Promise<void> {
  // Cloud PCs. Minute-level sweeps are the safety net; machines in transition are
  // also followed by per-machine checks every VM_POLL_SECONDS (core/commands/vmActions.ts).
  await deps.boss.schedule('vm-sync', '* * * * *', {});
  await deps.boss.schedule('plan-expiry', '* * * * *', {});
  await deps.boss.schedule('vm-reaper', '* * * * *', {});
  await deps.boss.schedule('pool-replenish', '*/5 * * * *', {});
  await deps.boss.schedule('vm-reconcile', '*/10 * * * *', {});
  // Events EC2 schedules on machines' hardware: acted on days ahead, so five minutes is soon enough.
  await deps.boss.schedule('vm-events', '*/5 * * * *', {});
  // Usage page: CPU/GPU samples from CloudWatch (METRICS_PULL_CRON).
  await deps.boss.schedule('metrics-pull', deps.config.metrics.pullCron, {});
  // Idle auto-stop: machines nobody uses for the customer's window are warned, then stopped.
  await deps.boss.schedule('vm-idle', '* * * * *', {});
  // Payments not yet final: asked about on their backoff schedule; automatic refunds that fell due.
  await deps.boss.schedule('payment-reconcile', '* * * * *', {});
  // AutoPay: pre-debit notices, debits and their outcomes as they fall due.
  await deps.boss.schedule('autopay-renewal', '* * * * *', {});
  // Dead rows: rate-limit counters, expired sessions, codes and links (core/db/housekeeping.ts).
  await deps.boss.schedule('housekeeping', '17 * * * *', {});
  // Machines' own health: silence from running machines, forged reports (game streaming).
  await deps.boss.schedule('machine-health', '* * * * *', {});
  // Machines' DNS names: records of gone machines deleted, failed updates retried and alerted.
  if (deps.config.machineNames) await deps.boss.schedule('machine-name', '* * * * *', {});
  // Operator alerts reach a person within a minute (OPS_EMAIL, ALERT_WEBHOOK_URL).
  await deps.boss.schedule('alert-notify', '* * * * *', {});
  // Fill the warm pool now rather than at the next five-minute mark.
  await sendJob(deps.boss, 'pool-replenish', {});
}
