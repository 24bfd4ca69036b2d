import { createDbPool } from '../core/db/pool.ts';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import { createMailer, type Mailer } from '../core/providers/mail.ts';
import { startBoss, type QueueName } from '../core/queue.ts';
import { sql } from '../core/db/pool.ts';
import type { WorkerDeps } from './deps.ts';
import { emailSend } from './jobs/emailSend.ts';
import { registerSchedules } from './schedules.ts';

type Handler = (deps: WorkerDeps) => (jobs: import('../core/queue.ts').Job<unknown>[]) => Promise<void>;

/** Every queue the worker serves, with its handler and how many jobs it takes at once. */
const HANDLERS: Record<QueueName, { handler: Handler; batchSize: number; localConcurrency: number }> = {
  'email-send': { handler: emailSend, batchSize: 1, localConcurrency: 4 },
};

export type RunningWorker = { deps: WorkerDeps; stop: () => Promise<void> };

/** Starts the worker: pg-boss with supervision and cron, one subscription per queue. */
export async function startWorker(
  config: Config,
  databaseUrl: string,
  log: Logger,
  overrides: { mailer?: Mailer; pollingIntervalSeconds?: number } = {},
): Promise<RunningWorker> {
  const db = await createDbPool(databaseUrl);
  await db.oneFirst(sql.unsafe`SELECT 1`);
  const boss = await startBoss(databaseUrl, 'worker');
  boss.on('error', (error) => log.error({ err: error }, 'queue error'));
  const deps: WorkerDeps = { config, db, boss, log, mailer: overrides.mailer ?? createMailer(config) };
  for (const [name, { handler, batchSize, localConcurrency }] of Object.entries(HANDLERS)) {
    await boss.work(
      name,
      { batchSize, localConcurrency, pollingIntervalSeconds: overrides.pollingIntervalSeconds ?? 2 },
      handler(deps),
    );
  }
  await registerSchedules(deps);
  log.info({ queues: Object.keys(HANDLERS) }, 'worker started');
  return {
    deps,
    async stop() {
      // Let running jobs finish (up to 20 s); unfinished ones are retried by another worker.
      await boss.stop({ graceful: true, timeout: 20_000 });
      await db.end();
      log.info('worker stopped');
    },
  };
}
