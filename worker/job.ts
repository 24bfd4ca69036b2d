import { parsePayload, type Job, type Payload, type QueueName } from '../core/queue.ts';
import type { Logger } from '../core/observability/log.ts';

/**
 * The one shape of a job handler (worker/jobs/<queue>.ts): each job of the batch parsed with its
 * queue's schema and handed to `run`, which loads what it needs and hands it to the executor or
 * a `core/commands` operation.
 */
export type JobHandler = (jobs: Job<unknown>[]) => Promise<unknown>;

/** One after another; a failure fails the batch, which pg-boss retries with the queue's backoff. */
export function eachJob<Q extends QueueName>(
  queue: Q,
  run: (payload: Payload<Q>, job: Job<unknown>) => Promise<unknown>,
): JobHandler {
  return async (jobs) => {
    for (const job of jobs) await run(parsePayload(queue, job.data), job);
  };
}

/**
 * A sweep (a cron queue whose jobs carry nothing): the batch's payloads checked, then one run,
 * whatever the batch holds; the next schedule runs it again.
 */
export function sweepJob<Q extends QueueName>(queue: Q, run: () => Promise<unknown>): JobHandler {
  return async (jobs) => {
    for (const job of jobs) parsePayload(queue, job.data);
    await run();
  };
}

type JobResult = { id: string; status: 'completed' | 'failed'; output?: object };

/**
 * All of the batch at once, each job settled on its own (the worker registers such a queue with
 * `perJobResults`): a burst is not paced by the polling interval, and one failure is recorded on
 * its own job and retried with the queue's backoff without running the others again.
 */
export function eachJobSettled<Q extends QueueName>(
  queue: Q,
  log: Logger,
  run: (payload: Payload<Q>, job: Job<unknown>) => Promise<unknown>,
): (jobs: Job<unknown>[]) => Promise<JobResult[]> {
  return (jobs) =>
    Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        try {
          await run(parsePayload(queue, job.data), job);
          return { id: job.id, status: 'completed' };
        } catch (error) {
          const err = error as Error;
          log.warn({ jobId: job.id, queue: job.name, err }, `${queue}: failed; will retry`);
          return { id: job.id, status: 'failed', output: { message: err.message, name: err.name } };
        }
      }),
    );
}
