import type { WorkerDeps } from '../deps.ts';
import { eachJobSettled } from '../job.ts';
import { sendMail } from '../mail.ts';

/** `email-code`: sign-in codes and reset links someone is waiting for, never behind bulk mail. */
export function emailCode(deps: WorkerDeps) {
  return eachJobSettled('email-code', deps.log, (mail, job) => sendMail(deps, mail, job));
}
