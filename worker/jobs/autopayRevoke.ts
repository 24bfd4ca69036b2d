import { revokeMandate } from '../../core/commands/autopayRenewal.ts';
import { createPayUSiClient, type PayUSiClient } from '../../core/providers/payuSi.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/** `autopay-revoke`: a cancelled mandate revoked at PayU (core/commands/autopayRenewal.ts). */
export function autopayRevoke(deps: WorkerDeps, si: PayUSiClient = createPayUSiClient(deps.config.payu)) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      const { mandateId } = parsePayload('autopay-revoke', job.data);
      const outcome = await revokeMandate(deps, si, mandateId);
      deps.log.info({ mandateId, outcome }, 'autopay-revoke: done');
    }
  };
}
