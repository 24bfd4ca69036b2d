import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DashboardAutopay,
  DashboardKeptDisk,
  DashboardPairing,
  DashboardSubscription,
  DashboardVm,
  dashboardStatement,
  findDashboardState,
  type DashboardState,
} from '../../core/db/dashboard.ts';
import { loadConfig } from '../../core/config/config.ts';
import { MANDATE_STATUSES, RENEWAL_STATES } from '../../core/domain/autopay.ts';
import { LIVE_STATES, MACHINE_STATES } from '../../core/domain/machineStates.ts';
import type { MachineHealthReport } from '../../core/domain/machineHealth.ts';
import { PAIRING_STATES } from '../../core/domain/streaming.ts';
import { dashboardBody } from '../../api/presenters/vm.ts';
import { freshDatabase } from '../support/db.ts';
import { waitFor } from '../support/waitFor.ts';

/**
 * The poll's statement takes shortcuts (parts read only when the record can show them, AutoPay
 * only for customers who ever had a mandate, pairings ordered in the web process, its row read as
 * Postgres's texts). None may change what a record says: for random customers, the record made
 * from it equals the record made from the plain reading, each part asked for on its own in the
 * obvious way, every part always read, parsed by pg and checked by its schema.
 */

const databaseUrl = await freshDatabase();
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
// The statement runs on a plain pg pool, as the web process's pgPool runs it.
const pgPool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
afterAll(async () => {
  await pgPool.end();
  await client.end();
});
const vmConfig = loadConfig({
  DATABASE_URL: databaseUrl,
  APP_SECRET: 'property-test-secret-property-test-secret-0',
}).vm;

/** Plain SQL, every part for itself, the rules as written: no gate, sorted and limited here. */
async function plainState(userId: string): Promise<DashboardState | null> {
  const one = async (text: string, values: unknown[]) => (await client.query(text, values)).rows[0] ?? null;
  const user = await one('SELECT email, name FROM users WHERE id = $1 AND deleted_at IS NULL', [userId]);
  if (!user) return null;
  const columns = (schema: { shape: object }) => Object.keys(schema.shape).join(', ');
  const subscription = await one(
    `SELECT ${columns(DashboardSubscription)} FROM subscriptions
     WHERE user_id = $1 AND purchased_at IS NOT NULL AND status IN ('active', 'expired')
     ORDER BY purchased_at DESC, id DESC LIMIT 1`,
    [userId],
  );
  const vm = await one(
    `SELECT ${columns(DashboardVm)} FROM vms WHERE user_id = $1
     ORDER BY (state = ANY ($2)) DESC, created_at DESC LIMIT 1`,
    [userId, [...LIVE_STATES]],
  );
  const keptDisk = await one(
    `SELECT ${columns(DashboardKeptDisk)} FROM vm_snapshots
     WHERE user_id = $1 AND state IN ('creating', 'completed') ORDER BY created_at DESC LIMIT 1`,
    [userId],
  );
  const autopay = await one(
    `SELECT m.id, m.status, m.amount_paise, m.method, m.next_debit_at, m.problem, r.state AS renewal_state,
       r.notice_sent_at, r.debit_at, r.next_attempt_at, r.failure_reason, r.renewal_at
     FROM autopay_mandates m LEFT JOIN autopay_renewals r ON r.id = m.latest_renewal_id
     WHERE m.user_id = $1 AND m.status <> 'pending' ORDER BY m.created_at DESC LIMIT 1`,
    [userId],
  );
  const secrets =
    vm &&
    (await one(
      `SELECT 1 FROM machine_secrets WHERE launch_token =
         COALESCE((SELECT id FROM pool_instances WHERE instance_id = $1), $2)`,
      [vm.instance_id, vm.id],
    ));
  const health =
    vm &&
    (await one(
      'SELECT received_at, report, stream_host_unreachable_at FROM machine_health WHERE vm_id = $1',
      [vm.id],
    ));
  const clock =
    vm && (await one('SELECT ahead_seconds, observed_at FROM machine_clocks WHERE vm_id = $1', [vm.id]));
  const name =
    vm && (await one('SELECT label, points_to, released_at FROM machine_names WHERE vm_id = $1', [vm.id]));
  // Timestamps written as Postgres writes them in JSON, as the record has always carried them.
  const pairings = vm
    ? (
        await client.query(
          `SELECT json_build_object('id', id, 'name', device_name, 'state', state, 'outcome', outcome,
                    'message', message, 'createdAt', created_at, 'pairedAt', paired_at, 'finishedAt', finished_at,
                    'removedAt', coalesce(remove_requested_at, removed_at), 'origin', origin) AS p
           FROM stream_pairings WHERE vm_id = $1
             AND (state IN ('paired', 'removing', 'pending', 'sending', 'confirming')
                  OR updated_at > now() - interval '10 minutes')
           ORDER BY created_at DESC LIMIT 20`,
          [vm.id],
        )
      ).rows.map((row) => row.p)
    : [];
  return {
    user: { email: user.email, name: user.name },
    subscription: subscription && DashboardSubscription.parse(subscription),
    vm: vm && DashboardVm.parse(vm),
    keptDisk: keptDisk && DashboardKeptDisk.parse(keptDisk),
    reportsHealth: Boolean(vm && secrets),
    health: health && {
      receivedAt: health.received_at,
      report: health.report as MachineHealthReport,
      streamHostUnreachableAt: health.stream_host_unreachable_at,
    },
    clockAhead: clock && { seconds: clock.ahead_seconds, observedAt: clock.observed_at },
    pairings: pairings.map((p) => DashboardPairing.parse(p)),
    autopay: autopay && DashboardAutopay.parse(autopay),
    name: name && { label: name.label, pointsTo: name.points_to, released: name.released_at !== null },
  };
}

// Minutes before now; the pairings' 10-minute window is never met at its edge.
const minutesAgo = fc.constantFrom(1, 4, 30, 600, 3000, 50_000);

const Customer = fc.record({
  plans: fc.array(
    fc.record({
      status: fc.constantFrom('active', 'expired', 'pending_payment', 'cancelled'),
      trial: fc.boolean(),
      boughtMinutesAgo: minutesAgo,
      endsInDays: fc.integer({ min: -40, max: 30 }),
    }),
    { maxLength: 3 },
  ),
  machines: fc.array(
    fc.record({
      state: fc.constantFrom(...MACHINE_STATES),
      madeMinutesAgo: minutesAgo,
      source: fc.constantFrom('launch', 'pool', null),
      secrets: fc.constantFrom('none', 'own', 'own', 'spare'),
      ip: fc.boolean(),
      password: fc.boolean(),
      health: fc.option(
        fc.record({
          minutesAgo,
          sunshineRunning: fc.boolean(),
          unreachable: fc.boolean(),
          height: fc.constantFrom(720, 1080, 1440),
        }),
      ),
      // Made at any time, written in any order: the record lists the newest first.
      pairings: fc.array(
        fc.record({
          state: fc.constantFrom(...PAIRING_STATES),
          minutesAgo,
          madeMinutesAgo: fc.integer({ min: 1, max: 100_000 }),
        }),
        { maxLength: 4 },
      ),
      copies: fc.array(
        fc.record({
          state: fc.constantFrom('creating', 'completed', 'restored', 'deleted', 'failed'),
          minutesAgo,
        }),
        { maxLength: 2 },
      ),
      restoresEarlierCopy: fc.boolean(),
      // A report refused for its clock (seconds ahead), and the machine's DNS name.
      clockAhead: fc.option(fc.integer({ min: 31, max: 3600 })),
      name: fc.option(fc.record({ pointed: fc.boolean(), released: fc.boolean() })),
    }),
    { maxLength: 3 },
  ),
  mandates: fc.array(
    fc.record({
      status: fc.constantFrom(...MANDATE_STATUSES),
      madeMinutesAgo: minutesAgo,
      renewal: fc.option(fc.constantFrom(...RENEWAL_STATES)),
    }),
    { maxLength: 2 },
  ),
});
type Customer = typeof Customer extends fc.Arbitrary<infer T> ? T : never;

const ago = (minutes: number) => `now() - make_interval(mins => ${minutes})`;

/** Writes `customer` as rows, every constraint of the schema kept; answers the user's id. */
async function insertCustomer(customer: Customer, n: number): Promise<string> {
  const q = async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows[0];
  const user = await q(`INSERT INTO users (email, name) VALUES ($1, $2) RETURNING id`, [
    `fast.${n}.${randomUUID().slice(0, 8)}@example.com`,
    `Customer ${n}`,
  ]);
  const userId: string = user.id;
  const subscriptions: string[] = [];
  let active = false;
  let trial = false;
  for (const plan of customer.plans) {
    const status: string = plan.status === 'active' && active ? 'expired' : plan.status;
    active ||= status === 'active';
    const bought = status === 'active' || status === 'expired';
    const isTrial: boolean = plan.trial && !(bought && trial);
    trial ||= isTrial && bought;
    const row = await q(
      `INSERT INTO subscriptions (user_id, plan_id, plan_name, is_trial, hours, storage_gb, instance_type,
                                  price_paise, status, purchased_at, expires_at, created_at)
       VALUES ($1, 'legend', $2, $3, $4, 115, 'g4dn.xlarge', 145000, $5,
               ${bought ? ago(plan.boughtMinutesAgo) : 'NULL'},
               ${bought ? `now() + make_interval(days => ${plan.endsInDays})` : 'NULL'}, ${ago(plan.boughtMinutesAgo + 2)})
       RETURNING id`,
      [userId, isTrial ? 'Trial' : 'LEGEND', isTrial, isTrial ? 1 : 30, status],
    );
    subscriptions.push(row.id);
  }
  // Machines and mandates need a subscription to name: a checkout never paid, which shows nowhere.
  const unpaid = async () =>
    (
      await q(
        `INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise)
         VALUES ($1, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000) RETURNING id`,
        [userId],
      )
    ).id as string;
  if (subscriptions.length === 0 && (customer.machines.length > 0 || customer.mandates.length > 0))
    subscriptions.push(await unpaid());

  let live = false;
  const copies: string[] = [];
  for (const [i, machine] of customer.machines.entries()) {
    const isLive = (LIVE_STATES as readonly string[]).includes(machine.state);
    const state: string = isLive && live ? 'terminated' : machine.state;
    live ||= isLive && state === machine.state;
    const needsInstance = ['starting', 'running', 'stopping', 'stopped'].includes(state);
    const instanceId =
      needsInstance || machine.secrets === 'spare' || i % 2 === 0 ? `i-${randomUUID().slice(0, 17)}` : null;
    const vm = await q(
      `INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, state_changed_at, source,
                        instance_id, public_ip, password_encrypted, usage_seconds, usage_counted_at, started_at,
                        restore_snapshot_id, created_at)
       VALUES ($1, $2, 'legend', 'g4dn.xlarge', 115, $3, ${ago(machine.madeMinutesAgo)}, $4, $5, $6, $7, $8,
               ${state === 'running' ? 'now()' : 'NULL'}, ${ago(machine.madeMinutesAgo)}, $9,
               ${ago(machine.madeMinutesAgo)})
       RETURNING id`,
      [
        userId,
        subscriptions[i % subscriptions.length],
        state,
        machine.source,
        instanceId,
        machine.ip ? `203.0.113.${(n % 200) + 1}` : null,
        machine.password ? 'sealed' : null,
        (n % 7) * 3600,
        machine.restoresEarlierCopy ? (copies.at(-1) ?? null) : null,
      ],
    );
    if (machine.secrets === 'own' || (machine.secrets === 'spare' && instanceId !== null)) {
      let token: string = vm.id;
      if (machine.secrets === 'spare') {
        token = (
          await q(
            `INSERT INTO pool_instances (plan_id, instance_type, storage_gb, image_id, state, instance_id, vm_id)
             VALUES ('legend', 'g4dn.xlarge', 115, 'ami-0', 'claimed', $1, $2) RETURNING id`,
            [instanceId, vm.id],
          )
        ).id;
      }
      await q(
        `INSERT INTO machine_secrets (launch_token, sunshine_username, sunshine_password_sealed, health_secret_sealed)
         VALUES ($1, 'sunshine', 'sealed', 'sealed')`,
        [token],
      );
    }
    if (machine.health) {
      const report: MachineHealthReport = {
        instanceId: instanceId ?? 'i-none',
        gpu: { name: 'NVIDIA T4', driverVersion: '553.24', licensed: true },
        display: { present: true, width: 2560, height: machine.health.height, refreshHz: 60 },
        sunshine: { running: machine.health.sunshineRunning, certSha256: 'ab'.repeat(32) },
        dcv: { running: true },
        rdp: { listening: true },
        disk: { freeBytes: 50e9, totalBytes: 120e9 },
      };
      await q(
        `INSERT INTO machine_health (vm_id, instance_id, reported_at, received_at, report, stream_host_unreachable_at)
         VALUES ($1, $2, ${ago(machine.health.minutesAgo)}, ${ago(machine.health.minutesAgo)}, $3,
                 ${machine.health.unreachable ? ago(1) : 'NULL'})`,
        [vm.id, report.instanceId, report],
      );
    }
    if (machine.clockAhead !== null)
      await q(`INSERT INTO machine_clocks (vm_id, ahead_seconds, observed_at) VALUES ($1, $2, ${ago(2)})`, [
        vm.id,
        machine.clockAhead,
      ]);
    if (machine.name)
      await q(
        `INSERT INTO machine_names (label, user_id, vm_id, points_to, written_at, released_at)
         VALUES ($1, $2, $3, $4, ${machine.name.pointed ? ago(3) : 'NULL'}, ${machine.name.released ? ago(1) : 'NULL'})`,
        [
          `pc-${randomUUID()
            .replace(/[^0-9a-hjkmnp-tv-z]/g, '')
            .padEnd(8, '0')
            .slice(0, 8)}`,
          userId,
          vm.id,
          machine.name.pointed ? `203.0.113.${(n % 200) + 1}` : null,
        ],
      );
    let inFlight = false;
    for (const [j, pairing] of machine.pairings.entries()) {
      const flying = ['pending', 'sending', 'confirming', 'removing'].includes(pairing.state);
      const pairingState = flying && inFlight ? 'failed' : pairing.state;
      inFlight ||= flying;
      await q(
        `INSERT INTO stream_pairings (vm_id, user_id, device_name, host, state, outcome, message, client_uuid,
                                      created_at, updated_at, finished_at, paired_at)
         VALUES ($1, $2, $3, '203.0.113.9', $4, $5, $6, $7, ${ago(pairing.madeMinutesAgo)}, ${ago(pairing.minutesAgo)},
                 ${flying ? 'NULL' : ago(pairing.minutesAgo)}, ${pairingState === 'paired' ? ago(pairing.minutesAgo) : 'NULL'})`,
        [vm.id, userId, `Device ${j}`, pairingState, flying ? null : pairingState, 'Said.', randomUUID()],
      );
    }
    let keptOne = false;
    for (const copy of machine.copies) {
      const kept = copy.state === 'creating' || copy.state === 'completed';
      const copyState = kept && keptOne ? 'deleted' : copy.state;
      keptOne ||= kept;
      const row = await q(
        `INSERT INTO vm_snapshots (user_id, vm_id, state, volume_gb, instance_type, created_at, completed_at, keep_until)
         VALUES ($1, $2, $3, 115, 'g4dn.xlarge', ${ago(copy.minutesAgo)},
                 ${copyState === 'creating' ? 'NULL' : ago(copy.minutesAgo)}, now() + interval '20 days')
         RETURNING id`,
        [userId, vm.id, copyState],
      );
      copies.push(row.id);
    }
  }

  let debitable = false;
  for (const [i, mandate] of customer.mandates.entries()) {
    const liveMandate = mandate.status === 'active' || mandate.status === 'paused';
    const status: string = liveMandate && debitable ? 'cancelled' : mandate.status;
    debitable ||= liveMandate && status === mandate.status;
    const payment = await q(
      `INSERT INTO payments (txnid, user_id, subscription_id, amount_paise, amount, productinfo)
       VALUES ($1, $2, $3, 145000, '1450.00', 'LEGEND') RETURNING id`,
      [`fast${n}m${i}${randomUUID().slice(0, 6)}`, userId, subscriptions[0]],
    );
    const row = await q(
      `INSERT INTO autopay_mandates (user_id, registration_payment_id, plan_id, plan_name, hours, storage_gb,
                                     instance_type, amount_paise, status, method, end_date, next_debit_at, created_at)
       VALUES ($1, $2, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000, $3, $4, current_date + 365,
               now() + interval '5 days', ${ago(mandate.madeMinutesAgo + i)})
       RETURNING id`,
      [userId, payment.id, status, status === 'pending' ? null : 'upi'],
    );
    if (mandate.renewal) {
      const renewal = await q(
        `INSERT INTO autopay_renewals (mandate_id, user_id, renews_subscription_id, period_key, renewal_at, debit_at,
                                       amount_paise, state, request_id, notice_sent_at)
         VALUES ($1, $2, $3, '2031-01-01', now() + interval '6 days', now() + interval '5 days', 145000, $4, $5, now())
         RETURNING id`,
        [row.id, userId, await unpaid(), mandate.renewal, `fast-${randomUUID()}`],
      );
      await q('UPDATE autopay_mandates SET latest_renewal_id = $1 WHERE id = $2', [renewal.id, row.id]);
    }
  }
  return userId;
}

/** The poll's record of `userId` (through the pool, which keeps what it read) is the plain reading's. */
async function expectPlainRecord(userId: string) {
  const fast = await findDashboardState(pgPool, userId);
  const plain = await plainState(userId);
  if (plain === null) {
    expect(fast).toBeNull();
    return;
  }
  expect(fast).not.toBeNull();
  const now = new Date();
  const record = (state: DashboardState) =>
    dashboardBody({ ...state, earlierPlanWasTrial: false, nameSuffix: 'play.example.test', vmConfig, now });
  expect(record(fast!)).toEqual(record(plain));
  expect(fast!.user).toEqual(plain.user);
  expect(fast!.subscription).toEqual(plain.subscription);
  expect(fast!.vm).toEqual(plain.vm);
  expect(fast!.reportsHealth).toBe(plain.reportsHealth);
  expect(fast!.autopay).toEqual(plain.autopay);
  if (fast!.reportsHealth && !['terminating', 'terminated', 'error'].includes(fast!.vm!.state)) {
    expect(fast!.pairings).toEqual(plain.pairings);
    expect(fast!.health).toEqual(plain.health);
    expect(fast!.clockAhead).toEqual(plain.clockAhead);
  }
}

/** The `pick`-th row (of those there are, in a fixed order) of the customer `$1`'s rows of a table. */
const nth = (rows: string) =>
  `(SELECT ctid FROM (${rows}) r ORDER BY ctid OFFSET $2::int % greatest(1, (SELECT count(*) FROM (${rows}) c)) LIMIT 1)`;
const ofUser = (table: string) => `SELECT ctid FROM ${table} WHERE user_id = $1`;
const ofMachines = (table: string) =>
  `SELECT ctid FROM ${table} WHERE vm_id IN (SELECT id FROM vms WHERE user_id = $1)`;

/**
 * A write to each kind of row the record is made of, as the app's code paths make them (and a
 * few that change nothing it shows). `$1` is the customer, `$2` picks which of their rows.
 */
const WRITES = {
  userName: `UPDATE users SET name = name || '.' WHERE id = $1 AND $2::int >= 0`,
  userDeleted: `UPDATE users SET deleted_at = now() WHERE id = $1 AND $2::int % 4 = 0`,
  userTouched: `UPDATE users SET updated_at = now() WHERE id = $1 AND $2::int >= 0`,
  planBought: `INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                 status, purchased_at, expires_at)
               SELECT $1, 'legend', 'PRO', 45, 115, 'g4dn.xlarge', 195000, 'expired', now(), now() - interval '1 day'
               WHERE $2::int >= 0`,
  planChanged: `UPDATE subscriptions SET status = CASE status WHEN 'active' THEN 'expired' ELSE status END,
                  expires_at = expires_at + interval '1 day', price_paise = price_paise + 100
                WHERE ctid = ${nth(ofUser('subscriptions'))}`,
  machineUsage: `UPDATE vms SET usage_seconds = usage_seconds + 60, usage_counted_at = now()
                 WHERE ctid = ${nth(ofUser('vms'))}`,
  machineEnded: `UPDATE vms SET state = 'terminated', state_changed_at = now() WHERE ctid = ${nth(ofUser('vms'))}`,
  machineSynced: `UPDATE vms SET synced_at = now(), updated_at = now() WHERE ctid = ${nth(ofUser('vms'))}`,
  machineMoved: `UPDATE vms SET instance_id = 'i-moved' || left(md5(id::text), 8)
                 WHERE ctid = ${nth(ofUser('vms'))} AND instance_id IS NOT NULL`,
  copyDeleted: `UPDATE vm_snapshots SET state = 'deleted', deleted_at = now() WHERE ctid = ${nth(ofUser('vm_snapshots'))}`,
  copyMade: `INSERT INTO vm_snapshots (user_id, vm_id, state, volume_gb, instance_type, created_at, keep_until)
             SELECT user_id, id, 'creating', 115, 'g4dn.xlarge', now(), now() + interval '20 days' FROM vms
             WHERE ctid = ${nth(ofUser('vms'))}
               AND id NOT IN (SELECT vm_id FROM vm_snapshots WHERE state IN ('creating', 'completed', 'restored'))`,
  mandateChanged: `UPDATE autopay_mandates SET amount_paise = amount_paise + 100, next_debit_at = now() + interval '9 days'
                   WHERE ctid = ${nth(ofUser('autopay_mandates'))}`,
  renewalChanged: `UPDATE autopay_renewals SET debit_at = debit_at + interval '1 day'
                   WHERE ctid = ${nth(ofUser('autopay_renewals'))}`,
  healthReported: `UPDATE machine_health SET received_at = now(), report = jsonb_set(report, '{display,height}', '2160')
                   WHERE ctid = ${nth(ofMachines('machine_health'))}`,
  healthForgotten: `DELETE FROM machine_health WHERE ctid = ${nth(ofMachines('machine_health'))}`,
  clockChanged: `UPDATE machine_clocks SET ahead_seconds = ahead_seconds + 1 WHERE ctid = ${nth(ofMachines('machine_clocks'))}`,
  clockForgotten: `DELETE FROM machine_clocks WHERE ctid = ${nth(ofMachines('machine_clocks'))}`,
  pairingRenamed: `UPDATE stream_pairings SET device_name = device_name || ' 2', updated_at = now()
                   WHERE ctid = ${nth(ofMachines('stream_pairings'))}`,
  pairingAged: `UPDATE stream_pairings SET updated_at = now() - interval '11 minutes'
                WHERE ctid = ${nth(ofMachines('stream_pairings'))}`,
  pairingRemoved: `DELETE FROM stream_pairings WHERE ctid = ${nth(ofMachines('stream_pairings'))}`,
  nameChanged: `UPDATE machine_names SET points_to = CASE WHEN points_to IS NULL THEN '203.0.113.200' END,
                  released_at = CASE WHEN released_at IS NULL THEN now() END
                WHERE ctid = ${nth(ofMachines('machine_names'))}`,
  nameRemoved: `DELETE FROM machine_names WHERE ctid = ${nth(ofMachines('machine_names'))}`,
  secretsRemoved: `DELETE FROM machine_secrets WHERE $2::int >= 0 AND launch_token IN (
                     SELECT id FROM vms WHERE user_id = $1
                     UNION ALL SELECT p.id FROM pool_instances p JOIN vms v ON v.instance_id = p.instance_id
                     WHERE v.user_id = $1)`,
  spareReleased: `UPDATE pool_instances SET instance_id = NULL
                  WHERE $2::int >= 0 AND instance_id IN (SELECT instance_id FROM vms WHERE user_id = $1)`,
} as const;
const Write = fc.record({
  table: fc.constantFrom(...(Object.keys(WRITES) as Array<keyof typeof WRITES>)),
  pick: fc.nat({ max: 5 }),
});

describe("the poll's statement", () => {
  it('makes the same record as the plain reading, for random customers', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(Customer, async (customer) => {
        const userId = await insertCustomer(customer, n++);
        const fast = await findDashboardState(pgPool, userId);
        const plain = await plainState(userId);
        expect(fast).not.toBeNull();
        const now = new Date();
        const record = (state: DashboardState) =>
          dashboardBody({
            ...state,
            earlierPlanWasTrial: false,
            nameSuffix: 'play.example.test',
            vmConfig,
            now,
          });
        const shown = record(fast!);
        expect(shown).toEqual(record(plain!));
        if (shown.streaming !== null) expect(fast!.pairings).toEqual(plain!.pairings);
        // Where the record can show them, the parts themselves are the plain reading's.
        expect(fast!.subscription).toEqual(plain!.subscription);
        expect(fast!.vm).toEqual(plain!.vm);
        expect(fast!.reportsHealth).toBe(plain!.reportsHealth);
        // Read only for customers who ever had a mandate: never missing for one who has.
        expect(fast!.autopay).toEqual(plain!.autopay);
      }),
      { numRuns: 120 },
    );
  }, 300_000);

  it('answers every write made after a record was kept: never the record from before', async () => {
    let n = 5000;
    await fc.assert(
      fc.asyncProperty(
        Customer,
        fc.array(Write, { minLength: 1, maxLength: 4 }),
        async (customer, writes) => {
          const userId = await insertCustomer(customer, n++);
          await expectPlainRecord(userId); // kept from here on
          await expectPlainRecord(userId); // answered from what was kept: nothing changed
          for (const write of writes) {
            await client.query(WRITES[write.table], [userId, write.pick]);
            await expectPlainRecord(userId);
          }
        },
      ),
      { numRuns: 120 },
    );
  }, 300_000);

  it('answers a write committed after the record was kept, whatever order the writers began in', async () => {
    const userId = await insertCustomer({ plans: [], machines: [], mandates: [] }, 9000);
    const first = new pg.Client({ connectionString: databaseUrl });
    const second = new pg.Client({ connectionString: databaseUrl });
    await first.connect();
    await second.connect();
    try {
      // The first writer began before the second and commits after it, and after a reading
      // that saw the second's write.
      await first.query('BEGIN');
      await first.query(`UPDATE users SET name = 'First' WHERE id = $1`, [userId]);
      await second.query('BEGIN');
      await second.query(`UPDATE subscriptions SET plan_name = 'Second' WHERE user_id = $1`, [userId]);
      await second.query(
        `INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type,
                            price_paise, status, purchased_at, expires_at)
                          VALUES ($1, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000, 'active', now(),
                                  now() + interval '30 days')`,
        [userId],
      );
      await second.query('COMMIT');
      expect((await findDashboardState(pgPool, userId))?.subscription?.plan_name).toBe('LEGEND');
      expect((await findDashboardState(pgPool, userId))?.user.name).not.toBe('First');
      await first.query('COMMIT');
      expect((await findDashboardState(pgPool, userId))?.user.name).toBe('First');
      await expectPlainRecord(userId);
    } finally {
      await first.end();
      await second.end();
    }
  });

  it('drops a finished pairing from a kept record when its time to be shown is over', async () => {
    const userId = await insertCustomer(
      {
        plans: [{ status: 'active', trial: false, boughtMinutesAgo: 30, endsInDays: 20 }],
        machines: [
          {
            state: 'running',
            madeMinutesAgo: 30,
            source: 'launch',
            secrets: 'own',
            ip: true,
            password: true,
            health: null,
            pairings: [{ state: 'failed', minutesAgo: 4, madeMinutesAgo: 5 }],
            copies: [],
            restoresEarlierCopy: false,
            clockAhead: null,
            name: null,
          },
        ],
        mandates: [],
      },
      9001,
    );
    // Shown for two seconds more; no write moves it out of the record, only the time.
    await client.query(
      `UPDATE stream_pairings SET updated_at = now() - interval '10 minutes' + interval '2 seconds'
       WHERE user_id = $1`,
      [userId],
    );
    expect((await findDashboardState(pgPool, userId))?.pairings).toHaveLength(1);
    await waitFor(
      'the finished pairing to leave the plain reading',
      async () => (await plainState(userId))?.pairings.length === 0,
    );
    expect((await findDashboardState(pgPool, userId))?.pairings).toEqual([]);
    await expectPlainRecord(userId);
  });

  it.each([
    ['a row of its own', `UPDATE users SET name = 'Later' WHERE id = $1`],
    ['a statement over machines', `UPDATE vms SET usage_seconds = usage_seconds + 60 WHERE user_id = $1`],
  ])('forgets notes of changes an hour old as later writes come (%s)', async (_, write) => {
    const userId = await insertCustomer(
      {
        plans: [{ status: 'active', trial: false, boughtMinutesAgo: 30, endsInDays: 20 }],
        machines: [
          {
            state: 'stopped',
            madeMinutesAgo: 30,
            source: 'launch',
            secrets: 'none',
            ip: false,
            password: true,
            health: null,
            pairings: [],
            copies: [],
            restoresEarlierCopy: false,
            clockAhead: null,
            name: null,
          },
        ],
        mandates: [],
      },
      9002,
    );
    await client.query(`DELETE FROM dashboard_changes WHERE user_id = $1`, [userId]);
    await client.query(
      `INSERT INTO dashboard_changes (user_id, at) SELECT $1, now() - interval '2 hours' FROM generate_series(1, 3)`,
      [userId],
    );
    await expectPlainRecord(userId);
    await client.query(write, [userId]);
    const notes = await client.query(
      `SELECT count(*) FILTER (WHERE at < now() - interval '1 hour') AS old, count(*) AS all
       FROM dashboard_changes WHERE user_id = $1`,
      [userId],
    );
    expect(notes.rows[0]).toEqual({ old: '0', all: '1' });
    await expectPlainRecord(userId);
  });

  it('finds each part in index order: its plan sorts nothing', async () => {
    const userId = await insertCustomer(
      {
        plans: [{ status: 'active', trial: false, boughtMinutesAgo: 30, endsInDays: 20 }],
        machines: [],
        mandates: [],
      },
      9999,
    );
    const statement = dashboardStatement(userId);
    // Sorting made as costly as the planner allows: any part still sorted has no index to read in its order.
    await client.query('BEGIN');
    try {
      await client.query('SET LOCAL enable_sort = off');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_bitmapscan = off');
      const plan = await client.query(`EXPLAIN (COSTS OFF) ${statement.text}`, statement.values);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).not.toMatch(/\bSort\b/);
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
