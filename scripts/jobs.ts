import { loadConfig, requireDatabaseUrl } from '../core/config.ts';
import { createDbPool } from '../core/db/pool.ts';
import { QUEUE_NAMES, startBoss } from '../core/queue.ts';
import {
  failureMessage,
  findJob,
  isQueueName,
  listFailed,
  payloadProblem,
  replay,
  replayAll,
} from './lib/jobs.ts';

const USAGE = `usage: npm run jobs -- <command>
  failed [queue]           list failed jobs (retries exhausted), newest first
  show <id>                one job: queue, state, payload, error
  replay <id>              put a failed (or dead-letter) job back to work
  replay --all <queue>     replay every failed job of a queue
queues: ${QUEUE_NAMES.join(', ')}`;

const [command, ...args] = process.argv.slice(2);
const config = loadConfig();
const databaseUrl = requireDatabaseUrl(config);
const db = await createDbPool(databaseUrl, { maximumPoolSize: 2 });
let exitCode = 0;

try {
  switch (command) {
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
    default:
      console.log(USAGE);
      exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
} catch (error) {
  console.error(`jobs: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await db.end();
}
process.exit(exitCode);
