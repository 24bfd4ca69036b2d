import type { Job } from '../../core/queue.ts';
import { parsePayload } from '../../core/queue.ts';
import { openSealedMail } from '../../core/emails/sealed.ts';
import type { WorkerDeps } from '../deps.ts';

type JobResult = { id: string; status: 'completed' | 'failed'; output?: object };

/**
 * Sends a batch of mails at once over the pooled transport, and settles each job on its own
 * (the worker registers this queue with `perJobResults`): one refused address fails only its
 * own job, and the rest of the batch is not sent twice. Delivery is at-least-once: a crash
 * between the provider accepting a message and pg-boss recording completion sends it again,
 * which beats losing it. Serves `email-send`, `email-code` and `email-alert` alike.
 */
export function emailSend(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]): Promise<JobResult[]> =>
    Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        try {
          // Codes and reset links travel encrypted in the job; they are opened only here.
          const mail = openSealedMail(deps.config.appSecret, parsePayload('email-send', job.data));
          const { messageId } = await deps.mailer.send({
            to: mail.to,
            subject: mail.subject,
            text: mail.text,
            ...(mail.html ? { html: mail.html } : {}),
            ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
          });
          deps.log.info({ jobId: job.id, queue: job.name, kind: mail.kind, messageId }, 'mail sent');
          return { id: job.id, status: 'completed' };
        } catch (error) {
          // Recorded on the job by pg-boss and retried with the queue's backoff.
          const err = error as Error;
          deps.log.warn({ jobId: job.id, queue: job.name, err }, 'mail not sent; will retry');
          return { id: job.id, status: 'failed', output: { message: err.message, name: err.name } };
        }
      }),
    );
}
