import { recoverAccount } from '../../core/commands/accountRecovery.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';

/** `account-recovery`: a forgot-password request (core/commands/accountRecovery.ts). */
export function accountRecovery(deps: WorkerDeps) {
  return eachJob('account-recovery', (payload, job) => recoverAccount(deps, payload, job.id));
}
