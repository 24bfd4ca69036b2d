import { findStreamHost } from '../../core/db/machineHealth.ts';
import { insertFoundPairing, listPairings, markPairingsGone } from '../../core/db/streamPairings.ts';
import { findVm } from '../../core/db/vms.ts';
import { reconcileClients } from '../../core/domain/streaming.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { streamHostReached, sunshineCallFailed, sunshineOf, targetOf, withRetry } from '../streamHost.ts';

/**
 * `stream-clients`: reads Sunshine's client list on a machine (sent when the machine's health
 * report is accepted, so at every start and then every few minutes) and brings the dashboard's
 * paired devices in line with it (`reconcileClients`): devices paired on the PC but not from the
 * dashboard (Sunshine's own page, a disk brought back from a kept copy) are listed and can be
 * removed; devices Sunshine no longer knows are no longer listed. A Sunshine that cannot be
 * reached is recorded as for a pairing (the card says so, an operator is alerted).
 */
export function streamClients(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) await readClients(deps, parsePayload('stream-clients', job.data).vmId);
  };
}

export async function readClients(deps: WorkerDeps, vmId: string): Promise<void> {
  const { db, log } = deps;
  const host = await findStreamHost(db, vmId);
  const target = host ? targetOf(deps, host) : null;
  const vm = target ? await findVm(db, vmId) : null;
  if (!host || !target || !vm) return;
  const readAt = new Date();
  let clients;
  try {
    clients = await withRetry(() => sunshineOf(deps).listClients(target));
  } catch (error) {
    await sunshineCallFailed(deps, host, target.host, error);
    return;
  }
  await streamHostReached(deps, vmId);
  const rows = (await listPairings(db, vmId)).map((row) => ({
    id: row.id,
    state: row.state,
    clientUuid: row.client_uuid,
    pairedAt: row.paired_at ?? row.created_at,
  }));
  const { found, gone } = reconcileClients(rows, clients, readAt);
  const now = new Date();
  let listed = 0;
  for (const client of found) {
    if (await insertFoundPairing(db, { vmId, userId: vm.user_id, ...client, host: target.host, now }))
      listed += 1;
  }
  const removed = await markPairingsGone(db, gone, readAt, now);
  if (listed > 0 || removed > 0)
    log.info(
      { vmId, found: listed, gone: removed },
      'stream-clients: paired devices brought in line with the PC',
    );
}
