import type { WorkerDeps } from '../deps.ts';
import { eachJobSettled } from '../job.ts';
import { sendMail } from '../mail.ts';

/**
 * `email-send`: bulk mail, a batch at once over the pooled transport, each job settled on its own
 * (one refused address fails only its own job, and the rest of the batch is not sent twice).
 */
export function emailSend(deps: WorkerDeps) {
  return eachJobSettled('email-send', deps.log, (mail, job) => sendMail(deps, mail, job));
}
