import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { pairDevice } from '../pairing.ts';

/** `stream-pair`: the PIN a customer typed on the dashboard, relayed to their machine's Sunshine (worker/pairing.ts). */
export function streamPair(deps: WorkerDeps) {
  return eachJob('stream-pair', ({ pairingId }) => pairDevice(deps, pairingId));
}
