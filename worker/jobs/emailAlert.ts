import type { WorkerDeps } from '../deps.ts';
import { eachJobSettled } from '../job.ts';
import { sendMail } from '../mail.ts';

/** `email-alert`: operator alerts, with their own pollers and hours of retries through an SMTP outage. */
export function emailAlert(deps: WorkerDeps) {
  return eachJobSettled('email-alert', deps.log, (mail, job) => sendMail(deps, mail, job));
}
