import { findStreamHost } from '../../core/db/machineHealth.ts';
import { finishRemoval, findPairing } from '../../core/db/streamPairings.ts';
import { pairingAnswer, STREAMING_MESSAGES } from '../../core/domain/streaming.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { streamHostReached, sunshineCallFailed, sunshineOf, targetOf, withRetry } from '../streamHost.ts';

/**
 * `stream-unpair`: removes a paired Moonlight device on the machine (`POST /api/clients/unpair`
 * with Sunshine's id of it). Guard: the row is `removing`. A device Sunshine no longer knows (the
 * customer removed it in Sunshine's own page) is removed all the same; a machine that stopped, or
 * a Sunshine that cannot be reached, puts the device back as paired with the reason.
 */
export function streamUnpair(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      const { pairingId } = parsePayload('stream-unpair', job.data);
      await unpairDevice(deps, pairingId);
    }
  };
}

export async function unpairDevice(deps: WorkerDeps, pairingId: string): Promise<void> {
  const { db, log } = deps;
  const pairing = await findPairing(db, pairingId);
  if (!pairing || pairing.state !== 'removing' || !pairing.client_uuid) return;
  const host = await findStreamHost(db, pairing.vm_id);
  const target = host ? targetOf(deps, host) : null;
  if (!host || !target) {
    await finishRemoval(db, pairing.id, {
      removed: false,
      outcome: 'machine-changed',
      message: STREAMING_MESSAGES.startFirstToRemove,
      now: new Date(),
    });
    return;
  }
  const uuid = pairing.client_uuid;
  try {
    const removed = await withRetry(() => sunshineOf(deps).unpair(target, uuid));
    await streamHostReached(deps, pairing.vm_id);
    await finishRemoval(db, pairing.id, { removed: true, now: new Date() });
    log.info(
      { pairingId: pairing.id, vmId: pairing.vm_id, knownToSunshine: removed },
      'stream-unpair: removed',
    );
  } catch (error) {
    const outcome = await sunshineCallFailed(deps, host, target.host, error);
    await finishRemoval(db, pairing.id, {
      removed: false,
      outcome,
      message: pairingAnswer(outcome, target.host, pairing.device_name).message,
      now: new Date(),
    });
  }
}
