import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findUserByEmail, findUserById } from '../../core/db/users.ts';
import {
  activateSubscription,
  findLatestPendingSubscription,
  findSubscription,
  lockUserPlans,
} from '../../core/db/subscriptions.ts';
import { planExpiry } from '../../core/domain/plans.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { createUser, GOOD_PASSWORD, logIn, mailedCode, newClient } from '../support/accounts.ts';
import { countLiveSessions, findProblemReport } from '../support/rows.ts';

const stack = await startTestStack({ worker: true });
const db = stack.services.db;
const { choose } = paymentHelpers(stack);
const OTHER = 'You can only see and change your own account.';

async function loggedIn(name = 'Asha Rao') {
  const user = await createUser(stack, { name });
  const client = newClient(stack);
  await logIn(client, user.email);
  return { user, client };
}

describe('GET /api/user/profile', () => {
  it('answers name, email and phone of the session user, with or without the spec email query (any case)', async () => {
    const { user, client } = await loggedIn();
    const expected = { name: 'Asha Rao', email: user.email, phone: '9876543210' };
    expect((await client.call('/api/user/profile')).body).toEqual(expected);
    const byQuery = await client.call(
      `/api/user/profile?email=${encodeURIComponent(user.email.toUpperCase())}`,
    );
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual(expected);
  });

  it("answers 403 for another user's email and 401 without a session", async () => {
    const { client } = await loggedIn();
    const other = await createUser(stack);
    const forbidden = await client.call(`/api/user/profile?email=${encodeURIComponent(other.email)}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: OTHER });
    const anonymous = await newClient(stack).call(
      `/api/user/profile?email=${encodeURIComponent(other.email)}`,
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: 'Please log in to continue.' });
  });

  it('refuses a repeated email query with a 4xx', async () => {
    const { user, client } = await loggedIn();
    const reply = await client.call(`/api/user/profile?email=${user.email}&email=${user.email}`);
    expect(reply.status).toBe(400);
  });
});

describe('PUT /api/user/profile', () => {
  it('renames the user (trimmed) and the session check follows', async () => {
    const { user, client } = await loggedIn();
    const reply = await client.call('/api/user/profile', {
      method: 'PUT',
      body: { email: user.email, name: '  Asha R  ' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ name: 'Asha R', email: user.email, phone: '9876543210' });
    expect((await client.call('/api/auth/login')).body.name).toBe('Asha R');
  });

  it('keeps the email read-only; the phone (PayU needs one) is editable and validated', async () => {
    const { user, client } = await loggedIn();
    const reply = await client.call('/api/user/profile', {
      method: 'PUT',
      body: { name: 'New', email: user.email, phone: '6000000000' },
    });
    expect(reply.status).toBe(200);
    expect(await findUserById(db, user.id)).toMatchObject({ email: user.email, phone: '6000000000' });
    const bad = await client.call('/api/user/profile', {
      method: 'PUT',
      body: { email: user.email, phone: '5000000000' },
    });
    expect(bad.status).toBe(400);
    expect((await findUserById(db, user.id))?.phone).toBe('6000000000');
  });

  it.each([
    [{ name: '   ' }, 'Name cannot be empty'],
    [{ name: '' }, 'Name cannot be empty'],
    [{}, 'Name cannot be empty'],
    [{ name: 42 }, 'Name cannot be empty'],
    [{ name: 'x'.repeat(101) }, 'Name must be at most 100 characters.'],
  ])('refuses %j with 400 "%s"', async (body, message) => {
    const { client } = await loggedIn();
    const reply = await client.call('/api/user/profile', { method: 'PUT', body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message });
  });

  it("answers 403 for another user's email (and changes nothing), 401 without a session", async () => {
    const { client } = await loggedIn();
    const other = await createUser(stack, { name: 'Other' });
    const reply = await client.call('/api/user/profile', {
      method: 'PUT',
      body: { email: other.email, name: 'Hacked' },
    });
    expect(reply.status).toBe(403);
    expect((await findUserById(db, other.id))?.name).toBe('Other');
    const anonymous = await newClient(stack).call('/api/user/profile', {
      method: 'PUT',
      body: { email: other.email, name: 'Hacked' },
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('DELETE /api/user', () => {
  it('waits for a payment settling at that moment, so the plan it activates is cancelled too', async () => {
    const { user, client } = await loggedIn('Paying While Leaving');
    // The plan chosen as the SPA chooses it, waiting for its payment.
    expect((await choose(client, user.email, { plan: 'LEGEND', duration: 30 })).status).toBe(200);
    const pending = (await findLatestPendingSubscription(db, user.id))!;
    // payment-verify activates a plan holding the customer's plan lock (worker/jobs/paymentVerify.ts).
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const settling = db.transaction(async (trx) => {
      await lockUserPlans(trx, user.id);
      const now = new Date();
      await activateSubscription(trx, pending.id, now, planExpiry(now));
      await settled;
    });
    const deleting = client.call('/api/user', { method: 'DELETE', body: { email: user.email } });
    // The deletion waits on that lock (it would otherwise miss the plan being activated).
    await waitFor('the deletion to wait for the plan lock', () =>
      db.exists(sql.unsafe`
        SELECT 1 FROM pg_locks l, (SELECT hashtextextended(${`plans:${user.id}`}, 0) AS key) k
        WHERE l.locktype = 'advisory' AND NOT l.granted
          AND l.classid::bigint = (k.key >> 32) & 4294967295 AND l.objid::bigint = k.key & 4294967295`),
    );
    settle();
    await settling;
    expect((await deleting).status).toBe(200);
    expect((await findSubscription(db, pending.id))?.status).toBe('cancelled');
  });

  it('signs out everywhere, anonymises the person, keeps the row, and frees the email', async () => {
    const { user, client } = await loggedIn('Gone Soon');
    const second = newClient(stack);
    await logIn(second, user.email);
    const reply = await client.call('/api/user', { method: 'DELETE', body: { email: user.email } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ message: 'Your account has been deleted.' });
    expect(client.cookies.has('legend_session')).toBe(false);
    expect(await countLiveSessions(db, user.id)).toBe(0);
    expect((await second.call('/api/auth/login')).status).toBe(401);

    const row = await db.one(
      sql.type(
        z.object({
          email: z.string(),
          name: z.string(),
          phone: z.string().nullable(),
          password_hash: z.string().nullable(),
          google_sub: z.string().nullable(),
          deleted_at: z.date().nullable(),
        }),
      )`SELECT email, name, phone, password_hash, google_sub, deleted_at FROM users WHERE id = ${user.id}`,
    );
    expect(row).toMatchObject({
      email: `deleted-${user.id}@deleted.invalid`,
      name: 'Deleted user',
      phone: null,
      password_hash: null,
      google_sub: null,
    });
    expect(row.deleted_at).not.toBeNull();
    expect(await findUserByEmail(db, user.email)).toBeNull();

    const login = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(login.status).toBe(401);
    const again = newClient(stack);
    const register = await again.call('/api/auth/register', {
      body: { name: 'Back Again', email: user.email, phone: '9876543210', password: GOOD_PASSWORD },
    });
    expect(register.status).toBe(200);
    const code = await mailedCode(stack, user.email, 'verification code');
    expect(
      (await again.call('/api/auth/verify-otp', { body: { email: user.email, otp: code } })).status,
    ).toBe(200);
  });

  it('works without an email in the body (the session says who)', async () => {
    const { user, client } = await loggedIn();
    const reply = await client.call('/api/user', { method: 'DELETE' });
    expect(reply.status).toBe(200);
    expect(await findUserById(db, user.id)).toBeNull();
  });

  it("answers 403 for another user's email and deletes nothing; 401 without a session", async () => {
    const { user, client } = await loggedIn();
    const other = await createUser(stack);
    const reply = await client.call('/api/user', { method: 'DELETE', body: { email: other.email } });
    expect(reply.status).toBe(403);
    expect(await findUserById(db, other.id)).not.toBeNull();
    expect(await findUserById(db, user.id)).not.toBeNull();
    const anonymous = await newClient(stack).call('/api/user', {
      method: 'DELETE',
      body: { email: other.email },
    });
    expect(anonymous.status).toBe(401);
  });

  it('answers malformed JSON with a 400', async () => {
    const { client } = await loggedIn();
    const reply = await client.call('/api/user', { method: 'DELETE', body: '{"email":' });
    expect(reply.status).toBe(400);
  });
});

describe('problem reports', () => {
  it('link the logged-in reporter and stay anonymous otherwise', async () => {
    const { user, client } = await loggedIn();
    const report = { title: 'Lag', description: 'Input lag', phoneNumber: '9876543210' };
    const mine = await client.call('/api/report-problem', { body: report });
    expect(mine.status).toBe(201);
    expect((await findProblemReport(db, mine.body.id))?.user_id).toBe(user.id);
    const anonymous = await newClient(stack).call('/api/report-problem', { body: report });
    expect((await findProblemReport(db, anonymous.body.id))?.user_id).toBeNull();
  });
});
