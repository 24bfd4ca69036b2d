import { runAutopayRenewal } from '../../core/commands/autopayRenewal.ts';
import { createPayUSiClient, type PayUSiClient } from '../../core/providers/payuSi.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/**
 * `autopay-renewal` (cron, every minute): notices, debits, outcomes and resends of AutoPay
 * renewals, all decided and carried out by core/commands/autopayRenewal.ts.
 */
export function autopayRenewal(deps: WorkerDeps, si: PayUSiClient = createPayUSiClient(deps.config.payu)) {
  return sweepJob('autopay-renewal', () => runAutopayRenewal(deps, si, new Date()));
}
