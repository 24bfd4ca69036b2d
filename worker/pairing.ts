import { openPin } from '../core/crypto/machineSecrets.ts';
import { findStreamHost } from '../core/db/machineHealth.ts';
import { findConnectHost } from '../core/db/machineNames.ts';
import {
  beginPairing,
  findPairing,
  finishPairing,
  finishRemoval,
  insertFoundPairing,
  listPairings,
  markPairingConfirming,
  markPairingsGone,
  recordClientsBefore,
  type StreamPairing,
} from '../core/db/streamPairings.ts';
import { findVm } from '../core/db/vms.ts';
import {
  awaitsRemoval,
  newlyPairedClient,
  PAIRING_CONFIRM_SECONDS,
  pairingAnswer,
  reconcileClients,
  STREAMING_MESSAGES,
  type PairingOutcome,
} from '../core/domain/streaming.ts';
import type { SunshineClientEntry, SunshineTarget } from '../core/providers/sunshine.ts';
import type { WorkerDeps } from './deps.ts';
import { streamHostReached, sunshineCallFailed, sunshineOf, targetOf, withRetry } from './streamHost.ts';

/**
 * Moonlight pairing relayed to a customer's machine: the PIN they typed sent to its Sunshine,
 * a paired device removed, and the dashboard's devices brought in line with Sunshine's list. Each
 * talks to that machine's Sunshine with its own credentials and records the outcome on the
 * pairing's row, where the API waiting on it finds it. The jobs (`stream-pair`, `stream-unpair`,
 * `stream-clients`) hand each here.
 */

/**
 * Relays the PIN a customer typed on the dashboard to their machine's Sunshine.
 *
 * Guard: the row moves pending → sending (a replay of a finished pairing finds nothing). Then,
 * with the machine's own credentials and the certificate it reported pinned: Sunshine's client
 * list (what was paired before), `POST /api/pin` (false: no Moonlight is waiting), and the list
 * again until the device appears under its name (the handshake after the PIN succeeds only with
 * the right one). The outcome and the sentence the customer reads go on the row, where the API
 * waiting on it finds them. Network trouble is retried once; a crash is retried by the queue and
 * starts from what the row recorded.
 */
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

/**
 * Removes a paired Moonlight device on the machine (`POST /api/clients/unpair`
 * with Sunshine's id of it). Guard: the row is `removing`. A device Sunshine no longer knows (the
 * customer removed it in Sunshine's own page) is removed all the same; a machine that stopped, or
 * a Sunshine that cannot be reached, puts the device back as paired with the reason.
 */
export async function unpairDevice(deps: WorkerDeps, pairingId: string): Promise<void> {
  const { db, log } = deps;
  const pairing = await findPairing(db, pairingId);
  const uuid = pairing?.client_uuid ?? null;
  if (!pairing || uuid === null || !awaitsRemoval({ state: pairing.state, clientUuid: uuid })) return;
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

/**
 * Reads Sunshine's client list on a machine (sent when the machine's health
 * report is accepted, so at every start and then every few minutes) and brings the dashboard's
 * paired devices in line with it (`reconcileClients`): devices paired on the PC but not from the
 * dashboard (Sunshine's own page, a disk brought back from a kept copy) are listed and can be
 * removed; devices Sunshine no longer knows are no longer listed. A Sunshine that cannot be
 * reached is recorded as for a pairing (the card says so, an operator is alerted).
 */
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
