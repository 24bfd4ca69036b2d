import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { z } from 'zod';
import type { Logger } from '../observability/log.ts';
import { sql, type Db } from './pool.ts';
import { clearSessionCache, forgetCachedSession, trustSessionCache } from './sessionCache.ts';

/**
 * Revoked sessions, told to every web process at once. Each web process keeps the sessions it
 * read in memory for a few seconds (core/db/sessionCache.ts). A logout, password reset or
 * account deletion is announced on a Postgres channel in the statement or transaction that
 * revokes (NOTIFY is delivered when it commits); every web process listens, forgets those
 * sessions and acknowledges on a second channel. The request that revoked answers only once
 * every listening process acknowledged (or after ACK_TIMEOUT_MS), so the next request, to
 * whichever process, is refused. Postgres hands a notification to each listening connection
 * on its own schedule: without the acknowledgements another process answered from memory in
 * about 1 request in 100 right after a logout.
 */

export const SESSION_REVOKED_CHANNEL = 'legend_session_revoked';
export const SESSION_REVOKED_ACK_CHANNEL = 'legend_session_revoked_ack';
/** The listeners' connection name, by which an announcer counts who must acknowledge. */
const LISTENER_NAME = 'legend-web-sessions';
/** How long a request that revoked sessions waits at most for the acknowledgements. */
const ACK_TIMEOUT_MS = 1000;

const Forgotten = z.union([
  z.object({ tokenHash: z.string().min(1).max(200) }),
  z.object({ userId: z.uuid() }),
]);
type Forgotten = z.infer<typeof Forgotten>;
const Announcement = z.intersection(Forgotten, z.object({ id: z.uuid().optional() }));

/** This process's announcements still waiting for acknowledgements: id → how many are missing. */
const awaiting = new Map<string, { missing: number; done: () => void }>();
let pending: Promise<void>[] = [];
let listenersHere = 0;

/**
 * Forgets the sessions here and announces it to every web process (on commit, when `db` is a
 * transaction). Where this process listens, the request then waits in `revocationsAcknowledged`.
 */
export async function announceRevoked(db: Db, which: Forgotten): Promise<void> {
  forgetCachedSession(which);
  const id = randomUUID();
  if (listenersHere > 0) {
    const listeners = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE application_name = ${LISTENER_NAME} AND datname = current_database()`);
    if (listeners > 0) {
      pending.push(new Promise<void>((done) => awaiting.set(id, { missing: listeners, done })));
    }
  }
  await db.query(
    sql.unsafe`SELECT pg_notify(${SESSION_REVOKED_CHANNEL}, ${JSON.stringify({ ...which, id })})`,
  );
}

/**
 * Waits until every web process acknowledged this process's announcements so far (at most
 * ACK_TIMEOUT_MS: an announcement whose transaction rolled back is never delivered, and a
 * process may be dying). The web process calls it before answering each request; without
 * announcements it costs nothing.
 */
export async function revocationsAcknowledged(): Promise<void> {
  if (pending.length === 0) return;
  const waiting = pending;
  pending = [];
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(waiting),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ACK_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  // Whatever was not acknowledged by now will not be waited for again.
  if (awaiting.size > 1000) awaiting.clear();
}

/** How long to wait before listening again after the connection was lost: 1 s, doubling to 30 s. */
function relistenDelayMs(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
}

function readJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return null; // refused by the schema, and logged, by the caller
  }
}

export type RevocationListener = { close(): Promise<void>; listening(): boolean };

/**
 * Listens for revocations on a connection of its own, forgets the sessions they name and
 * acknowledges each. The cache answers nothing until the first LISTEN succeeds and whenever the
 * connection is lost (announcements may be missed then); it is cleared and trusted again once
 * listening again.
 */
export function listenForRevocations(databaseUrl: string, log: Logger): RevocationListener {
  let client: pg.Client | undefined;
  let closed = false;
  let ready = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  trustSessionCache(false);

  const setReady = (value: boolean) => {
    if (ready !== value) listenersHere += value ? 1 : -1;
    ready = value;
  };

  const lost = (error: unknown) => {
    if (closed) return;
    setReady(false);
    trustSessionCache(false);
    failures++;
    const delay = relistenDelayMs(failures);
    log.warn(
      { err: error, retryInMs: delay },
      'session revocation listener lost; sessions are read from the database meanwhile',
    );
    void drop(client);
    client = undefined;
    retry = setTimeout(() => void connect(), delay);
  };

  const heard = (connection: pg.Client, payload: string | undefined) => {
    const parsed = Announcement.safeParse(readJson(payload));
    if (!parsed.success) {
      log.warn({ payload }, 'unreadable session revocation; clearing the session cache');
      clearSessionCache();
      return;
    }
    const { id, ...which } = parsed.data;
    forgetCachedSession(which as Forgotten);
    if (!id) return;
    connection
      .query('SELECT pg_notify($1, $2)', [SESSION_REVOKED_ACK_CHANNEL, id])
      .catch((error: unknown) => log.warn({ err: error }, 'could not acknowledge a session revocation'));
  };

  const acknowledged = (id: string | undefined) => {
    const entry = id ? awaiting.get(id) : undefined;
    if (!entry || !id) return;
    entry.missing--;
    if (entry.missing <= 0) {
      awaiting.delete(id);
      entry.done();
    }
  };

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: databaseUrl, application_name: LISTENER_NAME });
    client = next;
    next.on('error', lost);
    next.on('end', () => lost(new Error('listener connection ended')));
    next.on('notification', (message) => {
      if (message.channel === SESSION_REVOKED_CHANNEL) heard(next, message.payload);
      else if (message.channel === SESSION_REVOKED_ACK_CHANNEL) acknowledged(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${SESSION_REVOKED_CHANNEL}`);
      await next.query(`LISTEN ${SESSION_REVOKED_ACK_CHANNEL}`);
    } catch (error) {
      if (client === next) lost(error);
      return;
    }
    if (closed || client !== next) return;
    // Whatever was announced while we were not listening is unknown: start from the database.
    clearSessionCache();
    trustSessionCache(true);
    setReady(true);
    if (failures > 0) log.info('session revocation listener back');
    failures = 0;
  };

  /** Ends a connection we no longer use; a failure to end it is only worth a debug line. */
  async function drop(connection: pg.Client | undefined): Promise<void> {
    if (!connection) return;
    connection.removeAllListeners();
    connection.on('error', (error) => log.debug({ err: error }, 'listener connection error while closing'));
    try {
      await connection.end();
    } catch (error) {
      log.debug({ err: error }, 'closing the listener connection');
    }
  }

  void connect();
  return {
    listening: () => ready,
    async close() {
      closed = true;
      setReady(false);
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await drop(current);
    },
  };
}
