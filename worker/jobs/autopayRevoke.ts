import { revokeMandate } from '../../core/commands/autopayRenewal.ts';
import { createPayUSiClient, type PayUSiClient } from '../../core/providers/payuSi.ts';
import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';

/** `autopay-revoke`: a cancelled mandate revoked at PayU (core/commands/autopayRenewal.ts). */
export function autopayRevoke(deps: WorkerDeps, si: PayUSiClient = createPayUSiClient(deps.config.payu)) {
  return eachJob('autopay-revoke', async ({ mandateId }) => {
    const outcome = await revokeMandate(deps, si, mandateId);
    deps.log.info({ mandateId, outcome }, 'autopay-revoke: done');
  });
}
