import type { Job } from '../../core/queue.ts';
import { parsePayload } from '../../core/queue.ts';
import { openSealedMail } from '../../core/emails/sealed.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * Sends one mail. Delivery is at-least-once: a crash between the provider accepting the
 * message and pg-boss recording completion sends it again, which beats losing it.
 */
export function emailSend(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      // Codes and reset links travel encrypted in the job; they are opened only here.
      const mail = openSealedMail(deps.config.appSecret, parsePayload('email-send', job.data));
      const { messageId } = await deps.mailer.send({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html ? { html: mail.html } : {}),
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      });
      deps.log.info({ jobId: job.id, kind: mail.kind, messageId }, 'mail sent');
    }
  };
}
