import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';
import { readClients } from '../pairing.ts';

/** `stream-clients`: the dashboard's paired devices brought in line with Sunshine's own list (worker/pairing.ts). */
export function streamClients(deps: WorkerDeps) {
  return eachJob('stream-clients', ({ vmId }) => readClients(deps, vmId));
}
