import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openHealthSecret, signHealthReport } from '../../core/crypto/machineSecrets.ts';
import { sql } from '../../core/db/pool.ts';
import { acknowledgeAlert, listAlerts } from '../../core/db/operatorAlerts.ts';
import { problemGuideHref } from '../../core/domain/machineHealth.ts';
import { machineSettingsOf } from '../support/machineSettings.ts';
import { STREAMING_MESSAGES } from '../../core/domain/streaming.ts';
import { sendJob } from '../../core/queue.ts';
import { sweepMachineHealth } from '../../core/commands/machineHealth.ts';
import { replenishPool } from '../../worker/jobs/poolReplenish.ts';
import { userDataFor } from '../../worker/machineSetup.ts';
import {
  createUser,
  logIn,
  loopbackAddress,
  newClient,
  requestFrom,
  type Client,
} from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * Gamers can play, through the real stack: a paid plan's machine is launched by the worker with
 * its own secrets in its user data; the sandbox machine (its Sunshine stand-in and the image's
 * health reporter, on its own loopback address) reports signed health from that address; the
 * dashboard says what it is ready for; Moonlight devices are paired and removed through the
 * worker's calls to that machine's Sunshine; and the `.dcv` file's token is DCV's to use once.
 */

const stack = await startTestStack({ worker: true });
const cloud = cloudPcHelpers(stack);
const db = stack.services.db;
afterAll(() => cloud.destroy());

type Customer = {
  client: Client;
  userId: string;
  email: string;
  vmId: string;
  ip: string;
  instanceId: string;
};

/** A signed-in customer whose paid machine the worker launched and that has reported itself healthy. */
async function customerWithMachine(): Promise<Customer> {
  const user = await createUser(stack);
  const client = newClient(stack);
  await logIn(client, user.email);
  const plan = await cloud.activePlan(user.id);
  await sendJob(stack.services.boss, 'vm-provision', { subscriptionId: plan.id, userId: user.id });
  const vm = await waitFor(
    'the machine to run',
    async () => {
      const row = await db.maybeOne(
        sql.type(
          z.object({ id: z.uuid(), public_ip: z.string().nullable(), instance_id: z.string().nullable() }),
        )`
          SELECT id, public_ip, instance_id FROM vms WHERE user_id = ${user.id} AND state = 'running'`,
      );
      return row?.public_ip && row.instance_id ? row : null;
    },
    60_000,
  );
  await waitFor(
    'its first health report',
    async () => (await dashboard(client)).machineHealth?.status === 'ready',
    30_000,
  );
  return {
    client,
    userId: user.id,
    email: user.email,
    vmId: vm.id,
    ip: vm.public_ip as string,
    instanceId: vm.instance_id as string,
  };
}

async function dashboard(client: Client) {
  const reply = await client.call('/api/vm/dashboard');
  expect(reply.status).toBe(200);
  return reply.body as {
    machineHealth: {
      status: string;
      headline: string;
      advice: string | null;
      helpUrl: string | null;
      problems: string[];
      checkedAt: string | null;
      streamingDisplay: boolean | null;
      sound: string | false | null;
      controllers: boolean | null;
    } | null;
    streaming: {
      host: string | null;
      canPair: boolean;
      pairedDevices: Array<{ id: string; name: string; removing: boolean }>;
      pairing: { state: string; message: string | null } | null;
      dcvFileUrl: string | null;
      moonlightSteps: string[];
    } | null;
  };
}

const sunshine = {
  async control(machines: Record<string, unknown>) {
    const reply = await stack.api('/sandbox/sunshine/_control', { method: 'POST', body: { machines } });
    expect(reply.status).toBe(204);
  },
  async host(ip: string) {
    const reply = await stack.api('/sandbox/sunshine/_state');
    return reply.body.hosts[ip] as {
      instanceId: string;
      pins: Array<{ pin: string; name: string }>;
      clients: Array<{ uuid: string; name: string }>;
      unpaired: string[];
      reports: Array<{ status: number }>;
    };
  },
};

const pair = (c: Customer, pin: string, deviceName: string) =>
  c.client.call('/api/vm/stream-pair', { body: { pin, deviceName } });

/** A health report as the machine's reporter would send it, from `from`. */
async function postReport(
  c: Customer,
  options: {
    from?: string;
    report?: Record<string, unknown>;
    secret?: string;
    timestamp?: number;
    signature?: string | null;
    body?: string;
  } = {},
) {
  const secret = options.secret ?? (await healthSecretOf(c.vmId));
  const body =
    options.body ??
    JSON.stringify({
      instanceId: c.instanceId,
      gpu: { name: 'NVIDIA T4', driverVersion: '553.24', licensed: true },
      display: { present: true, width: 1920, height: 1080, refreshHz: 60 },
      sunshine: { running: true, certSha256: null },
      dcv: { running: true },
      rdp: { listening: true },
      disk: { freeBytes: 50 * 1024 ** 3, totalBytes: 115 * 1024 ** 3 },
      ...options.report,
    });
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature =
    options.signature === undefined ? signHealthReport(secret, timestamp, body) : options.signature;
  return requestFrom(options.from ?? c.ip, `${stack.url}/api/machine/health`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-legend-timestamp': String(timestamp),
      ...(signature === null ? {} : { 'x-legend-signature': signature }),
    },
    body,
  });
}

async function healthSecretOf(vmId: string): Promise<string> {
  const sealed = await db.oneFirst(sql.type(z.object({ s: z.string() }))`
    SELECT ms.health_secret_sealed AS s FROM machine_secrets ms WHERE ms.launch_token = ${vmId}`);
  return openHealthSecret(stack.config.appSecret, sealed);
}

async function refusals(vmId: string): Promise<string[]> {
  return [
    ...(await db.anyFirst(sql.type(z.object({ outcome: z.string() }))`
      SELECT outcome FROM machine_health_refusals WHERE vm_id = ${vmId} OR instance_id IN (
        SELECT instance_id FROM vms WHERE id = ${vmId}) ORDER BY at`)),
  ];
}

async function storedReportAt(vmId: string): Promise<string | null> {
  return db
    .maybeOneFirst(
      sql.type(z.object({ at: z.date() }))`
    SELECT reported_at AS at FROM machine_health WHERE vm_id = ${vmId}`,
    )
    .then((at) => at?.toISOString() ?? null);
}

async function openAlerts(kind: string, vmId: string) {
  return (await listAlerts(db, { limit: 500 })).filter((a) => a.kind === kind && a.vm_id === vmId);
}

describe('a machine launched for a customer', () => {
  it('carries secrets of its own in its user data, sealed at rest and never shown to the browser', async () => {
    const first = await customerWithMachine();
    const second = await customerWithMachine();
    const rows = await db.any(sql.type(
      z.object({
        launch_token: z.uuid(),
        sunshine_username: z.string(),
        sunshine_password_sealed: z.string(),
        health_secret_sealed: z.string(),
      }),
    )`
      SELECT launch_token, sunshine_username, sunshine_password_sealed, health_secret_sealed FROM machine_secrets
      WHERE launch_token IN (${first.vmId}, ${second.vmId})`);
    expect(rows).toHaveLength(2);
    // The user data a launch sends is the same document each time (EC2's ClientToken demands it)…
    const data = machineSettingsOf(await userDataFor({ db, config: stack.config }, first.vmId));
    expect(machineSettingsOf(await userDataFor({ db, config: stack.config }, first.vmId))).toEqual(data);
    const other = machineSettingsOf(await userDataFor({ db, config: stack.config }, second.vmId));
    // …and no two machines share a secret.
    expect(data?.healthSecret).not.toBe(other?.healthSecret);
    expect(data?.sunshinePassword).not.toBe(other?.sunshinePassword);
    expect(data?.sunshineUsername).not.toBe(other?.sunshineUsername);
    expect(data?.healthUrl).toBe(`${stack.config.publicUrl}/api/machine/health`);
    // Sealed at rest: the stored text is not the secret.
    for (const row of rows) {
      expect(row.sunshine_password_sealed).not.toContain(data?.sunshinePassword ?? '-');
      expect(row.health_secret_sealed).toMatch(/^v1\./);
    }
    const seen = JSON.stringify(await dashboard(first.client));
    for (const secret of [data?.healthSecret, data?.sunshinePassword, data?.sunshineUsername]) {
      expect(seen).not.toContain(secret);
    }
  }, 120_000);
});

describe('a warm-pool spare', () => {
  it('is launched with secrets of its own, which travel with it to the customer who claims it', async () => {
    await replenishPool(cloud.deps({ vm: { warmPoolSize: { ...stack.config.vm.warmPoolSize, legend: 1 } } }));
    const spare = await waitFor(
      'the spare to be ready (first boot done, stopped)',
      () =>
        db.maybeOne(sql.type(z.object({ id: z.uuid(), instance_id: z.string() }))`
          SELECT id, instance_id FROM pool_instances WHERE plan_id = 'legend' AND state = 'ready'
          ORDER BY created_at DESC LIMIT 1`),
      60_000,
    );
    const c = await customerWithMachine();
    expect(c.instanceId).toBe(spare.instance_id);
    const tokens = await db.anyFirst(sql.type(z.object({ t: z.uuid() }))`
      SELECT launch_token AS t FROM machine_secrets WHERE launch_token IN (${spare.id}, ${c.vmId})`);
    // Made once, for the spare's launch; the customer's machine reported (and pairs) with them.
    expect(tokens).toEqual([spare.id]);
    expect((await pair(c, '2468', 'Steam Deck')).status).toBe(200);
  }, 150_000);
});

describe('POST /api/machine/health', () => {
  it("a machine's signed reports from its own address say on the dashboard what it is ready for", async () => {
    const c = await customerWithMachine();
    const view = await dashboard(c.client);
    expect(view.machineHealth).toMatchObject({
      status: 'ready',
      headline: 'Ready for 1440p 120 fps streaming',
      advice: null,
    });
    expect(Date.parse(view.machineHealth?.checkedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect((await sunshine.host(c.ip)).reports.at(-1)?.status).toBe(200);
    // What the test itself sends, signed with the machine's secret from its address, is accepted
    // too (a second later than the machine's own last one: reports must be newer than the last).
    await sunshine.control({ [c.ip]: { reporting: 'off' } });
    const reply = await postReport(c, { timestamp: Math.floor(Date.now() / 1000) + 2 });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ accepted: true, nextReportSeconds: 300 });
    expect((await dashboard(c.client)).machineHealth?.headline).toBe('Ready for 1080p 60 fps streaming');
  }, 120_000);

  it('a forged, misplaced, replayed or stale report is refused, recorded, and changes nothing', async () => {
    const c = await customerWithMachine();
    // Stop the machine's own reporter so only this test's reports arrive.
    await sunshine.control({ [c.ip]: { reporting: 'off' } });
    // After the machine's own last report (each must be newer than the last accepted).
    const t0 = Math.floor(Date.now() / 1000) + 1;
    expect((await postReport(c, { timestamp: t0 })).status).toBe(200);
    const faulty = { gpu: { name: 'NVIDIA T4', driverVersion: '1', licensed: false } };

    const wrongSecret = await postReport(c, { report: faulty, secret: 'someone-elses-secret-0000000000000' });
    expect(wrongSecret.status).toBe(401);
    const wrongAddress = await postReport(c, { report: faulty, from: loopbackAddress() });
    expect(wrongAddress.status).toBe(403);
    const stale = await postReport(c, { report: faulty, timestamp: t0 - 600 });
    expect(stale.status).toBe(401);
    // Signed, then changed on the way.
    const body = JSON.stringify({ ...JSON.parse(JSON.stringify({ instanceId: c.instanceId })), ...faulty });
    const tampered = await postReport(c, {
      report: faulty,
      signature: signHealthReport(await healthSecretOf(c.vmId), t0 + 1, `${body} `),
      timestamp: t0 + 1,
    });
    expect(tampered.status).toBe(401);
    const unknown = await postReport(c, { report: { ...faulty, instanceId: 'i-0123456789abcdef0' } });
    expect(unknown.status).toBe(401);
    // A report accepted, then the very same request again.
    expect((await postReport(c, { timestamp: t0 + 5 })).status).toBe(200);
    const replay = await postReport(c, { timestamp: t0 + 5 });
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.text).message).toBe('This report was already received.');
    // An older report arriving late is no newer than what is stored: refused the same way.
    expect((await postReport(c, { timestamp: t0 + 2, report: faulty })).status).toBe(401);
    // Not signed at all, or not a report: answered, only logged (they name no machine).
    expect((await postReport(c, { signature: null })).status).toBe(401);
    expect((await postReport(c, { body: '{"instanceId":"nope"}' })).status).toBe(400);

    expect(await refusals(c.vmId)).toEqual([
      'bad-signature',
      'wrong-address',
      'stale',
      'bad-signature',
      'replayed',
      'replayed',
    ]);
    const strangers = await db.anyFirst(sql.type(z.object({ outcome: z.string() }))`
      SELECT outcome FROM machine_health_refusals WHERE instance_id = 'i-0123456789abcdef0'`);
    expect(strangers).toContain('unknown-machine');
    // Nothing the refused ones said took hold: the last accepted report stands.
    expect(await storedReportAt(c.vmId)).toBe(new Date((t0 + 5) * 1000).toISOString());
    expect((await dashboard(c.client)).machineHealth?.status).toBe('ready');
    expect(await openAlerts('machine-unhealthy', c.vmId)).toEqual([]);
  }, 120_000);

  it('a report dated ahead of our clock beyond 30 s is refused and silences nothing; the card says the clock runs fast', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { reporting: 'off' } });
    const now = Math.floor(Date.now() / 1000);
    const faulty = { gpu: { name: 'NVIDIA T4', driverVersion: '1', licensed: false } };
    // Signed with the machine's secret, from its address, dated 280 s ahead (a clock running fast,
    // or someone on the machine trying to shut out its genuine reports).
    const ahead = await postReport(c, { report: faulty, timestamp: now + 280 });
    expect(ahead.status).toBe(401);
    expect(JSON.parse(ahead.text)).toMatchObject({
      message: expect.stringContaining('clock runs fast'),
      clockAheadSeconds: expect.any(Number),
    });
    const told = (await dashboard(c.client)).machineHealth;
    expect(told).toMatchObject({
      status: 'attention',
      headline: 'Your PC’s clock is 5 minutes fast, so it cannot report its health.',
    });
    expect(told?.advice).toContain('Sync now');

    // The genuine report, dated now, is still newer than the last accepted one: accepted.
    expect((await postReport(c, { timestamp: now + 1 })).status).toBe(200);
    expect((await dashboard(c.client)).machineHealth?.status).toBe('ready');
    // A clock a few seconds fast is within the skew allowed.
    expect((await postReport(c, { timestamp: Math.floor(Date.now() / 1000) + 20 })).status).toBe(200);

    // Recorded as a clock problem, not a forgery; the fault it carried never took hold.
    expect(await refusals(c.vmId)).toEqual(['clock-ahead']);
    expect(await openAlerts('machine-unhealthy', c.vmId)).toEqual([]);
    expect(await openAlerts('health-forged', c.vmId)).toEqual([]);
  }, 120_000);

  it('a machine not in service (stopped, or a spare) is told to report later, and that is no forgery', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { reporting: 'off' } });
    await db.query(sql.unsafe`UPDATE vms SET state = 'stopping' WHERE id = ${c.vmId}`);
    const reply = await postReport(c);
    expect(reply.status).toBe(409);
    await db.query(sql.unsafe`UPDATE vms SET state = 'running' WHERE id = ${c.vmId}`);
    expect(JSON.parse(reply.text).message).toMatch(/not in service/);
    // Every machine meets this at boot (it reports before its address is known): no record, no alert.
    expect(await refusals(c.vmId)).toEqual([]);
  }, 120_000);

  it('a fault the machine reports is on the card and alerts an operator until it is gone', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { health: { driverLicensed: false, display: false } } });
    const attention = await waitFor('the fault on the card', async () => {
      const view = await dashboard(c.client);
      return view.machineHealth?.status === 'attention' ? view.machineHealth : null;
    });
    expect(attention.problems).toEqual(['driver-unlicensed', 'no-display']);
    expect(attention.headline).toMatch(/graphics driver is not licensed/);
    expect(attention.advice).toMatch(/STOP and START/);
    const alerts = await openAlerts('machine-unhealthy', c.vmId);
    expect(alerts.map((a) => (a.details as { problem: string }).problem).sort()).toEqual([
      'driver-unlicensed',
      'no-display',
    ]);
    expect(alerts[0]?.message).toContain(c.instanceId);
    // A machine fresh from the plan's image, reporting the image's faults: its spares would
    // carry them too, so the plan's warm pool is held, the alert naming the image to rebuild.
    const plan = await db.oneFirst(
      sql.type(z.object({ plan_id: z.string() }))`SELECT plan_id FROM vms WHERE id = ${c.vmId}`,
    );
    const hold = (await listAlerts(db)).find((a) => a.dedupe_key === `pool-hold:${plan}`);
    expect(hold?.message).toMatch(
      /reports: .*Fix: the plan's image .* boots without a working GPU driver or display/,
    );
    expect(
      await db.oneFirst(sql.type(z.object({ cause: z.string() }))`
        SELECT cause FROM pool_holds WHERE vm_id = ${c.vmId}`),
    ).toBe('unhealthy');
    // Released by an operator once the image is rebuilt (the next tests' spares are not held).
    await acknowledgeAlert(db, hold!.id);

    await sunshine.control({ [c.ip]: { health: { driverLicensed: true, display: true } } });
    await waitFor('healthy again', async () => (await dashboard(c.client)).machineHealth?.status === 'ready');
    expect(await openAlerts('machine-unhealthy', c.vmId)).toEqual([]);
  }, 120_000);

  it('no sound, no gamepad or a display Sunshine cannot stream is on the card with the way to the guide; a GPU not the plan’s alerts too', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { health: { audio: false, gamepad: false, virtualDisplay: false } } });
    const attention = await waitFor('the faults on the card', async () => {
      const view = await dashboard(c.client);
      return view.machineHealth?.problems.includes('no-gamepad') ? view.machineHealth : null;
    });
    expect(attention.problems).toEqual(['display-not-capturable', 'no-audio', 'no-gamepad']);
    expect(attention.headline).toMatch(/black screen/);
    expect(attention.helpUrl).toBe(problemGuideHref('display-not-capturable'));
    expect(attention).toMatchObject({ streamingDisplay: false, sound: false, controllers: false });
    const problems = async () =>
      (await openAlerts('machine-unhealthy', c.vmId))
        .map((a) => (a.details as { problem: string }).problem)
        .sort();
    expect(await problems()).toEqual(['display-not-capturable', 'no-audio', 'no-gamepad']);
    const [audioAlert] = (await openAlerts('machine-unhealthy', c.vmId)).filter(
      (a) => (a.details as { problem: string }).problem === 'no-audio',
    );
    expect(audioAlert?.message).toMatch(/Seen: Windows Audio not running, endpoint none\.$/);

    // The LEGEND plan's g4dn carries a T4: an A10G is the wrong hardware (an operator's to fix).
    await sunshine.control({
      [c.ip]: { health: { audio: true, gamepad: true, virtualDisplay: true, gpuName: 'NVIDIA A10G' } },
    });
    const mismatch = await waitFor('the GPU mismatch', async () => {
      const view = await dashboard(c.client);
      return view.machineHealth?.problems.join() === 'gpu-mismatch' ? view.machineHealth : null;
    });
    expect(mismatch.headline).toBe('Your PC’s graphics card is not the one your plan includes.');
    expect(await problems()).toEqual(['gpu-mismatch']);
    const [gpuAlert] = await openAlerts('machine-unhealthy', c.vmId);
    expect(gpuAlert?.message).toContain('reports “NVIDIA A10G”; g4dn.xlarge carries an NVIDIA T4');

    await sunshine.control({ [c.ip]: { health: { gpuName: 'NVIDIA T4' } } });
    await waitFor('healthy again', async () => (await dashboard(c.client)).machineHealth?.status === 'ready');
    expect(await openAlerts('machine-unhealthy', c.vmId)).toEqual([]);
  }, 120_000);

  it('a machine from an older image, which reports no sound or gamepad, is ready: unknown is no fault', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { health: { olderImage: true } } });
    await waitFor('a report without the new fields', async () => {
      const view = await dashboard(c.client);
      return view.machineHealth?.sound === null ? view : null;
    });
    const view = await dashboard(c.client);
    expect(view.machineHealth).toMatchObject({
      status: 'ready',
      sound: null,
      controllers: null,
      streamingDisplay: null,
    });
  }, 120_000);

  it('a running machine silent for 15 minutes alerts an operator, resolved when it reports again', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { reporting: 'off' } });
    const deps = cloud.deps();
    const later = new Date(Date.now() + 16 * 60_000);
    await sweepMachineHealth(deps, later);
    const [alert] = await openAlerts('machine-silent', c.vmId);
    expect(alert?.message).toContain('no health report for 15 minutes');
    await sunshine.control({ [c.ip]: { reporting: 'on', reportNow: true } });
    await waitFor('a fresh report', async () => (await sunshine.host(c.ip)).reports.at(-1)?.status === 200);
    await sweepMachineHealth(deps, new Date());
    expect(await openAlerts('machine-silent', c.vmId)).toEqual([]);
  }, 120_000);

  it('repeated forgeries from one address alert an operator', async () => {
    const c = await customerWithMachine();
    const forger = loopbackAddress();
    for (let i = 0; i < 5; i++) {
      expect(
        (await postReport(c, { from: forger, secret: `forged-secret-${i}-000000000000000000` })).status,
      ).toBe(401);
    }
    await sweepMachineHealth(cloud.deps(), new Date());
    const alerts = (await listAlerts(db, { limit: 500 })).filter(
      (a) => a.kind === 'health-forged' && a.dedupe_key.includes(forger),
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.message).toContain('5 health reports refused');
    // And /metrics counts them for dashboards (the fleet figures are cached a few seconds).
    await waitFor('the refusals in /metrics', async () => {
      const text = (await stack.api('/metrics')).body as string;
      const line = text
        .split('\n')
        .find((l) => l.startsWith('legend_machine_health_refused_last_hour{outcome="bad-signature"}'));
      return line && Number(line.split(' ').at(-1)) >= 5;
    });
  }, 120_000);
});

describe('POST /api/vm/stream-pair', () => {
  it("relays the PIN to the machine's Sunshine and lists the paired device; DELETE unpairs it there", async () => {
    const c = await customerWithMachine();
    const reply = await pair(c, '0417', '  Living   room TV ');
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Living room TV is paired. Open your PC in Moonlight to play.');
    const host = await sunshine.host(c.ip);
    expect(host.pins).toEqual([expect.objectContaining({ pin: '0417', name: 'Living room TV' })]);
    expect(host.clients.map((d) => d.name)).toEqual(['Living room TV']);
    const view = await dashboard(c.client);
    expect(view.streaming?.host).toBe(c.ip);
    expect(view.streaming?.moonlightSteps[1]).toContain(c.ip);
    expect(view.streaming?.pairedDevices).toEqual([
      expect.objectContaining({ name: 'Living room TV', removing: false }),
    ]);
    // The PIN is gone from the row once used; Sunshine's id of the device is kept for unpairing.
    const row = await db.one(sql.type(
      z.object({ pin_sealed: z.string().nullable(), client_uuid: z.string().nullable() }),
    )`
      SELECT pin_sealed, client_uuid FROM stream_pairings WHERE vm_id = ${c.vmId}`);
    expect(row.pin_sealed).toBeNull();
    expect(row.client_uuid).toBe(host.clients[0]?.uuid);
    // The same name again is refused before anything is sent.
    expect((await pair(c, '1111', 'living room tv')).status).toBe(409);

    const deviceId = view.streaming?.pairedDevices[0]?.id ?? '';
    const other = newClient(stack);
    await logIn(other, (await createUser(stack)).email);
    expect((await other.call(`/api/vm/stream-pair/${deviceId}`, { method: 'DELETE' })).status).toBe(404);
    const removed = await c.client.call(`/api/vm/stream-pair/${deviceId}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.body.message).toBe(STREAMING_MESSAGES.removed);
    expect((await sunshine.host(c.ip)).unpaired).toEqual([row.client_uuid]);
    expect((await sunshine.host(c.ip)).clients).toEqual([]);
    expect((await dashboard(c.client)).streaming?.pairedDevices).toEqual([]);
    expect((await c.client.call(`/api/vm/stream-pair/${deviceId}`, { method: 'DELETE' })).status).toBe(404);
  }, 120_000);

  it('a PIN nobody waits for, or the wrong one, says how to start again with the address', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { moonlight: 'none' } });
    const nobody = await pair(c, '1234', 'Phone');
    expect(nobody.status).toBe(422);
    expect(nobody.body.message).toBe(
      `Your PC is not waiting for a PIN. Open Moonlight, add host ${c.ip}, then type the PIN it shows within 2 minutes.`,
    );
    await sunshine.control({ [c.ip]: { moonlight: { pin: '4321' } } });
    const wrong = await pair(c, '1234', 'Phone');
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toContain(`add host ${c.ip}`);
    expect((await sunshine.host(c.ip)).clients).toEqual([]);
    const view = await dashboard(c.client);
    expect(view.streaming?.pairing).toMatchObject({ state: 'refused', message: wrong.body.message });
    expect(await openAlerts('stream-host-unreachable', c.vmId)).toEqual([]);
  }, 120_000);

  it('a Sunshine that does not answer is a clear 409 within the wait, on the card, and an alert', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { api: 'timeout' } });
    const reply = await pair(c, '1234', 'Phone');
    expect(reply.status).toBe(409);
    expect(reply.body.message).toMatch(/^We could not reach the streaming host on your PC/);
    const [alert] = await openAlerts('stream-host-unreachable', c.vmId);
    expect(alert?.message).toContain('timeout');
    const view = await dashboard(c.client);
    expect(view.machineHealth?.problems).toContain('stream-host-unreachable');
    // Back to normal: the next pairing works and clears both.
    await sunshine.control({ [c.ip]: { api: 'ok' } });
    expect((await pair(c, '1234', 'Phone')).status).toBe(200);
    expect(await openAlerts('stream-host-unreachable', c.vmId)).toEqual([]);
    expect((await dashboard(c.client)).machineHealth?.status).toBe('ready');
  }, 120_000);

  it('a host presenting another certificate than its machine reported never receives the PIN or the credentials', async () => {
    const c = await customerWithMachine();
    await sunshine.control({ [c.ip]: { certificate: 'impostor' } });
    const reply = await pair(c, '1234', 'Phone');
    expect(reply.status).toBe(409);
    expect(reply.body.message).toMatch(/did not present the certificate your PC reported/);
    expect((await sunshine.host(c.ip)).pins).toEqual([]);
    expect((await openAlerts('stream-host-unreachable', c.vmId))[0]?.message).toContain('untrusted');
  }, 120_000);

  it('two pairings at once for one machine: one goes through, the other is told to wait', async () => {
    const c = await customerWithMachine();
    const [a, b] = await Promise.all([pair(c, '1111', 'Phone'), pair(c, '2222', 'Tablet')]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.body.message).toBe(STREAMING_MESSAGES.busy);
    expect((await sunshine.host(c.ip)).pins).toHaveLength(1);
  }, 120_000);

  it('refuses bad input, strangers, and a machine that is not running', async () => {
    const c = await customerWithMachine();
    for (const pin of ['123', '12345', '12a4', '', 1234]) {
      const reply = await pair(c, pin as string, 'Phone');
      expect(reply.status, String(pin)).toBe(400);
      expect(reply.body.message).toBe(STREAMING_MESSAGES.pinFormat);
    }
    expect((await pair(c, '1234', '   ')).body.message).toBe(STREAMING_MESSAGES.deviceNameMissing);
    expect((await pair(c, '1234', '<b>x</b>')).body.message).toBe(STREAMING_MESSAGES.deviceNameFormat);
    expect(
      (await newClient(stack).call('/api/vm/stream-pair', { body: { pin: '1234', deviceName: 'x' } })).status,
    ).toBe(401);
    const stranger = newClient(stack);
    await logIn(stranger, (await createUser(stack)).email);
    const none = await stranger.call('/api/vm/stream-pair', { body: { pin: '1234', deviceName: 'Phone' } });
    expect(none.status).toBe(404);
    expect((await sunshine.host(c.ip)).pins).toEqual([]);

    expect((await c.client.call('/api/vm/stop-vm', { body: {} })).status).toBe(202);
    const stopped = await pair(c, '1234', 'Phone');
    expect(stopped.status).toBe(409);
    expect(stopped.body.message).toBe(STREAMING_MESSAGES.startFirst);
  }, 120_000);
});

describe('GET /api/vm/dcv-file', () => {
  it("is a .dcv file whose one-time token DCV's authenticator accepts once, from the machine", async () => {
    const c = await customerWithMachine();
    const reply = await c.client.call('/api/vm/dcv-file');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/x-dcv');
    expect(reply.headers.get('content-disposition')).toBe('attachment; filename="LegendCloud-PC.dcv"');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const text = reply.body as string;
    expect(text).toMatch(
      new RegExp(
        `^\\[version\\]\\r\\nformat=1\\.0\\r\\n\\r\\n\\[connect\\]\\r\\nhost=${c.ip.replaceAll('.', '\\.')}\\r\\nport=8443\\r\\nsessionid=console\\r\\nauthtoken=[A-Za-z0-9_-]{43}\\r\\n$`,
      ),
    );
    const token = /authtoken=(\S+)/.exec(text)?.[1] ?? '';
    const verify = () =>
      requestFrom(c.ip, `${stack.url}/api/dcv/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          sessionId: 'console',
          authenticationToken: token,
          clientAddress: '203.0.113.9',
        }).toString(),
      });
    expect((await verify()).text).toBe('<auth result="yes"><username>Administrator</username></auth>');
    expect((await verify()).text).toContain('result="no"');
  }, 120_000);

  it('is refused anonymously and while the machine is not running', async () => {
    expect((await newClient(stack).call('/api/vm/dcv-file')).status).toBe(401);
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    expect((await client.call('/api/vm/dcv-file')).status).toBe(404);
  });
});
