import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { insertVm } from '../../core/db/vms.ts';
import { getPlan } from '../../core/domain/plans.ts';
import { createUser, logIn, newClient, type Client } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * The dashboard poll is a cheap, pure read: the session may come from the web process's cache
 * but revocation still bites at once in this process (and within seconds from another one),
 * polling writes nothing, and an unchanged record is answered 304 to the browser's
 * If-None-Match.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const db = stack.services.db;

const poll = (client: Client, email: string, headers: Record<string, string> = {}) =>
  client.call(`/api/vm/dashboard/${encodeURIComponent(email)}`, { headers });

async function signedIn(): Promise<{ client: Client; email: string; id: string }> {
  const user = await createUser(stack);
  const client = newClient(stack);
  await logIn(client, user.email);
  return { client, email: user.email, id: user.id };
}

describe('asked by session', () => {
  it('answers the dashboard and the usage at /api/vm/dashboard and /api/vm/usage as at their email addresses, and 401 without a session', async () => {
    const { client, email, id } = await signedIn();
    await cloud.activePlan(id);
    const bySession = await client.call('/api/vm/dashboard');
    const byEmail = await poll(client, email);
    expect(bySession.status).toBe(200);
    expect(bySession.body).toEqual(byEmail.body);
    const usage = await client.call('/api/vm/usage');
    expect(usage.status).toBe(200);
    expect(usage.body.email).toBe(email);
    expect((await newClient(stack).call('/api/vm/dashboard')).status).toBe(401);
    expect((await newClient(stack).call('/api/vm/usage')).status).toBe(401);
  });
});

describe('GET /api/vm/dashboard/{email} revalidation', () => {
  it('sends an ETag, answers 304 while nothing changed, and 200 with a new ETag once it did', async () => {
    const { client, email, id } = await signedIn();
    const subscription = await cloud.activePlan(id);

    const first = await poll(client, email);
    expect(first.status).toBe(200);
    expect(first.body.vmLastState).toBe('provisioning');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    // Personal: only the browser may keep it, and it must ask every time.
    expect(first.headers.get('cache-control')).toBe('private, no-cache');

    const again = await poll(client, email, { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');

    // The worker creates the machine: the same ETag no longer matches.
    const plan = getPlan('legend');
    const vm = await insertVm(
      db,
      {
        userId: id,
        subscriptionId: subscription.id,
        planId: plan.id,
        instanceType: plan.instanceType,
        storageGb: plan.storageGb,
      },
      new Date(),
    );
    await cloud.exec(sql.unsafe`
      UPDATE vms SET state = 'running', source = 'launch', instance_id = 'i-0poll0test0000001', public_ip = '203.0.113.7',
        started_at = now(), usage_counted_at = now()
      WHERE id = ${vm.id}`);
    const changed = await poll(client, email, { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.body.vmLastState).toBe('running');
    expect(changed.body.vmPublicIp).toBe('203.0.113.7');
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('is refused without a session and for someone else, ETag or not', async () => {
    const { client } = await signedIn();
    const other = await createUser(stack);
    expect((await poll(newClient(stack), other.email)).status).toBe(401);
    expect((await poll(client, other.email, { 'if-none-match': 'W/"x"' })).status).toBe(403);
  });
});

describe('polling writes nothing', () => {
  it('leaves the session row and the rate limits alone', async () => {
    const { client, email, id } = await signedIn();
    const state = async () =>
      db.one(sql.type(z.object({ last_seen_at: z.date(), limits: z.number() }))`
        SELECT (SELECT last_seen_at FROM sessions WHERE user_id = ${id} AND revoked_at IS NULL) AS last_seen_at,
               (SELECT count(*)::int FROM rate_limits) AS limits`);
    const before = await state();
    for (let i = 0; i < 20; i++) expect((await poll(client, email)).status).toBe(200);
    const after = await state();
    expect(after.last_seen_at.getTime()).toBe(before.last_seen_at.getTime());
    expect(after.limits).toBe(before.limits);
  });
});

describe('the session cache honours revocation', () => {
  it('logout: the same cookie is refused on the very next poll', async () => {
    const { client, email } = await signedIn();
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    expect((await poll(client, email)).status).toBe(200); // now cached
    expect((await client.call('/api/auth/logout', { method: 'POST' })).status).toBe(200);
    const replay = newClient(stack);
    expect(
      (await replay.call(`/api/vm/dashboard/${encodeURIComponent(email)}`, { headers: { cookie } })).status,
    ).toBe(401);
  });

  it('account deletion: every device of the user is refused at once', async () => {
    const user = await createUser(stack);
    const laptop = newClient(stack);
    const phone = newClient(stack);
    await logIn(laptop, user.email);
    await logIn(phone, user.email);
    expect((await poll(phone, user.email)).status).toBe(200); // cached
    const deleted = await laptop.call('/api/user', { method: 'DELETE', body: { email: user.email } });
    expect(deleted.status).toBe(200);
    expect((await poll(phone, user.email)).status).toBe(401);
  });

  it('a rename shows on the next poll and session check', async () => {
    const { client, email } = await signedIn();
    expect((await poll(client, email)).body.name).toBe('Asha Rao');
    expect(
      (await client.call('/api/user/profile', { method: 'PUT', body: { email, name: 'Asha R' } })).status,
    ).toBe(200);
    expect((await poll(client, email)).body.name).toBe('Asha R');
    expect((await client.call('/api/auth/login')).body.name).toBe('Asha R');
  });

  it('a revocation by another process (straight in the database) is honoured within the cache lifetime', async () => {
    const { client, email, id } = await signedIn();
    expect((await poll(client, email)).status).toBe(200); // cached here
    await db.query(sql.unsafe`UPDATE sessions SET revoked_at = now() WHERE user_id = ${id}`);
    await waitFor(
      'the revoked session to be refused',
      async () => (await poll(client, email)).status === 401,
    );
  });
});
