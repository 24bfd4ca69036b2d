import pg from 'pg';
import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { getPlan } from '../../core/domain/plans.ts';

/**
 * The poll benchmark's database: tables of a realistic size and, among their customers, the
 * three whose polls are measured (scripts/bench/poll.ts).
 *
 * - 10,000 customers, each with a live session;
 * - 50,000 plans bought, each with its payment and its GST invoice (five a customer);
 * - 20,000 machines (two a customer: a deleted one and the current one, running, stopped or
 *   deleted), each with its secrets and a health report (20,000 reports), 2 Moonlight pairings on
 *   every live machine, a deleted disk copy on every fifth customer's old machine, AutoPay on
 *   every fifth customer, hour notices on every third.
 *
 * The three measured customers are three of the 10,000:
 *
 * - `none`: signed up, nothing bought, no machine;
 * - `desk`: a running machine with its Remote Desktop files ready, launched without secrets of its
 *   own (as machines were before they reported their health), two earlier plans and their machine
 *   deleted;
 * - `streaming`: a running machine with secrets, a fresh health report and two Moonlight devices
 *   paired (a third removed), an active AutoPay mandate whose renewal notice went out, 25 of its
 *   30 hours used (the 80 % notice recorded and shown), four earlier plans and a deleted machine.
 *
 * Rows are written in bulk by SQL (seconds, not minutes); the three customers' rows are written
 * the same way, so nothing about them is special but what they have.
 */

export type PollCustomer = {
  label: 'none' | 'desk' | 'streaming';
  /** What the customer has, for the bench's table. */
  has: string;
  userId: string;
  email: string;
  /** The session cookie's token (its hash is in `sessions`). */
  token: string;
};

export const POPULATION = { customers: 10_000, plans: 50_000, machines: 20_000 } as const;

const LEGEND = getPlan('legend');
const PRICE = LEGEND.pricesPaise[30];

export async function seedPollCustomers(databaseUrl: string): Promise<PollCustomer[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await seedPopulation(client);
    const customers = [await seedNone(client), await seedDesk(client), await seedStreaming(client)];
    await client.query('COMMIT');
    // Statistics as production's planner has them, not an empty table's.
    await client.query('ANALYZE');
    return customers;
  } finally {
    await client.end();
  }
}

/** The customers around the measured three: everything by generate_series. */
async function seedPopulation(client: pg.Client): Promise<void> {
  // Constants of our own, written into the text: a multi-statement text takes no parameters.
  const others = POPULATION.customers - 3;
  const plansEach = POPULATION.plans / POPULATION.customers;
  const storage = LEGEND.storageGb;
  const type = `'${LEGEND.instanceType}'`;
  await client.query(
    `
    CREATE TEMP TABLE bench_people ON COMMIT DROP AS
      SELECT i, gen_random_uuid() AS user_id FROM generate_series(1, ${others}) i;
    INSERT INTO users (id, email, name, phone, password_hash, email_verified_at, created_at)
      SELECT user_id, 'customer' || i || '@example.com', 'Customer ' || i,
             '9' || lpad((100000000 + i)::text, 9, '0'), 'argon2-hash-not-used', now() - interval '400 days',
             now() - interval '400 days'
      FROM bench_people;
    INSERT INTO sessions (user_id, token_hash, expires_at, user_agent)
      SELECT user_id, md5('session' || i) || md5('token' || i), now() + interval '30 days', 'bench'
      FROM bench_people;

    -- k = 1 … plansEach: the k-th plan bought, 35 days apart, the last still in force for 3 in 5.
    CREATE TEMP TABLE bench_plans ON COMMIT DROP AS
      SELECT p.i, p.user_id, k, gen_random_uuid() AS subscription_id, gen_random_uuid() AS payment_id,
             now() - make_interval(days => 35 * (${plansEach} - k) + 5) AS purchased_at,
             (k = ${plansEach} AND p.i % 5 < 3) AS in_force
      FROM bench_people p, generate_series(1, ${plansEach}) k;
    INSERT INTO subscriptions (id, user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                               status, purchased_at, expires_at, created_at)
      SELECT subscription_id, user_id, 'legend', 'LEGEND', 30, ${storage}, ${type}, ${PRICE},
             CASE WHEN in_force THEN 'active' ELSE 'expired' END, purchased_at, purchased_at + interval '30 days',
             purchased_at - interval '2 minutes'
      FROM bench_plans;
    INSERT INTO payments (id, txnid, user_id, subscription_id, amount_paise, amount, productinfo, status,
                          mihpayid, verified_at, created_at)
      SELECT payment_id, 'bench' || i || 'x' || k, user_id, subscription_id, ${PRICE}, (${PRICE} / 100) || '.00',
             'LEGEND', 'success', 'payu' || i || 'x' || k, purchased_at, purchased_at - interval '2 minutes'
      FROM bench_plans;
    INSERT INTO invoices (invoice_number, financial_year, sequence, payment_id, subscription_id, user_id, issued_at,
                          plan_name, description, hours, storage_gb, purchased_at, expires_at, total_paise,
                          taxable_paise, cgst_paise, sgst_paise, igst_paise, gst_rate_percent, supply,
                          place_of_supply, supplier_legal_name, supplier_gstin, supplier_address, supplier_state,
                          customer_name, customer_email, customer_phone, txnid)
      SELECT 'LC/BENCH/' || row_number() OVER (), 'bench', row_number() OVER (), payment_id, subscription_id,
             user_id, purchased_at, 'LEGEND', 'LEGEND cloud PC, 30 hours', 30, ${storage}, purchased_at,
             purchased_at + interval '30 days', ${PRICE}, ${PRICE} - 2 * (${PRICE} * 9 / 118), ${PRICE} * 9 / 118,
             ${PRICE} * 9 / 118, 0, 18, 'intra-state', 'Karnataka', 'Legend Cloud', '29ABCDE1234F1Z5', 'Bengaluru',
             'Karnataka', 'Customer ' || i, 'customer' || i || '@example.com', NULL, 'bench' || i || 'x' || k
      FROM bench_plans;

    -- Two machines each: the second plan's (deleted) and the last plan's (running for 2 in 5,
    -- stopped for 1 in 5, deleted with the plan for the rest).
    CREATE TEMP TABLE bench_machines ON COMMIT DROP AS
      SELECT b.i, b.user_id, b.k, b.subscription_id, b.purchased_at, gen_random_uuid() AS vm_id,
             CASE WHEN b.k = 2 OR NOT b.in_force THEN 'terminated'
                  WHEN b.i % 5 < 2 THEN 'running' ELSE 'stopped' END AS state
      FROM bench_plans b WHERE b.k IN (2, ${plansEach});
    INSERT INTO vms (id, user_id, subscription_id, plan_id, instance_type, storage_gb, state, state_changed_at,
                     source, instance_id, public_ip, password_encrypted, password_ready_at, usage_seconds,
                     usage_counted_at, requested_at, launched_at, ready_at, started_at, stopped_at, terminated_at,
                     created_at, updated_at)
      SELECT vm_id, user_id, subscription_id, 'legend', ${type}, ${storage}, state, now() - interval '1 hour', 'launch',
             'i-' || substr(md5(vm_id::text), 1, 17), CASE WHEN state = 'running' THEN '198.51.100.' || (i % 250) END,
             'sealed-password', purchased_at, (i % 90) * 1000, CASE WHEN state = 'running' THEN now() END,
             purchased_at, purchased_at, purchased_at, now() - interval '1 hour',
             CASE WHEN state = 'stopped' THEN now() - interval '1 hour' END,
             CASE WHEN state = 'terminated' THEN purchased_at + interval '37 days' END, purchased_at, now()
      FROM bench_machines;
    INSERT INTO machine_secrets (launch_token, sunshine_username, sunshine_password_sealed, health_secret_sealed)
      SELECT vm_id, 'sunshine-' || i, 'sealed', 'sealed' FROM bench_machines;
    INSERT INTO machine_health (vm_id, instance_id, reported_at, received_at, report, sunshine_cert_sha256)
      SELECT vm_id, 'i-' || substr(md5(vm_id::text), 1, 17), now() - interval '1 minute', now() - interval '1 minute',
             jsonb_build_object('instanceId', 'i-' || substr(md5(vm_id::text), 1, 17),
               'gpu', jsonb_build_object('name', 'NVIDIA T4', 'driverVersion', '553.24', 'licensed', true),
               'display', jsonb_build_object('present', true, 'width', 1920, 'height', 1080, 'refreshHz', 60),
               'sunshine', jsonb_build_object('running', true, 'certSha256', md5(vm_id::text) || md5(i::text)),
               'dcv', jsonb_build_object('running', true), 'rdp', jsonb_build_object('listening', true),
               'disk', jsonb_build_object('freeBytes', 60000000000, 'totalBytes', 120000000000)),
             md5(vm_id::text) || md5(i::text)
      FROM bench_machines;
    INSERT INTO stream_pairings (vm_id, user_id, device_name, host, state, outcome, message, client_uuid,
                                 created_at, updated_at, finished_at, paired_at)
      SELECT vm_id, user_id, 'Device ' || d, '198.51.100.' || (i % 250), 'paired', 'paired', 'Paired.',
             md5(vm_id::text || d), now() - make_interval(days => d), now() - make_interval(days => d),
             now() - make_interval(days => d), now() - make_interval(days => d)
      FROM bench_machines, generate_series(1, 2) d WHERE state <> 'terminated';
    INSERT INTO vm_snapshots (user_id, vm_id, snapshot_id, state, volume_gb, instance_type, created_at,
                              completed_at, keep_until, deleted_at)
      SELECT user_id, vm_id, 'snap-' || substr(md5(vm_id::text), 1, 17), 'deleted', ${storage}, ${type},
             purchased_at + interval '37 days', purchased_at + interval '37 days', purchased_at + interval '67 days',
             purchased_at + interval '67 days'
      FROM bench_machines WHERE k = 2 AND i % 5 = 0;

    -- AutoPay on every fifth customer (registered with their last checkout), its next renewal noticed.
    CREATE TEMP TABLE bench_mandates ON COMMIT DROP AS
      SELECT b.*, gen_random_uuid() AS mandate_id, gen_random_uuid() AS renewal_id
      FROM bench_plans b WHERE b.k = ${plansEach} AND b.i % 5 = 1;
    INSERT INTO autopay_mandates (id, user_id, registration_payment_id, plan_id, plan_name, hours, storage_gb,
                                  instance_type, amount_paise, status, method, authpayuid, end_date,
                                  current_subscription_id, next_debit_at, created_at)
      SELECT mandate_id, user_id, payment_id, 'legend', 'LEGEND', 30, ${storage}, ${type}, ${PRICE},
             CASE WHEN in_force THEN 'active' ELSE 'cancelled' END, 'upi', 'auth' || i, current_date + 3650,
             subscription_id, purchased_at + interval '29 days', purchased_at - interval '2 minutes'
      FROM bench_mandates;
    INSERT INTO autopay_renewals (id, mandate_id, user_id, renews_subscription_id, period_key, renewal_at, debit_at,
                                  amount_paise, state, request_id, notice_sent_at)
      SELECT renewal_id, mandate_id, user_id, subscription_id, to_char(purchased_at + interval '30 days', 'YYYY-MM-DD'),
             purchased_at + interval '30 days', purchased_at + interval '29 days', ${PRICE}, 'noticed',
             'bench-renewal-' || i, purchased_at + interval '27 days'
      FROM bench_mandates;
    UPDATE autopay_mandates m SET latest_renewal_id = b.renewal_id FROM bench_mandates b WHERE m.id = b.mandate_id;

    INSERT INTO vm_notices (key, kind, user_id, subscription_id, vm_id)
      SELECT 'hours-80:' || subscription_id, 'hours-80', user_id, subscription_id, vm_id
      FROM bench_machines WHERE i % 3 = 0 AND k = ${plansEach};
    `,
  );
}

/** A session for `userId`, as a sign-in leaves one; answers its token. */
async function signIn(client: pg.Client, userId: string): Promise<string> {
  const token = randomToken();
  await client.query(
    `INSERT INTO sessions (user_id, token_hash, expires_at, user_agent) VALUES ($1, $2, now() + interval '30 days', 'bench')`,
    [userId, hashToken(token)],
  );
  return token;
}

async function newCustomer(
  client: pg.Client,
  label: string,
  phone: string,
): Promise<{ id: string; email: string }> {
  const email = `bench.${label}@example.com`;
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO users (email, name, phone, password_hash, email_verified_at, created_at)
     VALUES ($1, $2, $3, 'argon2-hash-not-used', now() - interval '200 days', now() - interval '200 days')
     RETURNING id`,
    [email, `Bench ${label[0]!.toUpperCase()}${label.slice(1)}`, phone],
  );
  return { id: rows[0]!.id, email };
}

/**
 * `count` plans bought 35 days apart with their payments and invoices, the last bought
 * `lastDaysAgo` days ago and still in force; answers the subscriptions' and payments' ids, oldest first.
 */
async function plansOf(
  client: pg.Client,
  user: { id: string; email: string },
  count: number,
  lastDaysAgo: number,
): Promise<Array<{ subscriptionId: string; paymentId: string }>> {
  const { rows } = await client.query<{ subscription_id: string; payment_id: string }>(
    `
    WITH plans AS (
      SELECT k, gen_random_uuid() AS subscription_id, gen_random_uuid() AS payment_id,
             now() - make_interval(days => 35 * ($2::int - k) + $3::int) AS purchased_at
      FROM generate_series(1, $2::int) k
    ), subs AS (
      INSERT INTO subscriptions (id, user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                 status, purchased_at, expires_at, created_at)
      SELECT subscription_id, $1, 'legend', 'LEGEND', 30, $4, $5, $6,
             CASE WHEN k = $2::int THEN 'active' ELSE 'expired' END, purchased_at, purchased_at + interval '30 days',
             purchased_at - interval '2 minutes'
      FROM plans RETURNING id
    ), pays AS (
      INSERT INTO payments (id, txnid, user_id, subscription_id, amount_paise, amount, productinfo, status,
                            mihpayid, verified_at, created_at)
      SELECT payment_id, 'bench' || substr(md5(payment_id::text), 1, 12), $1, subscription_id, $6,
             ($6 / 100) || '.00', 'LEGEND', 'success', 'payu' || k, purchased_at, purchased_at - interval '2 minutes'
      FROM plans JOIN subs ON subs.id = plans.subscription_id RETURNING id
    ), invs AS (
      INSERT INTO invoices (invoice_number, financial_year, sequence, payment_id, subscription_id, user_id, issued_at,
                            plan_name, description, hours, storage_gb, purchased_at, expires_at, total_paise,
                            taxable_paise, cgst_paise, sgst_paise, igst_paise, gst_rate_percent, supply,
                            place_of_supply, supplier_legal_name, supplier_gstin, supplier_address, supplier_state,
                            customer_name, customer_email, customer_phone, txnid)
      SELECT 'LC/BENCH-' || substr(md5(payment_id::text), 1, 12), 'bench-' || substr($1::text, 1, 8), k, payment_id,
             subscription_id, $1, purchased_at, 'LEGEND', 'LEGEND cloud PC, 30 hours', 30, $4, purchased_at,
             purchased_at + interval '30 days', $6, $6 - 2 * ($6 * 9 / 118), $6 * 9 / 118, $6 * 9 / 118, 0, 18,
             'intra-state', 'Karnataka', 'Legend Cloud', '29ABCDE1234F1Z5', 'Bengaluru', 'Karnataka', 'Bench',
             $7, NULL, 'bench' || substr(md5(payment_id::text), 1, 12)
      FROM plans JOIN pays ON pays.id = plans.payment_id RETURNING id
    )
    SELECT subscription_id, payment_id FROM plans WHERE EXISTS (SELECT FROM invs) ORDER BY k`,
    [user.id, count, lastDaysAgo, LEGEND.storageGb, LEGEND.instanceType, PRICE, user.email],
  );
  return rows.map((r) => ({ subscriptionId: r.subscription_id, paymentId: r.payment_id }));
}

/** A machine of `userId` serving `subscriptionId`: deleted, or running with its files ready. */
async function machineOf(
  client: pg.Client,
  userId: string,
  subscriptionId: string,
  state: 'terminated' | 'running',
  usageSeconds: number,
): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, state_changed_at, source,
                      instance_id, public_ip, password_encrypted, password_ready_at, usage_seconds, usage_counted_at,
                      launched_at, ready_at, started_at, terminated_at, created_at)
     VALUES ($1, $2, 'legend', $3, $4, $5, now() - interval '40 minutes', 'launch',
             'i-' || substr(md5(random()::text), 1, 17), CASE WHEN $5 = 'running' THEN '203.0.113.' || (10 + floor(random() * 200)) END,
             'sealed-password', now() - interval '3 days', $6, CASE WHEN $5 = 'running' THEN now() END,
             now() - interval '3 days', now() - interval '3 days', now() - interval '40 minutes',
             CASE WHEN $5 = 'terminated' THEN now() - interval '60 days' END,
             CASE WHEN $5 = 'terminated' THEN now() - interval '100 days' ELSE now() - interval '3 days' END)
     RETURNING id`,
    [userId, subscriptionId, LEGEND.instanceType, LEGEND.storageGb, state, usageSeconds],
  );
  return rows[0]!.id;
}

async function seedNone(client: pg.Client): Promise<PollCustomer> {
  const user = await newCustomer(client, 'none', '9876500100');
  return {
    label: 'none',
    has: 'signed up, nothing bought, no machine',
    userId: user.id,
    email: user.email,
    token: await signIn(client, user.id),
  };
}

async function seedDesk(client: pg.Client): Promise<PollCustomer> {
  const user = await newCustomer(client, 'desk', '9876500101');
  const plans = await plansOf(client, user, 3, 4);
  await machineOf(client, user.id, plans[0]!.subscriptionId, 'terminated', 30 * 3600);
  // Launched without secrets of its own: it neither reports its health nor pairs.
  await machineOf(client, user.id, plans.at(-1)!.subscriptionId, 'running', 6 * 3600);
  return {
    label: 'desk',
    has: 'running machine, Remote Desktop files ready (no secrets: no health, no pairing)',
    userId: user.id,
    email: user.email,
    token: await signIn(client, user.id),
  };
}

async function seedStreaming(client: pg.Client): Promise<PollCustomer> {
  const user = await newCustomer(client, 'streaming', '9876500102');
  const plans = await plansOf(client, user, 5, 10);
  const current = plans.at(-1)!;
  const old = await machineOf(client, user.id, plans[1]!.subscriptionId, 'terminated', 30 * 3600);
  // 25 of 30 hours used: the hour bank's 80 % notice shows on the dashboard (and its mail went out).
  const vm = await machineOf(client, user.id, current.subscriptionId, 'running', 25 * 3600);
  await client.query(
    `INSERT INTO machine_secrets (launch_token, sunshine_username, sunshine_password_sealed, health_secret_sealed)
     VALUES ($1, 'sunshine-bench', 'sealed', 'sealed')`,
    [vm],
  );
  await client.query(
    `INSERT INTO machine_health (vm_id, instance_id, reported_at, received_at, report, sunshine_cert_sha256)
     SELECT v.id, v.instance_id, now() - interval '40 seconds', now() - interval '40 seconds',
            jsonb_build_object('instanceId', v.instance_id,
              'gpu', jsonb_build_object('name', 'NVIDIA T4', 'driverVersion', '553.24', 'licensed', true),
              'display', jsonb_build_object('present', true, 'width', 2560, 'height', 1440, 'refreshHz', 120),
              'sunshine', jsonb_build_object('running', true, 'certSha256', repeat('ab', 32)),
              'dcv', jsonb_build_object('running', true), 'rdp', jsonb_build_object('listening', true),
              'disk', jsonb_build_object('freeBytes', 70000000000, 'totalBytes', 120000000000)),
            repeat('ab', 32)
     FROM vms v WHERE v.id IN ($1, $2)`,
    [vm, old],
  );
  await client.query(
    `INSERT INTO stream_pairings (vm_id, user_id, device_name, host, state, outcome, message, client_uuid,
                                  created_at, updated_at, finished_at, paired_at, removed_at)
     SELECT v.id, v.user_id, d.name, v.public_ip, d.state, d.state, 'Done.', md5(d.name),
            now() - d.age, now() - d.age, now() - d.age, now() - d.age,
            CASE WHEN d.state = 'removed' THEN now() - d.age END
     FROM vms v, (VALUES ('Living-room TV', 'paired', interval '2 days'), ('Laptop', 'paired', interval '1 day'),
                         ('Old phone', 'removed', interval '20 days')) d (name, state, age)
     WHERE v.id = $1`,
    [vm],
  );
  await client.query(
    `INSERT INTO vm_notices (key, kind, user_id, subscription_id, vm_id)
     VALUES ('hours-80:' || $3::text, 'hours-80', $2, $3::uuid, $1)`,
    [vm, user.id, current.subscriptionId],
  );
  const mandate = await client.query<{ id: string }>(
    `INSERT INTO autopay_mandates (user_id, registration_payment_id, plan_id, plan_name, hours, storage_gb,
                                   instance_type, amount_paise, status, method, authpayuid, end_date,
                                   current_subscription_id, next_debit_at, created_at)
     VALUES ($1, $2, 'legend', 'LEGEND', 30, $4, $5, $6, 'active', 'upi', 'auth-bench', current_date + 3650, $3,
             now() + interval '19 days', now() - interval '10 days')
     RETURNING id`,
    [user.id, current.paymentId, current.subscriptionId, LEGEND.storageGb, LEGEND.instanceType, PRICE],
  );
  // Its next renewal: the notice went out an hour ago (the debit follows in 19 days).
  await client.query(
    `WITH renewal AS (
       INSERT INTO autopay_renewals (mandate_id, user_id, renews_subscription_id, period_key, renewal_at, debit_at,
                                     amount_paise, state, request_id, notice_sent_at)
       VALUES ($1, $2, $3, to_char(now() + interval '20 days', 'YYYY-MM-DD'), now() + interval '20 days',
               now() + interval '19 days', $4, 'noticed', 'bench-renewal-streaming', now() - interval '1 hour')
       RETURNING id
     )
     UPDATE autopay_mandates SET latest_renewal_id = (SELECT id FROM renewal) WHERE id = $1`,
    [mandate.rows[0]!.id, user.id, current.subscriptionId, PRICE],
  );
  return {
    label: 'streaming',
    has: 'running machine with a health report, 2 Moonlight devices paired, AutoPay active, 25 of 30 h used (80 % notice)',
    userId: user.id,
    email: user.email,
    token: await signIn(client, user.id),
  };
}
