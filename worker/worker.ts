import { createDbPool } from '../core/db/pool.ts';
import type { Config } from '../core/config/config.ts';
import type { Logger } from '../core/observability/log.ts';
import { createMailer, type Mailer } from '../core/providers/mail.ts';
import { startBoss, type QueueName } from '../core/queue.ts';
import { sql } from '../core/db/pool.ts';
import { remoteDesktopProbe, type WorkerDeps } from './deps.ts';
import { emailAlert } from './jobs/emailAlert.ts';
import { emailCode } from './jobs/emailCode.ts';
import { emailSend } from './jobs/emailSend.ts';
import { accountRecovery } from './jobs/accountRecovery.ts';
import { paymentVerify } from './jobs/paymentVerify.ts';
import { paymentReconcile } from './jobs/paymentReconcile.ts';
import { paymentRefund } from './jobs/paymentRefund.ts';
import { vmProvision } from './jobs/vmProvision.ts';
import { vmSync } from './jobs/vmSync.ts';
import { vmStart } from './jobs/vmStart.ts';
import { vmStop } from './jobs/vmStop.ts';
import { vmTerminate } from './jobs/vmTerminate.ts';
import { poolReplenish } from './jobs/poolReplenish.ts';
import { planExpiry } from './jobs/planExpiry.ts';
import { vmReaper } from './jobs/vmReaper.ts';
import { vmReconcile } from './jobs/vmReconcile.ts';
import { vmEvents } from './jobs/vmEvents.ts';
import { createVmEc2, type VmEc2 } from '../core/providers/vmEc2.ts';
import { metricsPull } from './jobs/metricsPull.ts';
import { vmIdle } from './jobs/vmIdle.ts';
import { housekeeping } from './jobs/housekeeping.ts';
import { createCloudWatch, type CloudWatch } from '../core/providers/cloudwatch.ts';
import { registerSchedules } from './schedules.ts';
import { alertNotify } from './jobs/alertNotify.ts';
import { alertWebhook } from './jobs/alertWebhook.ts';
import { streamPair } from './jobs/streamPair.ts';
import { streamUnpair } from './jobs/streamUnpair.ts';
import { streamClients } from './jobs/streamClients.ts';
import { machineHealth } from './jobs/machineHealth.ts';
import { machineName } from './jobs/machineName.ts';
import { createRoute53, type Route53 } from '../core/providers/route53.ts';
import { createSunshine, type Sunshine } from '../core/providers/sunshine.ts';
import { SUNSHINE_TIMEOUT_MS } from './streamHost.ts';
import { autopayRenewal } from './jobs/autopayRenewal.ts';
import { autopayRevoke } from './jobs/autopayRevoke.ts';
import {
  createRegistry,
  jobDurationHistogram,
  serveMetrics,
  type Registry,
} from '../core/observability/metrics.ts';

type Handler = (deps: WorkerDeps) => (jobs: import('../core/queue.ts').Job<unknown>[]) => Promise<unknown>;

/** How the worker takes the jobs of one queue (a pg-boss `work` registration; not a customer's plan). */
type QueueWorker = {
  handler: Handler;
  batchSize: number;
  localConcurrency: number;
  /** The handler answers one result per job (pg-boss `perJobResults`) instead of throwing. */
  perJobResults?: boolean;
  /** How often an idle worker asks for more; 2 s unless a queue needs quicker pick-up. */
  pollingIntervalSeconds?: number;
};

/** Every queue the worker serves, with its handler and how many jobs it takes at once. */
const HANDLERS: Record<QueueName, QueueWorker> = {
  // Bulk mail: batches of 10 from two pollers over the pooled SMTP transport, fetching again at
  // once while batches come back full, so a backlog drains at SMTP speed.
  'email-send': { handler: emailSend, batchSize: 10, localConcurrency: 2, perJobResults: true },
  // Codes someone is waiting for: their own pollers, checking twice a second.
  'email-code': {
    handler: emailCode,
    batchSize: 5,
    localConcurrency: 2,
    perJobResults: true,
    pollingIntervalSeconds: 0.5,
  },
  // Operator alerts: their own pollers, and hours of retries through an SMTP outage.
  'email-alert': { handler: emailAlert, batchSize: 5, localConcurrency: 1, perJobResults: true },
  // Forgot-password: the worker decides whether anyone is mailed, so the API answers alike for all.
  'account-recovery': { handler: accountRecovery, batchSize: 1, localConcurrency: 2 },
  // Each job waits on PayU's verify API. Batches of 5 verified at once from two pollers, fetching
  // again at once while batches come back full: a burst of callbacks is not paced by the
  // polling interval (one job per poller per 2 s made 100 callbacks take 50 s).
  'payment-verify': { handler: paymentVerify, batchSize: 5, localConcurrency: 2, perJobResults: true },
  // The sweep batches its own PayU calls; one at a time (its claim uses SKIP LOCKED anyway).
  'payment-reconcile': { handler: paymentReconcile, batchSize: 1, localConcurrency: 1 },
  'payment-refund': { handler: paymentRefund, batchSize: 1, localConcurrency: 2 },
  // Builds (or takes from the warm pool) the machine of a newly activated subscription.
  // Batches of 5 at once from two pollers, fetching again while batches come back full, like
  // payment-verify: the machines of a burst of purchases are all under way within seconds.
  'vm-provision': { handler: vmProvision, batchSize: 5, localConcurrency: 2, perJobResults: true },
  // Cloud PCs. Each handler makes one or two short EC2 calls and schedules re-checks
  // instead of waiting on a machine, so a few at once keep STOP/START snappy for everyone.
  'vm-sync': { handler: vmSync, batchSize: 1, localConcurrency: 4 },
  'vm-start': { handler: vmStart, batchSize: 1, localConcurrency: 4 },
  'vm-stop': { handler: vmStop, batchSize: 1, localConcurrency: 4 },
  'vm-terminate': { handler: vmTerminate, batchSize: 1, localConcurrency: 2 },
  'pool-replenish': { handler: poolReplenish, batchSize: 1, localConcurrency: 1 },
  'plan-expiry': { handler: planExpiry, batchSize: 1, localConcurrency: 1 },
  'vm-reaper': { handler: vmReaper, batchSize: 1, localConcurrency: 1 },
  'vm-reconcile': { handler: vmReconcile, batchSize: 1, localConcurrency: 1 },
  'vm-events': { handler: vmEvents, batchSize: 1, localConcurrency: 1 },
  'metrics-pull': { handler: metricsPull, batchSize: 1, localConcurrency: 1 },
  'vm-idle': { handler: vmIdle, batchSize: 1, localConcurrency: 1 },
  housekeeping: { handler: housekeeping, batchSize: 1, localConcurrency: 1 },
  'alert-notify': { handler: alertNotify, batchSize: 1, localConcurrency: 1 },
  'alert-webhook': { handler: alertWebhook, batchSize: 1, localConcurrency: 2 },
  // Game streaming. A customer waits at the dashboard for each pairing: quick pick-up, a few at
  // once (each waits on one machine's Sunshine for up to half a minute).
  'stream-pair': { handler: streamPair, batchSize: 1, localConcurrency: 4, pollingIntervalSeconds: 0.5 },
  'stream-unpair': { handler: streamUnpair, batchSize: 1, localConcurrency: 2, pollingIntervalSeconds: 0.5 },
  'stream-clients': { handler: streamClients, batchSize: 1, localConcurrency: 2 },
  'machine-health': { handler: machineHealth, batchSize: 1, localConcurrency: 1 },
  // DNS names: the minute sweep and single machines' retries, a couple at once (Route 53 allows
  // 5 requests a second per account).
  'machine-name': { handler: machineName, batchSize: 1, localConcurrency: 2 },
  // AutoPay: the renewal sweep (its steps are claimed row by row) and revokes at PayU.
  'autopay-renewal': { handler: autopayRenewal, batchSize: 1, localConcurrency: 1 },
  'autopay-revoke': { handler: autopayRevoke, batchSize: 1, localConcurrency: 2 },
};

export type RunningWorker = {
  deps: WorkerDeps;
  /** This process's metrics: Node process metrics and job timings (served on WORKER_METRICS_PORT). */
  metrics: Registry;
  /** `graceful: false` drops running jobs on the floor, like a killed process (tests). */
  stop: (options?: { graceful?: boolean }) => Promise<void>;
};

/** Starts the worker: pg-boss with supervision and cron, one subscription per queue. */
export async function startWorker(
  config: Config,
  databaseUrl: string,
  log: Logger,
  overrides: {
    mailer?: Mailer;
    pollingIntervalSeconds?: number;
    vmEc2?: VmEc2;
    cloudWatch?: CloudWatch;
    sunshine?: Sunshine;
    route53?: Route53;
  } = {},
): Promise<RunningWorker> {
  const db = await createDbPool(databaseUrl);
  await db.oneFirst(sql.unsafe`SELECT 1`);
  const boss = await startBoss(databaseUrl, 'worker');
  boss.on('error', (error) => log.error({ err: error }, 'queue error'));
  const vmEc2 = overrides.vmEc2 ?? createVmEc2(config.ec2);
  const cloudWatch =
    overrides.cloudWatch ??
    createCloudWatch({ ...config.metrics.cloudWatch, maxAttempts: 3, requestTimeoutMs: 30_000 });
  const deps: WorkerDeps = {
    config,
    db,
    boss,
    log,
    mailer: overrides.mailer ?? createMailer(config),
    vmEc2,
    cloudWatch,
    remoteDesktop: remoteDesktopProbe,
    sunshine: overrides.sunshine ?? createSunshine({ timeoutMs: SUNSHINE_TIMEOUT_MS }),
    route53:
      overrides.route53 ?? (config.machineNames ? createRoute53(config.machineNames.route53) : undefined),
  };
  const metrics = createRegistry();
  const jobDurations = jobDurationHistogram(metrics);
  for (const [name, subscription] of Object.entries(HANDLERS)) {
    const { batchSize, localConcurrency, perJobResults = false } = subscription;
    const run = subscription.handler(deps);
    const timed = async (jobs: import('../core/queue.ts').Job<unknown>[]) => {
      const end = jobDurations.startTimer({ queue: name });
      try {
        const result = await run(jobs);
        end({ outcome: 'completed' });
        return result;
      } catch (error) {
        end({ outcome: 'failed' });
        throw error;
      }
    };
    await boss.work(
      name,
      {
        batchSize,
        localConcurrency,
        perJobResults,
        burstWhenBatchFull: batchSize > 1,
        pollingIntervalSeconds: overrides.pollingIntervalSeconds ?? subscription.pollingIntervalSeconds ?? 2,
      },
      timed,
    );
  }
  await registerSchedules(deps);
  const port = config.ops.workerMetricsPort;
  const metricsServer = port === undefined ? undefined : await serveMetrics(metrics, config, log, port);
  log.info({ queues: Object.keys(HANDLERS), metricsPort: port }, 'worker started');
  return {
    deps,
    metrics,
    async stop(options = {}) {
      metricsServer?.close();
      // Let running jobs finish (up to 20 s); unfinished ones are retried by another worker.
      await boss.stop({ graceful: options.graceful ?? true, timeout: 20_000 });
      await db.end();
      if (!overrides.mailer) deps.mailer.close?.();
      if (!overrides.vmEc2) vmEc2.destroy();
      if (!overrides.cloudWatch) cloudWatch.destroy();
      if (!overrides.route53) deps.route53?.destroy();
      log.info('worker stopped');
    },
  };
}
