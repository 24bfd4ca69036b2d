import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { unpairDevice } from '../pairing.ts';

/** `stream-unpair`: a paired Moonlight device removed on the machine (worker/pairing.ts). */
export function streamUnpair(deps: WorkerDeps) {
  return eachJob('stream-unpair', ({ pairingId }) => unpairDevice(deps, pairingId));
}
