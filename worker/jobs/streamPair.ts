import { openPin } from '../../core/crypto/machineSecrets.ts';
import { findStreamHost } from '../../core/db/machineHealth.ts';
import { findConnectHost } from '../../core/db/machineNames.ts';
import {
  beginPairing,
  finishPairing,
  markPairingConfirming,
  recordClientsBefore,
  type StreamPairing,
} from '../../core/db/streamPairings.ts';
import {
  newlyPairedClient,
  PAIRING_CONFIRM_SECONDS,
  pairingAnswer,
  type PairingOutcome,
} from '../../core/domain/streaming.ts';
import type { SunshineClientEntry, SunshineTarget } from '../../core/providers/sunshine.ts';
import { parsePayload, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';
import { streamHostReached, sunshineCallFailed, sunshineOf, targetOf, withRetry } from '../streamHost.ts';

/**
 * `stream-pair`: relays the PIN a customer typed on the dashboard to their machine's Sunshine.
 *
 * Guard: the row moves pending → sending (a replay of a finished pairing finds nothing). Then,
 * with the machine's own credentials and the certificate it reported pinned: Sunshine's client
 * list (what was paired before), `POST /api/pin` (false: no Moonlight is waiting), and the list
 * again until the device appears under its name (the handshake after the PIN succeeds only with
 * the right one). The outcome and the sentence the customer reads go on the row, where the API
 * waiting on it finds them. Network trouble is retried once; a crash is retried by the queue and
 * starts from what the row recorded.
 */
export function streamPair(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    for (const job of jobs) {
      const { pairingId } = parsePayload('stream-pair', job.data);
      await pairDevice(deps, pairingId);
    }
  };
}

const CONFIRM_POLL_MS = 500;

export async function pairDevice(deps: WorkerDeps, pairingId: string): Promise<void> {
  const { db, log } = deps;
  const pairing = await beginPairing(db, pairingId, new Date());
  if (!pairing?.pin_sealed) return;
  const host = await findStreamHost(db, pairing.vm_id);
  // What the customer adds in Moonlight: the PC's name once it leads there, else its address.
  const shown =
    (host &&
      host.public_ip === pairing.host &&
      (await findConnectHost(
        db,
        { id: pairing.vm_id, state: host.state, public_ip: host.public_ip },
        deps.config.machineNames?.suffix ?? null,
      ))) ||
    pairing.host;
  const finish = async (outcome: PairingOutcome, clientUuid: string | null = null) => {
    const answer = pairingAnswer(outcome, shown, pairing.device_name);
    await finishPairing(db, pairing.id, {
      state: answer.state,
      outcome,
      message: answer.message,
      clientUuid,
      now: new Date(),
    });
    log.info({ pairingId: pairing.id, vmId: pairing.vm_id, outcome }, 'stream-pair: finished');
  };
  // Stopped or restarted (a new address) since the customer asked: Moonlight waits at the old one.
  const target = host && host.public_ip === pairing.host ? targetOf(deps, host) : null;
  if (!host || !target) return finish('machine-changed');

  const sunshine = sunshineOf(deps);
  try {
    const found = await pairWith(deps, pairing, target);
    await streamHostReached(deps, pairing.vm_id);
    return finish(found.outcome, found.clientUuid);
  } catch (error) {
    return finish(await sunshineCallFailed(deps, host, target.host, error));
  }

  async function pairWith(
    deps: WorkerDeps,
    row: StreamPairing,
    to: SunshineTarget,
  ): Promise<{ outcome: PairingOutcome; clientUuid: string | null }> {
    const before: SunshineClientEntry[] =
      row.clients_before ?? (await withRetry(() => sunshine.listClients(to)));
    if (row.clients_before) {
      // A retry after a crash: the PIN may have gone through already.
      const done = newlyPairedClient(
        before,
        await withRetry(() => sunshine.listClients(to)),
        row.device_name,
      );
      if (done) return { outcome: 'paired', clientUuid: done.uuid };
    } else {
      await recordClientsBefore(deps.db, row.id, before);
    }
    const pin = openPin(deps.config.appSecret, row.pin_sealed ?? '');
    const waiting = await withRetry(() => sunshine.pin(to, pin, row.device_name));
    if (!waiting) return { outcome: 'no-moonlight-waiting', clientUuid: null };
    await markPairingConfirming(deps.db, row.id, new Date());
    const deadline = Date.now() + PAIRING_CONFIRM_SECONDS * 1000;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, CONFIRM_POLL_MS));
      const paired = newlyPairedClient(
        before,
        await withRetry(() => sunshine.listClients(to)),
        row.device_name,
      );
      if (paired) return { outcome: 'paired', clientUuid: paired.uuid };
    }
    return { outcome: 'not-confirmed', clientUuid: null };
  }
}
