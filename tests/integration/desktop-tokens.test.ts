import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { consumeDesktopToken, insertDesktopToken } from '../../core/db/desktopTokens.ts';
import { insertVm } from '../../core/db/vms.ts';
import type { MachineState } from '../../core/domain/machineStates.ts';
import { purgeExpired } from '../../core/db/housekeeping.ts';
import { hashToken } from '../../core/crypto/crypto.ts';
import { dcvAuthXml } from '../../api/routes/desktop.ts';
import { createDcvServers } from '../../sandbox/dcv/index.ts';
import { DCV_PORT, DESKTOP_MESSAGES } from '../../core/domain/desktop.ts';
import { desktopReachable, MACHINE_STATES } from '../../core/domain/machineStates.ts';
import {
  createUser,
  loopbackAddress,
  logIn,
  newClient,
  requestFrom,
  type Client,
} from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { listDesktopTokenUses } from '../support/rows.ts';

/**
 * The browser desktop's one-time tokens: minted by the owner of a running machine, verified by
 * DCV on that machine (POST /api/dcv/auth, a form, from the machine's address) once, within a
 * minute. Every refusal is DCV's "no", and every verification is recorded with the browser's
 * address DCV reports.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const db = stack.services.db;
afterAll(() => cloud.destroy());
const realClock = stack.services.clock;
afterEach(() => {
  stack.services.clock = realClock;
});

type Customer = { client: Client; userId: string; vmId: string; ip: string };

/** A signed-in customer whose machine runs at a loopback address of its own. */
async function customer(state: MachineState = 'running'): Promise<Customer> {
  const user = await createUser(stack);
  const client = newClient(stack);
  await logIn(client, user.email);
  const { vmId, ip } = await machine(user.id, state);
  return { client, userId: user.id, vmId, ip };
}

async function machine(userId: string, state: MachineState, ip: string | null = loopbackAddress()) {
  const plan = await cloud.activePlan(userId);
  const vm = await insertVm(
    db,
    { userId, subscriptionId: plan.id, planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 },
    new Date(),
  );
  await db.query(sql.unsafe`
    UPDATE vms SET state = ${state}, instance_id = ${`i-${randomBytes(8).toString('hex')}`},
      usage_counted_at = now(), public_ip = ${ip}
    WHERE id = ${vm.id}`);
  return { vmId: vm.id, ip: ip ?? '' };
}

async function mint(client: Client) {
  return client.call('/api/vm/desktop-token', { method: 'POST', body: {} });
}

function tokenOf(url: string): string {
  return new URL(url).searchParams.get('authToken') ?? '';
}

/** DCV's verification: a form POST from the DCV server's (the machine's) address. */
async function verify(
  from: string,
  form: Record<string, string>,
  options: { contentType?: string; body?: string } = {},
) {
  return requestFrom(from, `${stack.url}/api/dcv/auth`, {
    method: 'POST',
    headers: { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' },
    body: options.body ?? new URLSearchParams(form).toString(),
  });
}

const dcvForm = (token: string, clientAddress = '203.0.113.7') => ({
  sessionId: 'console',
  authenticationToken: token,
  clientAddress,
});

const YES = '<auth result="yes"><username>Administrator</username></auth>';
const NO = `<auth result="no"><message>${DESKTOP_MESSAGES.refused}</message></auth>`;

async function usesCount(): Promise<number> {
  return db.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM desktop_token_uses`,
  );
}

describe('POST /api/vm/desktop-token', () => {
  it("answers DCV's web-client link on the machine with a one-time token, storing only its hash", async () => {
    const c = await customer();
    const reply = await mint(c.client);
    expect(reply.status).toBe(200);
    const url = new URL(reply.body.url);
    // The test stack's DCV_WEB_URL is the sandbox's http://{ip}:8443/; production's is https.
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe(`http://${c.ip}:${DCV_PORT}/`);
    expect(url.hash).toBe('#console');
    const token = tokenOf(reply.body.url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const expiresIn = new Date(reply.body.expiresAt).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(60_000);
    const stored = await db.any(
      sql.type(
        z.object({ token_hash: z.string() }),
      )`SELECT token_hash FROM desktop_tokens WHERE vm_id = ${c.vmId}`,
    );
    expect(stored.map((r) => r.token_hash)).toEqual([hashToken(token)]);
    const dump = JSON.stringify(
      await db.any(sql.unsafe`SELECT * FROM desktop_tokens WHERE vm_id = ${c.vmId}`),
    );
    expect(dump).not.toContain(token);
  });

  it('is refused without a session, and while the machine is not running', async () => {
    const anonymous = newClient(stack);
    expect((await mint(anonymous)).status).toBe(401);
    for (const state of ['stopped', 'starting', 'stopping', 'provisioning'] as const) {
      const c = await customer(state);
      const reply = await mint(c.client);
      expect(reply.status, state).toBe(409);
      expect(reply.body.message).toBe(DESKTOP_MESSAGES.notRunning);
    }
    const user = await createUser(stack);
    const noMachine = newClient(stack);
    await logIn(noMachine, user.email);
    expect((await mint(noMachine)).status).toBe(404);
  });

  it('is rate-limited per customer', async () => {
    const c = await customer();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await mint(c.client)).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(statuses[20]).toBe(429);
  });
});

describe('POST /api/dcv/auth (DCV external authenticator)', () => {
  it("says yes once to the machine's DCV and records the browser's address", async () => {
    const c = await customer();
    const token = tokenOf((await mint(c.client)).body.url);
    const reply = await verify(c.ip, dcvForm(token, '198.51.100.23'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(reply.text).toBe(YES);
    const uses = await listDesktopTokenUses(db, c.vmId);
    expect(uses).toMatchObject([
      {
        accepted: true,
        outcome: 'accepted',
        session_id: 'console',
        client_address: '198.51.100.23',
        verifier_address: c.ip,
        vm_id: c.vmId,
      },
    ]);
  });

  it('refuses a replay, and only one of several racing verifications is accepted', async () => {
    const c = await customer();
    const token = tokenOf((await mint(c.client)).body.url);
    expect((await verify(c.ip, dcvForm(token))).text).toBe(YES);
    const replay = await verify(c.ip, dcvForm(token));
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(NO);

    const raced = tokenOf((await mint(c.client)).body.url);
    const answers = await Promise.all(Array.from({ length: 6 }, () => verify(c.ip, dcvForm(raced))));
    expect(answers.filter((a) => a.text === YES)).toHaveLength(1);
    expect(answers.filter((a) => a.text === NO)).toHaveLength(5);
    const outcomes = (await listDesktopTokenUses(db, c.vmId)).map((u) => u.outcome).sort();
    expect(outcomes).toEqual(['accepted', 'accepted', 'used', 'used', 'used', 'used', 'used', 'used']);
  });

  it('refuses a token past its minute (the clock moved, not waited for)', async () => {
    const c = await customer();
    const token = tokenOf((await mint(c.client)).body.url);
    stack.services.clock = () => new Date(realClock().getTime() + 61_000);
    expect((await verify(c.ip, dcvForm(token))).text).toBe(NO);
    stack.services.clock = () => new Date(realClock().getTime() + 59_000);
    const fresh = tokenOf((await mint(c.client)).body.url);
    // Minted "now" (59 s ahead) and verified at the same moment: still good.
    expect((await verify(c.ip, dcvForm(fresh))).text).toBe(YES);
    expect((await listDesktopTokenUses(db, c.vmId)).map((u) => u.outcome)).toContain('expired');
  });

  it("refuses a token presented by another customer's machine, and leaves it to its own", async () => {
    const owner = await customer();
    const other = await customer();
    const token = tokenOf((await mint(owner.client)).body.url);
    expect((await verify(other.ip, dcvForm(token))).text).toBe(NO);
    // Nor from an address that is no machine of ours.
    expect((await verify(loopbackAddress(), dcvForm(token))).text).toBe(NO);
    const refused = await listDesktopTokenUses(db, other.vmId);
    expect(refused).toMatchObject([{ accepted: false, outcome: 'wrong-machine', vm_id: other.vmId }]);
    expect((await verify(owner.ip, dcvForm(token))).text).toBe(YES);
  });

  it('refuses a token once its machine has stopped', async () => {
    const c = await customer();
    const token = tokenOf((await mint(c.client)).body.url);
    await db.query(sql.unsafe`UPDATE vms SET state = 'stopped', public_ip = NULL WHERE id = ${c.vmId}`);
    expect((await verify(c.ip, dcvForm(token))).text).toBe(NO);
    const uses = await listDesktopTokenUses(db, c.vmId);
    expect(uses).toMatchObject([{ accepted: false, outcome: 'not-running' }]);
  });

  it('refuses an unknown token and a session other than the console', async () => {
    const c = await customer();
    expect((await verify(c.ip, dcvForm('not-a-token-of-ours'))).text).toBe(NO);
    const token = tokenOf((await mint(c.client)).body.url);
    expect((await verify(c.ip, { ...dcvForm(token), sessionId: 'other-session' })).text).toBe(NO);
    const outcomes = (await listDesktopTokenUses(db, c.vmId)).map((u) => u.outcome).sort();
    expect(outcomes).toEqual(['unknown', 'wrong-session']);
  });

  it('refuses malformed verifications with an XML "no" and records nothing', async () => {
    const c = await customer();
    const token = tokenOf((await mint(c.client)).body.url);
    const before = await usesCount();
    const cases: Array<[string, Awaited<ReturnType<typeof verify>>]> = [
      ['no token', await verify(c.ip, { sessionId: 'console', clientAddress: '203.0.113.7' })],
      ['no session', await verify(c.ip, { authenticationToken: token, clientAddress: '203.0.113.7' })],
      ['no client address', await verify(c.ip, { sessionId: 'console', authenticationToken: token })],
      ['blank token', await verify(c.ip, dcvForm(''))],
      ['spaces', await verify(c.ip, dcvForm(`${token} x`))],
      ['over-long', await verify(c.ip, dcvForm('x'.repeat(600)))],
      [
        'JSON',
        await verify(c.ip, {}, { contentType: 'application/json', body: JSON.stringify(dcvForm(token)) }),
      ],
      ['oversized', await verify(c.ip, {}, { body: `a=${'x'.repeat(5000)}` })],
    ];
    for (const [name, reply] of cases) {
      expect(reply.status, name).toBeGreaterThanOrEqual(400);
      expect(reply.status, name).toBeLessThan(500);
      expect(reply.text, name).toMatch(/^<auth result="no"><message>[^<]+<\/message><\/auth>$/);
    }
    expect(await usesCount()).toBe(before);
    // The token survived all of that.
    expect((await verify(c.ip, dcvForm(token))).text).toBe(YES);
  });

  it("escapes what it echoes: DCV's answer stays one well-formed document", async () => {
    expect(dcvAuthXml({ result: 'no', message: `<a href="x">&'` })).toBe(
      '<auth result="no"><message>&lt;a href=&quot;x&quot;&gt;&amp;&#39;</message></auth>',
    );
  });
});

describe('the sandbox DCV stand-in verifies through the same endpoint', () => {
  it('connects with a fresh token from its own address and refuses the replay', async () => {
    const c = await customer();
    // A real machine from the sandbox EC2 would have one; this row's address needs a server.
    const url = (await mint(c.client)).body.url as string;
    const servers = createDcvServers({
      port: DCV_PORT,
      verifierUrl: `${stack.url}/api/dcv/auth`,
      warn: (message) => {
        throw new Error(message);
      },
    });
    try {
      await servers.sync([{ instanceId: 'i-0123456789abcdef0', publicIp: c.ip }]);
      const browser = loopbackAddress();
      const ask = () =>
        requestFrom(browser, `http://${c.ip}:${DCV_PORT}/auth`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ authToken: tokenOf(url), sessionId: 'console' }),
        });
      expect(JSON.parse((await ask()).text)).toMatchObject({ result: 'yes', username: 'Administrator' });
      expect(JSON.parse((await ask()).text)).toMatchObject({ result: 'no' });
      const uses = await waitFor('both verifications recorded', async () => {
        const list = await listDesktopTokenUses(db, c.vmId);
        return list.length === 2 ? list : null;
      });
      expect(uses.map((u) => [u.outcome, u.client_address, u.verifier_address]).sort()).toEqual([
        ['accepted', browser, c.ip],
        ['used', browser, c.ip],
      ]);
    } finally {
      await servers.close();
    }
  });
});

describe('housekeeping', () => {
  it('forgets verifications and spent tokens after 90 days, and keeps recent ones', async () => {
    const c = await customer();
    const old = tokenOf((await mint(c.client)).body.url);
    const recent = tokenOf((await mint(c.client)).body.url);
    expect((await verify(c.ip, dcvForm(old))).text).toBe(YES);
    expect((await verify(c.ip, dcvForm(recent))).text).toBe(YES);
    await db.query(sql.unsafe`
      UPDATE desktop_tokens SET created_at = created_at - interval '91 days',
        expires_at = expires_at - interval '91 days', used_at = used_at - interval '91 days'
      WHERE token_hash = ${hashToken(old)}`);
    await db.query(sql.unsafe`
      UPDATE desktop_token_uses SET at = at - interval '91 days'
      WHERE token_id = (SELECT id FROM desktop_tokens WHERE token_hash = ${hashToken(old)})`);
    const purged = await purgeExpired(db, new Date());
    expect(purged.desktopTokenUses).toBeGreaterThanOrEqual(1);
    expect(purged.desktopTokens).toBeGreaterThanOrEqual(1);
    const left = await db.anyFirst(
      sql.type(
        z.object({ token_hash: z.string() }),
      )`SELECT token_hash FROM desktop_tokens WHERE vm_id = ${c.vmId}`,
    );
    expect(left).toEqual([hashToken(recent)]);
    expect(await listDesktopTokenUses(db, c.vmId)).toHaveLength(1);
  });
});

describe('the SQL of consumeDesktopToken agrees with desktopReachable', () => {
  it('over every machine state, with and without an address', async () => {
    const disagreements: string[] = [];
    for (const state of MACHINE_STATES) {
      for (const withIp of [true, false]) {
        const user = await createUser(stack, { password: null });
        const ip = loopbackAddress();
        const { vmId } = await machine(user.id, state, withIp ? ip : null);
        const token = randomBytes(32).toString('base64url');
        const now = new Date();
        await insertDesktopToken(db, {
          tokenHash: hashToken(token),
          userId: user.id,
          vmId,
          publicIp: ip,
          now,
        });
        const consumed = await consumeDesktopToken(db, {
          tokenHash: hashToken(token),
          callerAddress: ip,
          now,
        });
        const rule = desktopReachable({ state, publicIp: withIp ? ip : null });
        if ((consumed !== null) !== rule)
          disagreements.push(`${state}, ip ${withIp}: sql ${consumed !== null}, rule ${rule}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
