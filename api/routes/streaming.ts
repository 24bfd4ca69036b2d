import Router from '@koa/router';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { sealPin } from '../../core/crypto/machineSecrets.ts';
import { insertDesktopToken } from '../../core/db/desktopTokens.ts';
import { findStreamHost } from '../../core/db/machineHealth.ts';
import {
  findPairedByName,
  findPairing,
  insertPairing,
  PairingBusy,
  requestRemoval,
  type StreamPairing,
} from '../../core/db/streamPairings.ts';
import { findLiveVmByUser } from '../../core/db/vms.ts';
import { findConnectHost } from '../../core/db/machineNames.ts';
import { desktopReachable } from '../../core/domain/machineStates.ts';
import {
  DCV_FILE_NAME,
  DCV_FILE_TYPE,
  dcvFile,
  deviceNameProblem,
  normaliseDeviceName,
  pairingAnswer,
  pairingInFlight,
  pairingRefusal,
  PAIRING_OUTCOMES,
  PAIRING_WAIT_SECONDS,
  PIN_PATTERN,
  removable,
  removalOutcome,
  STREAMING_MESSAGES,
  type PairingOutcome,
} from '../../core/domain/streaming.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { sendJob } from '../../core/queue.ts';
import { HttpError } from '../errors.ts';
import { currentUser, requireUser } from '../middleware/auth.ts';
import { input, validate } from '../middleware/validate.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Services } from '../services.ts';
import { download } from './vm.ts';

/**
 * Playing from the dashboard: pairing Moonlight devices with the customer's machine, removing
 * them, and the `.dcv` file for Amazon DCV's native clients. Owner only, on the session's own
 * machine; anonymous is a 401.
 *
 * The web process never calls a machine. `POST /vm/stream-pair` records the request (the PIN
 * sealed), enqueues `stream-pair` in the same transaction and waits, up to 45 s, for the worker
 * to write the outcome on the row: 200 when Sunshine paired the device, otherwise a 4xx whose
 * message says what to do. One pairing or removal at a time per machine: Sunshine hands a PIN to
 * whichever Moonlight is waiting, so a second request is refused with a 409 rather than queued
 * behind the first (it could reach the wrong device).
 */

const PairBody = z.object({
  pin: z.string({ error: STREAMING_MESSAGES.pinFormat }).regex(PIN_PATTERN, STREAMING_MESSAGES.pinFormat),
  deviceName: z
    .string({ error: STREAMING_MESSAGES.deviceNameMissing })
    .max(200, STREAMING_MESSAGES.deviceNameTooLong)
    .transform((raw, context) => {
      const name = normaliseDeviceName(raw);
      const problem = deviceNameProblem(name);
      if (problem || name === null) {
        context.addIssue({ code: 'custom', message: problem ?? STREAMING_MESSAGES.deviceNameMissing });
        return z.NEVER;
      }
      return name;
    }),
});
type PairBody = z.infer<typeof PairBody>;

const PairingId = z.uuid();

const WAIT_STEP_MS = 250;
/** How long a removal is waited for (one Sunshine call and its retry). */
const REMOVAL_WAIT_SECONDS = 20;

export function streamingRoutes(services: Services): Router<AppState> {
  const { db, boss, config, limiters } = services;
  const router = new Router<AppState>();

  /** The customer's machine and its streaming host, or the refusal to start a pairing or removal. */
  async function machineFor(ctx: AppContext, purpose: 'pair' | 'remove') {
    const user = currentUser(ctx);
    await limiters.streamPairUser.consume(user.id);
    const vm = await findLiveVmByUser(db, user.id);
    if (!vm) throw new HttpError(404, VM_MESSAGES.noVm);
    const host = await findStreamHost(db, vm.id);
    const refusal = pairingRefusal(
      { state: vm.state, publicIp: vm.public_ip },
      {
        reported: host?.reported ?? false,
        sunshineRunning: host?.sunshine_running ?? null,
        certificatePinned: Boolean(host?.sunshine_cert_sha256 && host.sunshine_username),
      },
      purpose,
    );
    if (refusal) throw new HttpError(refusal.status, refusal.message);
    return { user, vm, host: vm.public_ip as string };
  }

  /** Reads the row until `done` holds, the wait is over, or the customer has gone. */
  async function follow(
    ctx: AppContext,
    id: string,
    done: (row: StreamPairing) => boolean,
    seconds: number,
  ): Promise<StreamPairing | null> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const row = await findPairing(db, id);
      if (!row || done(row) || Date.now() >= deadline || ctx.req.socket.destroyed) return row;
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }

  router.post('/vm/stream-pair', requireUser(), validate(PairBody), async (ctx) => {
    const body = input<PairBody>(ctx);
    const { user, vm, host } = await machineFor(ctx, 'pair');
    if (await findPairedByName(db, vm.id, body.deviceName))
      throw new HttpError(409, STREAMING_MESSAGES.duplicateName);
    let pairing: StreamPairing;
    try {
      pairing = await db.transaction(async (trx) => {
        const row = await insertPairing(trx, {
          vmId: vm.id,
          userId: user.id,
          deviceName: body.deviceName,
          pinSealed: sealPin(config.appSecret, body.pin),
          host,
          now: new Date(),
        });
        await sendJob(boss, 'stream-pair', { pairingId: row.id }, { db: trx });
        return row;
      });
    } catch (error) {
      if (error instanceof PairingBusy) throw new HttpError(409, STREAMING_MESSAGES.busy);
      throw error;
    }
    ctx.state.log.info({ pairingId: pairing.id, vmId: vm.id }, 'stream pairing requested');
    const row = await follow(ctx, pairing.id, (r) => !pairingInFlight(r.state), PAIRING_WAIT_SECONDS);
    if (!row || pairingInFlight(row.state)) {
      ctx.status = 202;
      ctx.body = { message: STREAMING_MESSAGES.stillPairing, pairing: pairingBody(pairing) };
      return;
    }
    const answer = pairingAnswer(outcomeOf(row), row.host, row.device_name);
    // The worker's sentence, which names the PC as the customer adds it (its name, or its address).
    const message = row.message ?? answer.message;
    if (answer.status !== 200) throw new HttpError(answer.status, message);
    ctx.body = { message, device: pairingBody(row) };
  });

  router.delete('/vm/stream-pair/:id', requireUser(), async (ctx) => {
    const user = currentUser(ctx);
    const id = PairingId.safeParse(ctx.params.id);
    const existing = id.success ? await findPairing(db, id.data) : null;
    // Another customer's device is as absent as one that never was.
    if (!existing || existing.user_id !== user.id || !removable(existing.state))
      throw new HttpError(404, STREAMING_MESSAGES.noDevice);
    const { vm } = await machineFor(ctx, 'remove');
    if (existing.vm_id !== vm.id) throw new HttpError(404, STREAMING_MESSAGES.noDevice);
    let removing: StreamPairing | null;
    try {
      removing = await db.transaction(async (trx) => {
        const row = await requestRemoval(trx, { id: existing.id, userId: user.id, now: new Date() });
        if (row) await sendJob(boss, 'stream-unpair', { pairingId: row.id }, { db: trx });
        return row;
      });
    } catch (error) {
      if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
      removing = null;
    }
    if (!removing) throw new HttpError(409, STREAMING_MESSAGES.busy);
    const row = await follow(
      ctx,
      removing.id,
      (r) => removalOutcome(r.state) !== 'under-way',
      REMOVAL_WAIT_SECONDS,
    );
    if (!row || removalOutcome(row.state) === 'under-way') {
      ctx.status = 202;
      ctx.body = { message: 'Removing the device from your PC…', device: pairingBody(removing) };
      return;
    }
    if (removalOutcome(row.state) !== 'removed')
      throw new HttpError(409, row.message ?? 'The device could not be removed. Please try again.');
    ctx.body = { message: STREAMING_MESSAGES.removed, device: pairingBody(row) };
  });

  // A `.dcv` file for DCV's native clients: a one-time, one-minute token, exactly the browser
  // desktop's (core/db/desktopTokens.ts), so the same authenticator accepts it once.
  router.get('/vm/dcv-file', requireUser(), async (ctx) => {
    const user = currentUser(ctx);
    await limiters.desktopTokenUser.consume(user.id);
    const vm = await findLiveVmByUser(db, user.id);
    if (!vm) throw new HttpError(404, VM_MESSAGES.noVm);
    if (!vm.public_ip || !desktopReachable({ state: vm.state, publicIp: vm.public_ip }))
      throw new HttpError(409, STREAMING_MESSAGES.dcvNotRunning);
    const token = randomToken();
    await insertDesktopToken(db, {
      tokenHash: hashToken(token),
      userId: user.id,
      vmId: vm.id,
      publicIp: vm.public_ip,
      now: services.clock(),
    });
    ctx.state.log.info({ vmId: vm.id }, 'DCV file minted');
    const host = (await findConnectHost(db, vm, config.machineNames?.suffix ?? null)) ?? vm.public_ip;
    download(ctx, DCV_FILE_TYPE, DCV_FILE_NAME, dcvFile(host, token));
  });

  return router;
}

function outcomeOf(row: StreamPairing): PairingOutcome {
  return (PAIRING_OUTCOMES as readonly string[]).includes(row.outcome ?? '')
    ? (row.outcome as PairingOutcome)
    : 'expired';
}

/** What the SPA may know of a pairing: never the PIN, the host's credentials or Sunshine's ids. */
function pairingBody(row: StreamPairing) {
  return {
    id: row.id,
    name: row.device_name,
    state: row.state,
    pairedAt: row.paired_at?.toISOString() ?? null,
  };
}
