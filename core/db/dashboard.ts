import { z } from 'zod';
import type { MachineHealthReport } from '../domain/machineHealth.ts';
import { PAIRING_STATES } from '../domain/streaming.ts';
import { SECRETS_OF_VM } from './machineSecrets.ts';
import { sql } from './pool.ts';
import { textRows, type TextRowsDb } from './textRows.ts';
import { currentSubscriptionOf, Subscription } from './subscriptions.ts';
import { dashboardVmOf, Vm } from './vms.ts';
import { MANDATE_STATUSES, RENEWAL_STATES } from '../domain/autopay.ts';

/**
 * Everything the dashboard shows, in one statement: the signed-in user's name and email (fresh,
 * even when the session came from the cache), their current subscription, the VM the
 * dashboard shows, the disk kept from an expired one and their automatic renewal. The dashboard is polled, so this is the one round trip a poll makes. The
 * subscription and VM are chosen by the same fragments `findCurrentSubscription` and
 * `findDashboardVm` use, so the rule for "which one" lives in one place.
 */

/** The subscription fields the dashboard shows or decides by (fewer columns, less to parse per poll). */
export const DashboardSubscription = Subscription.pick({
  id: true,
  plan_id: true,
  status: true,
  plan_name: true,
  hours: true,
  storage_gb: true,
  price_paise: true,
  purchased_at: true,
  expires_at: true,
  cancelled_at: true,
});
export type DashboardSubscription = z.infer<typeof DashboardSubscription>;

/** The VM fields the dashboard shows or decides by. */
export const DashboardVm = Vm.pick({
  id: true,
  subscription_id: true,
  state: true,
  state_changed_at: true,
  source: true,
  instance_id: true,
  instance_type: true,
  public_ip: true,
  password_encrypted: true,
  usage_seconds: true,
  usage_counted_at: true,
  started_at: true,
  problem: true,
  delayed_at: true,
  remote_desktop_waiting_since: true,
  state_reason: true,
  resize_to_type: true,
  resize_to_gb: true,
  restore_snapshot_id: true,
  requested_at: true,
});
export type DashboardVm = z.infer<typeof DashboardVm>;

/** The customer's latest kept disk (a snapshot in the making or kept), if any. */
export const DashboardKeptDisk = z.object({
  id: z.uuid(),
  state: z.enum(['creating', 'completed']),
  created_at: z.date(),
  completed_at: z.date().nullable(),
  keep_until: z.date(),
});
export type DashboardKeptDisk = z.infer<typeof DashboardKeptDisk>;

/** The machine's last accepted health report (game streaming), as the statement reads it. */
export const DashboardHealthRow = z.object({
  received_at: z.date(),
  report: z.record(z.string(), z.unknown()),
  stream_host_unreachable_at: z.date().nullable(),
});

/** The machine's last accepted health report (game streaming). */
export type DashboardHealth = {
  receivedAt: Date;
  report: MachineHealthReport;
  streamHostUnreachableAt: Date | null;
};

/** Moonlight devices paired with the machine, and pairings in flight or finished in the last minutes. */
export const DashboardPairing = z.object({
  id: z.uuid(),
  name: z.string(),
  state: z.enum(PAIRING_STATES),
  outcome: z.string().nullable(),
  message: z.string().nullable(),
  createdAt: z.string(),
  pairedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  removedAt: z.string().nullable().default(null),
  /** `machine`: found in Sunshine's client list on the PC, not paired from the dashboard. */
  origin: z.enum(['dashboard', 'machine']).default('dashboard'),
});
export type DashboardPairing = z.infer<typeof DashboardPairing>;

/** The customer's latest AutoPay mandate (not an unpaid checkout's) and its latest renewal. */
export const DashboardAutopay = z.object({
  id: z.uuid(),
  status: z.enum(MANDATE_STATUSES),
  amount_paise: z.number().int(),
  method: z.enum(['upi', 'card']).nullable(),
  next_debit_at: z.date().nullable(),
  problem: z.string().nullable(),
  renewal_state: z.enum(RENEWAL_STATES).nullable(),
  notice_sent_at: z.date().nullable(),
  debit_at: z.date().nullable(),
  next_attempt_at: z.date().nullable(),
  failure_reason: z.string().nullable(),
  renewal_at: z.date().nullable(),
});
export type DashboardAutopay = z.infer<typeof DashboardAutopay>;

export type DashboardState = {
  user: { email: string; name: string };
  subscription: DashboardSubscription | null;
  vm: DashboardVm | null;
  /** Null also while the record would not show it (a live machine not waiting for a disk copy). */
  keptDisk: DashboardKeptDisk | null;
  /** Whether the machine was launched with secrets of its own (it can report its health and pair). */
  reportsHealth: boolean;
  /** Null and empty also while the record would not show them (no secrets, or the machine is being deleted). */
  health: DashboardHealth | null;
  /** The machine's clock ran ahead of ours on its last refused report (null also while not shown). */
  clockAhead: { seconds: number; observedAt: Date } | null;
  pairings: DashboardPairing[];
  autopay: DashboardAutopay | null;
  /** The machine's DNS name (machine_names), when it has one. */
  name: { label: string; pointsTo: string | null; released: boolean } | null;
};

/** `col, …` for every field of a row schema: what a lateral subquery reads (not `*`, which its sort would carry whole). */
function columnsOf(schema: z.ZodObject) {
  return sql.join(
    Object.keys(schema.shape).map((column) => sql.identifier([column])),
    sql.fragment`, `,
  );
}

/**
 * Reads back one part of the row: the JSON object `to_json(alias)` made of a joined subquery's
 * row (null when none joined), its timestamps turned back into Dates. One JSON column per part
 * rather than a column per field: the web process parses four strings instead of describing,
 * typing and copying some fifty columns on every poll.
 *
 * Not checked against `schema` per poll: the row is our own, its columns typed and constrained
 * by the database, and checking some fifty fields on every poll cost more web CPU than the rest
 * of the poll's own work. The schemas still say what each part holds (its subquery reads the
 * schema's columns), and tests/integration/dashboard-row.test.ts checks real rows against them.
 */
function part<S extends z.ZodObject>(schema: S) {
  // Worked out once: which fields are timestamps (z.date(), nullable or not).
  const dates = Object.entries(schema.shape)
    .filter(([, field]) => (field instanceof z.ZodNullable ? field.unwrap() : field) instanceof z.ZodDate)
    .map(([name]) => name);
  return (value: unknown): z.infer<S> | null => {
    if (value === null || value === undefined) return null;
    const fields = value as Record<string, unknown>;
    for (const name of dates) {
      const at = fields[name];
      if (typeof at === 'string') fields[name] = new Date(at);
    }
    return fields as z.infer<S>;
  };
}
const subscriptionOf = part(DashboardSubscription);
const vmOf = part(DashboardVm);
const keptDiskOf = part(DashboardKeptDisk);
const autopayOf = part(DashboardAutopay);
const healthOf = part(DashboardHealthRow);
const clockOf = part(z.object({ ahead_seconds: z.number().int(), observed_at: z.date() }));

/** The statement's columns: the user's email and name, then each part one JSON column. */
const DASHBOARD_COLUMNS = [
  'email',
  'name',
  's',
  'v',
  'k',
  'a',
  'reports_health',
  'h',
  'ck',
  'stream_pairings',
  'n_label',
  'n_points_to',
  'n_released',
  'snapshot',
  'leaves_at',
] as const;
type DashboardColumn = (typeof DASHBOARD_COLUMNS)[number];

/** At most this many Moonlight devices are shown, the newest first. */
const PAIRINGS_SHOWN = 20;

/** The pairings the statement read (unordered: sorting them there cost more than here), newest first. */
function newestPairings(value: unknown): DashboardPairing[] {
  if (!Array.isArray(value)) return [];
  const pairings = value as DashboardPairing[];
  if (pairings.length > 1) pairings.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  return pairings.length > PAIRINGS_SHOWN ? pairings.slice(0, PAIRINGS_SHOWN) : pairings;
}
// Parts read only when the record can show them (core/domain/machineView.ts and
// api/presenters/vm.ts), so most polls (a customer with a live machine) skip their scans:
// conditions on the machine row alone become one-time filters in the plan, and a part whose
// filter is false is never executed. Each is the record's own condition for using the part, or
// wider; never narrower.
// The kept disk: shown when the machine is gone (`isGone`), used while a new machine waits
// for a copy of the old one's disk (`waitingForDiskCopy`, which needs `restore_snapshot_id`). A
// customer with no machine at all (v.id IS NULL) has no disk copy either: a copy names its
// machine (vm_snapshots.vm_id references vms, whose rows are never deleted).
const KEPT_DISK_SHOWN = sql.fragment`(v.state IN ('terminating', 'terminated', 'error')
        OR v.restore_snapshot_id IS NOT NULL)`;
// AutoPay: shown for a customer's latest mandate that left 'pending'; `autopay_since` is set (by
// a trigger, sql/0075) the first time one did, so everyone who never set AutoPay up skips it.
const AUTOPAY_SHOWN = sql.fragment`u.autopay_since IS NOT NULL`;
// The health report and pairings: shown only for a machine launched with secrets of its own
// (`reportsHealth`) that is not being deleted (`streamingFields`). (The health part's LIMIT 1, at
// most one row by its key anyway, keeps the planner from folding it into a plain join, where the
// condition would filter after the scan instead of before it.)
const STREAMING_SHOWN = sql.fragment`ms.launch_token IS NOT NULL
        AND v.state NOT IN ('terminating', 'terminated', 'error')`;
// Pairings shown whatever their age (paired, or a step under way); any other is shown for this
// long after its last change. The one part of the record that changes with time alone: the
// statement also answers when the first of those leaves it (`leaves_at`), so a kept record is
// read again then (below).
const PAIRINGS_HELD = sql.fragment`'paired', 'removing', 'pending', 'sending', 'confirming'`;
const PAIRINGS_FINISHED_SHOWN = sql.fragment`interval '10 minutes'`;
// Built once: everything but the user's id, which the statement names once (the subscription,
// VM and kept disk are found from `u.id`). Composing the fragments on every poll cost more
// than the poll's query took to run.
const DASHBOARD_SELECT = sql.fragment`
    SELECT u.email, u.name, to_json(s) AS s, to_json(v) AS v, to_json(k) AS k, to_json(a) AS a,
      ms.launch_token IS NOT NULL AS reports_health, to_json(h) AS h, to_json(ck) AS ck,
      sp.pairings AS stream_pairings, mn.label AS n_label, mn.points_to AS n_points_to,
      mn.released_at IS NOT NULL AS n_released, pg_current_snapshot() AS snapshot, sp.leaves_at
    FROM users u
    LEFT JOIN LATERAL (
      SELECT ${columnsOf(DashboardSubscription)} ${currentSubscriptionOf(sql.fragment`u.id`)}) s ON true
    LEFT JOIN LATERAL (SELECT ${columnsOf(DashboardVm)} ${dashboardVmOf(sql.fragment`u.id`)}) v ON true
    LEFT JOIN LATERAL (
      SELECT ${columnsOf(DashboardKeptDisk)} FROM vm_snapshots
      WHERE user_id = u.id AND state IN ('creating', 'completed') AND ${KEPT_DISK_SHOWN}
      ORDER BY created_at DESC LIMIT 1) k ON true
    LEFT JOIN LATERAL (
      SELECT m.id, m.status, m.amount_paise, m.method, m.next_debit_at, m.problem, r.state AS renewal_state,
        r.notice_sent_at, r.debit_at, r.next_attempt_at, r.failure_reason, r.renewal_at
      FROM autopay_mandates m LEFT JOIN autopay_renewals r ON r.id = m.latest_renewal_id
      WHERE m.user_id = u.id AND m.status <> 'pending' AND ${AUTOPAY_SHOWN}
      ORDER BY m.created_at DESC LIMIT 1) a ON true
    LEFT JOIN ${SECRETS_OF_VM}
    LEFT JOIN LATERAL (
      SELECT received_at, report, stream_host_unreachable_at FROM machine_health
      WHERE vm_id = v.id AND ${STREAMING_SHOWN}
      LIMIT 1) h ON true
    LEFT JOIN LATERAL (
      SELECT ahead_seconds, observed_at FROM machine_clocks
      WHERE vm_id = v.id AND ${STREAMING_SHOWN}
      LIMIT 1) ck ON true
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', p.id, 'name', p.device_name, 'state', p.state,
               'outcome', p.outcome, 'message', p.message, 'createdAt', p.created_at, 'pairedAt', p.paired_at,
               'finishedAt', p.finished_at, 'removedAt', coalesce(p.remove_requested_at, p.removed_at),
               'origin', p.origin)) AS pairings,
             min(p.updated_at) FILTER (WHERE p.state NOT IN (${PAIRINGS_HELD})) + ${PAIRINGS_FINISHED_SHOWN}
               AS leaves_at
      FROM stream_pairings p WHERE p.vm_id = v.id AND ${STREAMING_SHOWN}
        AND (p.state IN (${PAIRINGS_HELD}) OR p.updated_at > now() - ${PAIRINGS_FINISHED_SHOWN})) sp ON true
    LEFT JOIN machine_names mn ON mn.vm_id = v.id`;

// The statement's text and parameters, rendered once by slonik (the fragments above, with the
// rule for "which subscription" and "which machine" where it lives); the user's id fills its slot.
const USER_ID_SLOT = '00000000-0000-4000-8000-000000000000';
const DASHBOARD_QUERY = sql.unsafe`${DASHBOARD_SELECT} WHERE u.id = ${USER_ID_SLOT} AND u.deleted_at IS NULL`;
const USER_ID_INDEX = DASHBOARD_QUERY.values.indexOf(USER_ID_SLOT);
// Slonik writes its placeholders `$slonik_N` and makes them `$N` as it sends a query; so does this.
const DASHBOARD_TEXT = DASHBOARD_QUERY.sql.replaceAll('$slonik_', '$');

/** The statement for `userId`'s dashboard: its name (prepared once per connection), text and values. */
export function dashboardStatement(userId: string): { name: string; text: string; values: unknown[] } {
  const values = [...DASHBOARD_QUERY.values];
  values[USER_ID_INDEX] = userId;
  return { name: 'dashboard_state', text: DASHBOARD_TEXT, values };
}

/** What the statement runs on: a `pg` pool or client (the web process's `pgPool`). */
export type DashboardDb = TextRowsDb;

/** Where each column is in the statement's rows, worked out from its first answer. */
let columnAt: Record<DashboardColumn, number> | undefined;

function columnPositions(columns: string[]): Record<DashboardColumn, number> {
  const positions = Object.fromEntries(columns.map((name, i) => [name, i]));
  for (const name of DASHBOARD_COLUMNS) {
    if (!(name in positions)) throw new Error(`the dashboard statement has no column ${name}`);
  }
  return positions as Record<DashboardColumn, number>;
}

/** The machine's clock as its last refused report showed it, in the record's terms. */
function clockAt(clock: { ahead_seconds: number; observed_at: Date } | null): DashboardState['clockAhead'] {
  return clock ? { seconds: clock.ahead_seconds, observedAt: clock.observed_at } : null;
}

/** Postgres's text of a json column, parsed (null stays null). */
function json(text: string | null | undefined): unknown {
  return text === null || text === undefined ? null : JSON.parse(text);
}

/**
 * The record as the statement reads it, and the snapshot it was read at (`pg_current_snapshot()`,
 * the statement's own) with when its first finished pairing leaves it. Null when the user does
 * not exist or was deleted. A named prepared statement: each pooled connection parses and plans it
 * once, later reads send only the name and the user id.
 *
 * Sent through `pg` directly rather than slonik: it is the statement polls are made of, and
 * slonik's query path (its interceptors, query ids, result wrapping) cost the poll's web process
 * more than pg's own work. Its row is read as Postgres's texts (core/db/textRows.ts) and each
 * part's JSON parsed here, as pg's json parser would; dashboard-row.test.ts checks real rows.
 * (Exported for the bench, scripts/bench/pollPaths.ts; the app reads through findDashboardState.)
 */
export async function readDashboardState(
  db: DashboardDb,
  userId: string,
): Promise<{ state: DashboardState; snapshot: string; leavesAt: string | null } | null> {
  const { columns, rows } = await textRows(db, dashboardStatement(userId));
  const row = rows[0];
  if (!row) return null;
  const at = (columnAt ??= columnPositions(columns));
  const vm = vmOf(json(row[at.v]));
  const health = healthOf(json(row[at.h]));
  const state: DashboardState = {
    user: { email: row[at.email]!, name: row[at.name]! },
    subscription: subscriptionOf(json(row[at.s])),
    vm,
    keptDisk: keptDiskOf(json(row[at.k])),
    reportsHealth: vm !== null && row[at.reports_health] === 't',
    // Validated when it was accepted (api/routes/machineHealth.ts); stored as it came.
    health: health
      ? {
          receivedAt: health.received_at,
          report: health.report as MachineHealthReport,
          streamHostUnreachableAt: health.stream_host_unreachable_at,
        }
      : null,
    clockAhead: clockAt(clockOf(json(row[at.ck]))),
    pairings: newestPairings(json(row[at.stream_pairings])),
    autopay: autopayOf(json(row[at.a])),
    name: row[at.n_label]
      ? {
          label: row[at.n_label]!,
          pointsTo: row[at.n_points_to] ?? null,
          released: row[at.n_released] === 't',
        }
      : null,
  };
  return { state, snapshot: row[at.snapshot]!, leavesAt: row[at.leaves_at] ?? null };
}

/**
 * Whether anything of the customer's record may differ from what was read at `snapshot`: a
 * transaction that snapshot did not see has written one of the record's rows (sql/0076 notes
 * every such write, by trigger, in `dashboard_changes`), or a finished pairing has left it by
 * now. One index probe: only notes of transactions at or after the snapshot's oldest are read.
 */
const CHANGED = {
  name: 'dashboard_changed',
  text: `SELECT EXISTS (
      SELECT 1 FROM dashboard_changes
      WHERE user_id = $1 AND xid >= pg_snapshot_xmin($2::pg_snapshot)
        AND NOT pg_visible_in_snapshot(xid, $2::pg_snapshot))
    OR now() >= coalesce($3::timestamptz, 'infinity') AS changed`,
};

/**
 * A record this process read, kept to answer later polls while nothing of it changed. Asked
 * about for this long after it was read, then read again whatever the answer: a running
 * machine's record changes every minute anyway (the sweep counts its hours), so a poll that far
 * apart would only pay for the question; and it bounds how long a change made without a note
 * (a TRUNCATE, a note forgotten under a transaction open for an hour) could go unseen.
 */
const KEPT_FOR_MS = 30_000;
/** At most this many customers' records kept per pool (the oldest read is dropped first), and none older than that. */
const KEPT_MAX = 10_000;
type Kept = { state: DashboardState; snapshot: string; leavesAt: string | null; readAt: number };
const keptBy = new WeakMap<DashboardDb, Map<string, Kept>>();

/**
 * The customer's dashboard state; null when the user does not exist or was deleted. Most polls
 * find nothing changed since this process last read it: those ask one question (`CHANGED`) and
 * answer the record kept from that reading, which is the statement's reading at a snapshot
 * after which nothing of it was written. Everything that depends on the time is worked out from
 * it per request (api/presenters/vm.ts), as from a fresh reading. The record is shared between
 * the polls that get it: never modified after it is read.
 */
export async function findDashboardState(db: DashboardDb, userId: string): Promise<DashboardState | null> {
  let kept = keptBy.get(db);
  if (!kept) keptBy.set(db, (kept = new Map()));
  const asked = performance.now();
  const last = kept.get(userId);
  if (last && asked - last.readAt < KEPT_FOR_MS) {
    const { rows } = await textRows(db, { ...CHANGED, values: [userId, last.snapshot, last.leavesAt] });
    if (rows[0]?.[0] === 'f') return last.state;
  }
  const read = await readDashboardState(db, userId);
  kept.delete(userId);
  if (!read) return null;
  // Oldest reading first (each is set anew when read): those past asking about are dropped.
  for (const [id, entry] of kept) {
    if (kept.size < KEPT_MAX && asked - entry.readAt < KEPT_FOR_MS) break;
    kept.delete(id);
  }
  kept.set(userId, { ...read, readAt: asked });
  return read.state;
}
