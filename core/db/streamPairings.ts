import { z } from 'zod';
import { PAIRING_STALE_SECONDS, PAIRING_STATES, type PairingOutcome } from '../domain/streaming.ts';
import { sql, type Db } from './pool.ts';

/**
 * Moonlight devices paired with a machine from the dashboard (sql/0021_streaming.sql). Every
 * change is a conditional UPDATE naming the states it may leave, so a replayed job or a second
 * request finds nothing to change. One pairing or removal is in flight per machine at a time
 * (a partial unique index): a second one is refused with a 409.
 */

export const StreamPairing = z.object({
  id: z.uuid(),
  vm_id: z.uuid(),
  user_id: z.uuid(),
  device_name: z.string(),
  pin_sealed: z.string().nullable(),
  host: z.string(),
  state: z.enum(PAIRING_STATES),
  outcome: z.string().nullable(),
  message: z.string().nullable(),
  client_uuid: z.string().nullable(),
  clients_before: z.array(z.object({ uuid: z.string(), name: z.string() })).nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  finished_at: z.date().nullable(),
  paired_at: z.date().nullable(),
  remove_requested_at: z.date().nullable(),
  removed_at: z.date().nullable(),
  origin: z.enum(['dashboard', 'machine']),
});
export type StreamPairing = z.infer<typeof StreamPairing>;

const COLUMNS = sql.fragment`id, vm_id, user_id, device_name, pin_sealed, host, state, outcome, message,
  client_uuid, clients_before, created_at, updated_at, finished_at, paired_at, remove_requested_at, removed_at,
  origin`;

const ts = (at: Date) => at.toISOString();

export class PairingBusy extends Error {
  override name = 'PairingBusy';
}

/**
 * A new pairing request. Pairings of this machine left in flight past PAIRING_STALE_SECONDS
 * (their job was lost; Moonlight stopped waiting long ago) are given up first. Throws
 * PairingBusy when another one is in flight.
 */
export async function insertPairing(
  db: Db,
  input: { vmId: string; userId: string; deviceName: string; pinSealed: string; host: string; now: Date },
): Promise<StreamPairing> {
  await expireStalePairings(db, input.vmId, input.now);
  const row = await db.maybeOne(sql.type(StreamPairing)`
    INSERT INTO stream_pairings (vm_id, user_id, device_name, pin_sealed, host, created_at, updated_at)
    VALUES (${input.vmId}, ${input.userId}, ${input.deviceName}, ${input.pinSealed}, ${input.host},
            ${ts(input.now)}, ${ts(input.now)})
    ON CONFLICT (vm_id) WHERE state IN ('pending', 'sending', 'confirming', 'removing') DO NOTHING
    RETURNING ${COLUMNS}`);
  if (!row) throw new PairingBusy();
  return row;
}

/** Gives up pairings of a machine stuck in flight (a removal goes back to paired). */
export async function expireStalePairings(db: Db, vmId: string, now: Date): Promise<number> {
  const cutoff = ts(new Date(now.getTime() - PAIRING_STALE_SECONDS * 1000));
  const rows = await db.any(sql.type(z.object({ id: z.uuid() }))`
    UPDATE stream_pairings SET
      state = CASE WHEN state = 'removing' THEN 'paired' ELSE 'failed' END,
      outcome = CASE WHEN state = 'removing' THEN outcome ELSE 'expired' END,
      message = CASE WHEN state = 'removing' THEN message ELSE NULL END,
      pin_sealed = NULL, finished_at = CASE WHEN state = 'removing' THEN finished_at ELSE ${ts(now)} END,
      updated_at = ${ts(now)}
    WHERE vm_id = ${vmId} AND state IN ('pending', 'sending', 'confirming', 'removing')
      AND updated_at < ${cutoff}
    RETURNING id`);
  return rows.length;
}

export async function findPairing(db: Db, id: string): Promise<StreamPairing | null> {
  return db.maybeOne(sql.type(StreamPairing)`SELECT ${COLUMNS} FROM stream_pairings WHERE id = ${id}`);
}

/** A paired (or being removed) device of this machine with this name, compared without case. */
export async function findPairedByName(
  db: Db,
  vmId: string,
  deviceName: string,
): Promise<StreamPairing | null> {
  return db.maybeOne(sql.type(StreamPairing)`
    SELECT ${COLUMNS} FROM stream_pairings
    WHERE vm_id = ${vmId} AND state IN ('paired', 'removing') AND lower(device_name) = lower(${deviceName})
    LIMIT 1`);
}

/**
 * The worker takes a pairing: pending → sending (or a retry of its own sending, after a crash).
 * Null when it is no longer to be worked on.
 */
export async function beginPairing(db: Db, id: string, now: Date): Promise<StreamPairing | null> {
  return db.maybeOne(sql.type(StreamPairing)`
    UPDATE stream_pairings SET state = 'sending', updated_at = ${ts(now)}
    WHERE id = ${id} AND state IN ('pending', 'sending') AND pin_sealed IS NOT NULL
    RETURNING ${COLUMNS}`);
}

/** What Sunshine already knew before the PIN, kept so a retried job can tell the new client apart. */
export async function recordClientsBefore(
  db: Db,
  id: string,
  clients: Array<{ uuid: string; name: string }>,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE stream_pairings SET clients_before = ${sql.jsonb(clients as never)}
    WHERE id = ${id} AND clients_before IS NULL`);
}

/** Sunshine took the PIN: the handshake with Moonlight follows. */
export async function markPairingConfirming(db: Db, id: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE stream_pairings SET state = 'confirming', updated_at = ${ts(now)}
    WHERE id = ${id} AND state = 'sending'`);
}

/** The end of a pairing: paired (with Sunshine's client id), refused or failed; the PIN is dropped. */
export async function finishPairing(
  db: Db,
  id: string,
  result: {
    state: 'paired' | 'refused' | 'failed';
    outcome: PairingOutcome;
    message: string;
    clientUuid?: string | null;
    now: Date;
  },
): Promise<StreamPairing | null> {
  return db.maybeOne(sql.type(StreamPairing)`
    UPDATE stream_pairings SET state = ${result.state}, outcome = ${result.outcome}, message = ${result.message},
      client_uuid = ${result.clientUuid ?? null}, pin_sealed = NULL, finished_at = ${ts(result.now)},
      paired_at = ${result.state === 'paired' ? ts(result.now) : null}, updated_at = ${ts(result.now)}
    WHERE id = ${id} AND state IN ('pending', 'sending', 'confirming')
    RETURNING ${COLUMNS}`);
}

/** paired → removing (the DELETE); null when it is not a paired device of this user's or another is in flight. */
export async function requestRemoval(
  db: Db,
  input: { id: string; userId: string; now: Date },
): Promise<StreamPairing | null> {
  return db.maybeOne(sql.type(StreamPairing)`
    UPDATE stream_pairings SET state = 'removing', remove_requested_at = ${ts(input.now)},
      message = NULL, updated_at = ${ts(input.now)}
    WHERE id = ${input.id} AND user_id = ${input.userId} AND state = 'paired'
      AND NOT EXISTS (
        SELECT 1 FROM stream_pairings o
        WHERE o.vm_id = stream_pairings.vm_id AND o.id <> stream_pairings.id
          AND o.state IN ('pending', 'sending', 'confirming', 'removing'))
    RETURNING ${COLUMNS}`);
}

/**
 * removing → removed, or back to paired with why it could not be removed (its outcome is then
 * no longer `paired`: the dashboard shows the reason beside the device).
 */
export async function finishRemoval(
  db: Db,
  id: string,
  result:
    { removed: true; now: Date } | { removed: false; outcome: PairingOutcome; message: string; now: Date },
): Promise<StreamPairing | null> {
  return result.removed
    ? db.maybeOne(sql.type(StreamPairing)`
        UPDATE stream_pairings SET state = 'removed', removed_at = ${ts(result.now)}, message = NULL,
          updated_at = ${ts(result.now)}
        WHERE id = ${id} AND state = 'removing'
        RETURNING ${COLUMNS}`)
    : db.maybeOne(sql.type(StreamPairing)`
        UPDATE stream_pairings SET state = 'paired', outcome = ${result.outcome}, message = ${result.message},
          updated_at = ${ts(result.now)}
        WHERE id = ${id} AND state = 'removing'
        RETURNING ${COLUMNS}`);
}

/** The devices of a machine as the dashboard lists them, and pairings that finished not long ago. */
export async function listPairings(db: Db, vmId: string): Promise<StreamPairing[]> {
  return [
    ...(await db.any(sql.type(StreamPairing)`
      SELECT ${COLUMNS} FROM stream_pairings WHERE vm_id = ${vmId} ORDER BY created_at DESC LIMIT 50`)),
  ];
}

/**
 * A device found paired in Sunshine's client list on the machine that no row of ours names: listed
 * as paired (`origin` machine), removable like the others. Nothing while a pairing or removal of
 * this machine is in flight (the list may be between two states) or when a row names it already.
 */
export async function insertFoundPairing(
  db: Db,
  input: { vmId: string; userId: string; uuid: string; name: string; host: string; now: Date },
): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.uuid() }))`
    INSERT INTO stream_pairings (vm_id, user_id, device_name, host, state, outcome, client_uuid, origin,
      created_at, updated_at, finished_at, paired_at)
    SELECT ${input.vmId}, ${input.userId}, ${input.name}, ${input.host}, 'paired', 'found-on-pc', ${input.uuid},
      'machine', ${ts(input.now)}, ${ts(input.now)}, ${ts(input.now)}, ${ts(input.now)}
    WHERE NOT EXISTS (
      SELECT 1 FROM stream_pairings o
      WHERE o.vm_id = ${input.vmId}
        AND (o.state IN ('pending', 'sending', 'confirming', 'removing')
             OR (o.state = 'paired' AND o.client_uuid = ${input.uuid})))
    ON CONFLICT DO NOTHING
    RETURNING id`);
  return row !== null;
}

/**
 * Devices Sunshine no longer knows (removed in its own page, or a fresh disk): no longer listed.
 * Only those still paired and paired before the list was read.
 */
export async function markPairingsGone(db: Db, ids: string[], readAt: Date, now: Date): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.any(sql.type(z.object({ id: z.uuid() }))`
    UPDATE stream_pairings SET state = 'removed', removed_at = ${ts(now)}, message = NULL, updated_at = ${ts(now)}
    WHERE id = ANY(${sql.array(ids, 'uuid')}) AND state = 'paired' AND coalesce(paired_at, created_at) < ${ts(readAt)}
    RETURNING id`);
  return rows.length;
}
