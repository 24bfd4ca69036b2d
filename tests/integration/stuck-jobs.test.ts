import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/observability/log.ts';
import { sendJob, startBoss } from '../../core/queue.ts';
import { findJob } from '../../scripts/lib/jobs.ts';
import { startWorker } from '../../worker/worker.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

const stack = await startTestStack();

describe('stuck work', () => {
  it('a payment check held by a worker that died is taken up again by another within two minutes', async () => {
    const id = await sendJob(stack.services.boss, 'payment-verify', {
      txnid: 'STUCKJOB1',
      source: 'webhook',
    });
    // A worker takes the job and dies without a word: the job stays active in the table.
    const doomed = await startBoss(stack.databaseUrl, 'script');
    const [taken] = await doomed.fetch('payment-verify');
    expect(taken?.id).toBe(id);
    const takenAt = Date.now();
    await doomed.stop({ graceful: false });
    expect((await findJob(stack.services.db, id!))?.state).toBe('active');

    const worker = await startWorker(
      stack.config,
      stack.databaseUrl,
      createLogger({ level: 'silent', name: 'test' }),
      {
        pollingIntervalSeconds: 0.5,
      },
    );
    try {
      const done = await waitFor(
        'the job to be retried and completed',
        async () => {
          const job = await findJob(stack.services.db, id!);
          return job?.state === 'completed' ? job : null;
        },
        120_000,
      );
      // Completed by a second attempt, after the first one expired.
      expect(done.retry_count).toBeGreaterThanOrEqual(1);
      console.info(
        `stuck payment-verify job completed ${((Date.now() - takenAt) / 1000).toFixed(0)} s after its worker died`,
      );
    } finally {
      await worker.stop();
    }
  }, 150_000);
});
