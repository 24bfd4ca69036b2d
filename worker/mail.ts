import { openSealedMail } from '../core/emails/sealed.ts';
import type { Job, Payload } from '../core/queue.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * One mail over the pooled transport (the three mail queues: bulk, sign-in codes, operator
 * alerts). Delivery is at-least-once: a crash between the provider accepting a message and
 * pg-boss recording completion sends it again, which beats losing it.
 */
export async function sendMail(
  deps: WorkerDeps,
  sealed: Payload<'email-send'>,
  job: Job<unknown>,
): Promise<void> {
  // Codes and reset links travel encrypted in the job; they are opened only here.
  const mail = openSealedMail(deps.config.appSecret, sealed);
  const { messageId } = await deps.mailer.send({
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
  });
  deps.log.info({ jobId: job.id, queue: job.name, kind: mail.kind, messageId }, 'mail sent');
}
