import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { createDbPool } from '../core/db/pool.ts';
import { QUEUE_NAMES, sendJob, startBoss } from '../core/queue.ts';
import {
  failureMessage,
  findJob,
  isQueueName,
  listDeadLetters,
  listFailed,
  payloadProblem,
  replay,
  replayAll,
} from './lib/jobs.ts';

/** The cron queues (worker/schedules.ts): their jobs carry no payload, so one can be sent by hand. */
const SWEEPS = [
  'vm-sync',
  'plan-expiry',
  'vm-reaper',
  'pool-replenish',
  'vm-reconcile',
  'vm-events',
  'payment-reconcile',
  'housekeeping',
  'alert-notify',
  'metrics-pull',
  'autopay-renewal',
] as const;
type Sweep = (typeof SWEEPS)[number];
const isSweep = (name: string | undefined): name is Sweep =>
  (SWEEPS as readonly string[]).includes(name ?? '');

const USAGE = `usage: npm run jobs -- <command>
  dead [queue]             dead letters (<queue>-dlq) waiting for an operator, with their last error
  failed [queue]           list failed jobs (retries exhausted), newest first
  show <id>                one job: queue, state, payload, error
  replay <id>              put a failed (or dead-letter) job back to work
  replay --all <queue>     replay every failed job and dead letter of a queue
  run <sweep>              run a scheduled sweep now instead of at its next tick (${SWEEPS.join(', ')})
  help                     this text (needs no database)
Reads DATABASE_URL.
queues: ${QUEUE_NAMES.join(', ')}`;

const COMMANDS = new Set(['dead', 'failed', 'show', 'replay', 'run']);
const [command, ...args] = process.argv.slice(2);
// Help and bad usage answer before any configuration or database is needed.
if (command === undefined || !COMMANDS.has(command)) {
  const asked = command === undefined || command === 'help' || command === '--help' || command === '-h';
  (asked ? console.log : console.error)(USAGE);
  process.exit(asked ? 0 : 2);
}
const config = loadConfig();
const databaseUrl = requireDatabaseUrl(config);
const db = await createDbPool(databaseUrl, { maximumPoolSize: 2 });
let exitCode = 0;

try {
  switch (command) {
    case 'dead': {
      const queue = args[0];
      if (queue !== undefined && !isQueueName(queue)) throw new Error(`unknown queue ${queue}\n${USAGE}`);
      const jobs = await listDeadLetters(db, queue);
      if (jobs.length === 0) console.log(queue ? `no dead letters in ${queue}` : 'no dead letters');
      for (const job of jobs) {
        console.log(
          `${job.id}  ${job.name}  since ${job.created_on.toISOString()}  after ${job.source_retry_count ?? '?'} retries  ${failureMessage(job)}`,
        );
      }
      break;
    }
    case 'failed': {
      const queue = args[0];
      if (queue !== undefined && !isQueueName(queue)) throw new Error(`unknown queue ${queue}\n${USAGE}`);
      const jobs = await listFailed(db, queue);
      if (jobs.length === 0) console.log(queue ? `no failed jobs in ${queue}` : 'no failed jobs');
      for (const job of jobs) {
        console.log(
          `${job.id}  ${job.name}  failed ${job.completed_on?.toISOString() ?? '?'}  after ${job.retry_count} retries  ${failureMessage(job)}`,
        );
      }
      break;
    }
    case 'show': {
      const id = args[0];
      if (!id) throw new Error(USAGE);
      const job = await findJob(db, id);
      if (!job) throw new Error(`no job ${id}`);
      const problem = payloadProblem(job);
      console.log(
        JSON.stringify(
          {
            id: job.id,
            queue: job.name,
            state: job.state,
            retries: job.retry_count,
            createdOn: job.created_on,
            completedOn: job.completed_on,
            error: job.state === 'failed' ? failureMessage(job) : undefined,
            payloadValid: problem === null,
            payloadProblem: problem ?? undefined,
            data: job.data,
          },
          null,
          2,
        ),
      );
      break;
    }
    case 'replay': {
      const boss = await startBoss(databaseUrl, 'script');
      try {
        if (args[0] === '--all') {
          const queue = args[1];
          if (!queue || !isQueueName(queue)) throw new Error(`replay --all needs a queue\n${USAGE}`);
          const results = await replayAll(db, boss, queue);
          console.log(`replayed ${results.length} job(s) from ${queue}`);
        } else {
          const id = args[0];
          if (!id) throw new Error(USAGE);
          const result = await replay(db, boss, id);
          console.log(`${result.how} ${result.queue} job ${result.id}`);
        }
      } finally {
        await boss.stop({ graceful: false });
      }
      break;
    }
    case 'run': {
      const queue = args[0];
      if (!isSweep(queue)) throw new Error(`run needs a sweep: ${SWEEPS.join(', ')}\n${USAGE}`);
      const boss = await startBoss(databaseUrl, 'script');
      try {
        const id = await sendJob(boss, queue, {});
        console.log(`sent ${queue} job ${id ?? '(already queued)'}`);
      } finally {
        await boss.stop({ graceful: false });
      }
      break;
    }
  }
} catch (error) {
  console.error(`jobs: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await db.end();
}
process.exit(exitCode);
