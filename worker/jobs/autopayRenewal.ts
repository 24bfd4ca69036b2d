import { runAutopayRenewal } from '../../core/commands/autopayRenewal.ts';
import { createPayUSiClient, type PayUSiClient } from '../../core/providers/payuSi.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * `autopay-renewal` (cron, every minute): notices, debits, outcomes and resends of AutoPay
 * renewals, all decided and carried out by core/commands/autopayRenewal.ts.
 */
export function autopayRenewal(deps: WorkerDeps, si: PayUSiClient = createPayUSiClient(deps.config.payu)) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      parsePayload('autopay-renewal', job.data);
      await runAutopayRenewal(deps, si, new Date());
    }
  };
}
