import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findUserByEmail } from '../../core/db/users.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import {
  createUser,
  GOOD_PASSWORD,
  logIn,
  mailedCode,
  newClient,
  otherCode,
  uniqueEmail,
  waitForMail,
} from '../support/accounts.ts';
import { countLiveSessions } from '../support/rows.ts';

const stack = await startTestStack({ worker: true });
const db = stack.services.db;

function resetLink(text: string): { token: string; email: string; path: string } {
  const url = new URL(/https?:\/\/\S+\/reset-password\?\S+/.exec(text)![0]);
  return { token: url.searchParams.get('token')!, email: url.searchParams.get('email')!, path: url.pathname };
}

describe('POST /api/auth/login and the session check', () => {
  it('logs in by password, sets an HttpOnly SameSite=Lax cookie and the session check answers the user', async () => {
    const user = await createUser(stack, { name: 'Ravi Kumar' });
    const client = newClient(stack);
    const anonymous = await client.call('/api/auth/login');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: 'Please log in to continue.' });

    const login = await client.call('/api/auth/login', {
      body: { email: ` ${user.email.toUpperCase()} `, password: GOOD_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      email: user.email,
      name: 'Ravi Kumar',
      phone: '9876543210',
      hasPlan: false,
    });
    const setCookie = login.headers.getSetCookie().find((c) => c.startsWith('legend_session='))!;
    expect(setCookie).toMatch(/httponly/i);
    expect(setCookie).toMatch(/samesite=lax/i);
    expect(setCookie).toMatch(/path=\//i);
    expect(setCookie).not.toMatch(/secure/i); // plain http outside production

    const check = await client.call('/api/auth/login');
    expect(check.status).toBe(200);
    expect(check.body).toEqual({
      email: user.email,
      name: 'Ravi Kumar',
      phone: '9876543210',
      hasPlan: false,
    });
  });

  it('stores only the hash of the session token', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const token = client.cookies.get('legend_session')!;
    const rows = await db.any(
      sql.type(
        z.object({ token_hash: z.string() }),
      )`SELECT token_hash FROM sessions WHERE user_id = ${user.id}`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toBe(token);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rotates the session at login: the token held before stops working', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const before = client.cookies.get('legend_session')!;
    await logIn(client, user.email);
    const after = client.cookies.get('legend_session')!;
    expect(after).not.toBe(before);
    const stale = newClient(stack);
    stale.cookies.set('legend_session', before);
    expect((await stale.call('/api/auth/login')).status).toBe(401);
    expect(stale.cookies.has('legend_session')).toBe(false);
  });

  it('answers a wrong password, an unknown email and a Google-only account the same way', async () => {
    const user = await createUser(stack);
    const googleOnly = await createUser(stack, { password: null });
    const replies = await Promise.all([
      newClient(stack).call('/api/auth/login', { body: { email: user.email, password: 'Wrong!Passw0rd' } }),
      newClient(stack).call('/api/auth/login', { body: { email: uniqueEmail(), password: GOOD_PASSWORD } }),
      newClient(stack).call('/api/auth/login', {
        body: { email: googleOnly.email, password: GOOD_PASSWORD },
      }),
    ]);
    for (const reply of replies) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ message: 'Invalid email or password.' });
    }
  });

  it.each([
    [{}, 'Please enter your email and password.'],
    [{ email: 'a@b.co' }, 'Please enter your email and password.'],
    [{ email: '', password: 'x' }, 'Please enter your email and password.'],
    [{ email: 'a@b.co', password: '' }, 'Please enter your email and password.'],
    [{ email: ['a'], password: 'x' }, 'Please enter your email and password.'],
  ])('refuses %j with 400 "%s"', async (body, message) => {
    const reply = await newClient(stack).call('/api/auth/login', { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message });
  });

  it('limits password attempts per email and address; the owner elsewhere still signs in', async () => {
    const user = await createUser(stack);
    const attacker = newClient(stack);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (await attacker.call('/api/auth/login', { body: { email: user.email, password: 'Wrong!Passw0rd' } }))
          .status,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const limited = await attacker.call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe('Too many attempts. Please try again in a few minutes.');
    // The account is slowed, not locked: its owner signs in from their own address.
    const owner = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(owner.status).toBe(200);
  });

  it('limits attempts per address across many emails', async () => {
    const client = newClient(stack);
    // Age the counter instead of sending 100 requests: the limiter stores points per key.
    await db.query(sql.unsafe`
      INSERT INTO rate_limits (key, points, expire) VALUES (${`login-ip:${client.ip}`}, 100, ${Date.now() + 600_000})`);
    const reply = await client.call('/api/auth/login', {
      body: { email: uniqueEmail(), password: GOOD_PASSWORD },
    });
    expect(reply.status).toBe(429);
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the session: the old cookie is refused afterwards', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const token = client.cookies.get('legend_session')!;
    const out = await client.call('/api/auth/logout', { method: 'POST' });
    expect(out.status).toBe(200);
    expect(client.cookies.has('legend_session')).toBe(false);
    const replay = newClient(stack);
    replay.cookies.set('legend_session', token);
    expect((await replay.call('/api/auth/login')).status).toBe(401);
    expect((await replay.call('/api/user/profile')).status).toBe(401);
    expect(await countLiveSessions(db, user.id)).toBe(0);
  });

  it('is harmless without a session', async () => {
    const reply = await newClient(stack).call('/api/auth/logout', { method: 'POST' });
    expect(reply.status).toBe(200);
  });

  it('refuses a logout posted from another site', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const reply = await client.call('/api/auth/logout', {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    });
    expect(reply.status).toBe(403);
    expect((await client.call('/api/auth/login')).status).toBe(200);
  });
});

describe('sessions expire', () => {
  it('refuses a session idle for more than 14 days or older than 30', async () => {
    const user = await createUser(stack);
    const idle = newClient(stack);
    await logIn(idle, user.email);
    await db.query(
      sql.unsafe`UPDATE sessions SET last_seen_at = now() - interval '15 days' WHERE user_id = ${user.id}`,
    );
    expect((await idle.call('/api/auth/login')).status).toBe(401);

    const old = newClient(stack);
    await logIn(old, user.email);
    await db.query(
      sql.unsafe`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = ${user.id}`,
    );
    expect((await old.call('/api/auth/login')).status).toBe(401);
  });

  it('slides the idle window when the session is used', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    await db.query(
      sql.unsafe`UPDATE sessions SET last_seen_at = now() - interval '13 days' WHERE user_id = ${user.id}`,
    );
    expect((await client.call('/api/auth/login')).status).toBe(200);
    const seen = await db.oneFirst(
      sql.unsafe`SELECT now() - last_seen_at < interval '1 minute' FROM sessions WHERE user_id = ${user.id}`,
    );
    expect(seen).toBe(true);
  });
});

describe('POST /api/auth/forgot-password', () => {
  it('answers the same for an account, an unknown email and a pending sign-up (no enumeration)', async () => {
    const user = await createUser(stack);
    const pending = uniqueEmail();
    await newClient(stack).call('/api/auth/register', {
      body: { name: 'P', email: pending, phone: '9876543210', password: GOOD_PASSWORD },
    });
    for (const method of ['link', 'otp'] as const) {
      const replies = [];
      for (const email of [user.email, uniqueEmail(), pending]) {
        replies.push(await newClient(stack).call('/api/auth/forgot-password', { body: { email, method } }));
      }
      for (const reply of replies) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual(replies[0]!.body);
        expect(reply.body.message).toContain('success');
      }
    }
  });

  it('by link: mails a single-use link to /reset-password; reset sets the password and signs out everywhere', async () => {
    const user = await createUser(stack);
    const laptop = newClient(stack);
    const phone = newClient(stack);
    await logIn(laptop, user.email);
    await logIn(phone, user.email);
    expect(await countLiveSessions(db, user.id)).toBe(2);

    const asked = await newClient(stack).call('/api/auth/forgot-password', {
      body: { email: user.email, method: 'link' },
    });
    expect(asked.body).toEqual({ message: 'Reset link sent successfully. Please check your email.' });
    const mail = await waitForMail(stack, user.email, 'Reset your Legend Cloud password');
    const link = resetLink(mail.text);
    expect(link.path).toBe('/reset-password');
    expect(link.email).toBe(user.email);
    const jobs = await db.any(
      sql.type(
        z.object({ data: z.string() }),
      )`SELECT data::text AS data FROM pgboss.job WHERE data->>'to' = ${user.email}`,
    );
    for (const job of jobs) expect(job.data).not.toContain(link.token);

    const newPassword = 'N3w!Password';
    const reset = await newClient(stack).call('/api/auth/reset-password', {
      body: { email: link.email, token: link.token, newPassword },
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      message: 'Password reset successful. Please log in with your new password.',
    });
    expect(await countLiveSessions(db, user.id)).toBe(0);
    expect((await laptop.call('/api/auth/login')).status).toBe(401);
    expect((await phone.call('/api/auth/login')).status).toBe(401);

    const reused = await newClient(stack).call('/api/auth/reset-password', {
      body: { email: link.email, token: link.token, newPassword: 'An0ther!Password' },
    });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toBe('This reset link is invalid or has expired. Please ask for a new one.');

    const old = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(old.status).toBe(401);
    await logIn(newClient(stack), user.email, newPassword);
    await waitForMail(stack, user.email, 'password was changed');
  });

  it('refuses an expired link and a link for another email; asking again re-sends the live link', async () => {
    const user = await createUser(stack);
    const other = await createUser(stack);
    await newClient(stack).call('/api/auth/forgot-password', { body: { email: user.email, method: 'link' } });
    const first = resetLink((await waitForMail(stack, user.email, 'Reset your')).text);

    const wrongEmail = await newClient(stack).call('/api/auth/reset-password', {
      body: { email: other.email, token: first.token, newPassword: 'N3w!Password' },
    });
    expect(wrongEmail.status).toBe(400);

    // Asking again mails the same live link: no new link is minted, the first keeps working.
    await newClient(stack).call('/api/auth/forgot-password', { body: { email: user.email, method: 'link' } });
    const second = await waitFor('the second mail', async () => {
      const mails = (await stack.mailTo(user.email)).filter((m) => m.subject.includes('Reset your'));
      return mails.length >= 2 ? resetLink(mails[0]!.text) : undefined;
    });
    expect(second.token).toBe(first.token);
    expect(
      await db.oneFirst(
        sql.unsafe`SELECT count(*)::int FROM password_reset_tokens WHERE user_id = ${user.id}`,
      ),
    ).toBe(1);

    await db.query(
      sql.unsafe`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = ${user.id}`,
    );
    const expired = await newClient(stack).call('/api/auth/reset-password', {
      body: { email: user.email, token: second.token, newPassword: 'N3w!Password' },
    });
    expect(expired.status).toBe(400);
    const stillOld = await findUserByEmail(db, user.email);
    expect(stillOld?.password_hash).toBe(user.password_hash);
  });

  it.each([
    [{ token: 'x', newPassword: 'N3w!Password' }, 'Invalid or missing reset token or email.'],
    [{ email: 'a@b.co', newPassword: 'N3w!Password' }, 'Invalid or missing reset token or email.'],
    [{ email: 'a@b.co', token: 'x' }, 'Please enter a new password.'],
    [{ email: 'a@b.co', token: 'x', newPassword: '' }, 'Please enter a new password.'],
    [{ email: 'a@b.co', token: 'x', newPassword: 'weak' }, 'Enter a valid Password'],
  ])('reset refuses %j with 400 "%s"', async (body, message) => {
    const reply = await newClient(stack).call('/api/auth/reset-password', { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message });
  });

  it('by code: mails a code, and forgot-password/verify-otp logs in', async () => {
    const user = await createUser(stack, { name: 'Meera' });
    const client = newClient(stack);
    const asked = await client.call('/api/auth/forgot-password', {
      body: { email: user.email, method: 'otp' },
    });
    expect(asked.body).toEqual({ message: 'OTP sent successfully. Please check your email.' });
    const code = await mailedCode(stack, user.email, 'login code');
    const wrong = await client.call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: otherCode(code) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ message: 'Invalid or expired OTP' });
    const ok = await client.call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: code },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ email: user.email, name: 'Meera', phone: '9876543210', hasPlan: false });
    expect((await client.call('/api/auth/login')).status).toBe(200);
    const reused = await newClient(stack).call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: code },
    });
    expect(reused.status).toBe(400);
  });

  it('by code: five wrong tries kill the code, and an expired code is refused', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await client.call('/api/auth/forgot-password', { body: { email: user.email, method: 'otp' } });
    const code = await mailedCode(stack, user.email, 'login code');
    for (let i = 0; i < 6; i++) {
      await client.call('/api/auth/forgot-password/verify-otp', {
        body: { email: user.email, otp: otherCode(code) },
      });
    }
    expect(
      (await client.call('/api/auth/forgot-password/verify-otp', { body: { email: user.email, otp: code } }))
        .status,
    ).toBe(400);

    const second = await createUser(stack);
    await client.call('/api/auth/forgot-password', { body: { email: second.email, method: 'otp' } });
    const code2 = await mailedCode(stack, second.email, 'login code');
    await db.query(
      sql.unsafe`UPDATE one_time_codes SET expires_at = now() - interval '1 second' WHERE email = ${second.email}`,
    );
    expect(
      (
        await client.call('/api/auth/forgot-password/verify-otp', {
          body: { email: second.email, otp: code2 },
        })
      ).status,
    ).toBe(400);
  });

  it('sends a code for an unknown email to nobody', async () => {
    const email = uniqueEmail();
    await newClient(stack).call('/api/auth/forgot-password', { body: { email, method: 'otp' } });
    await newClient(stack).call('/api/auth/forgot-password', { body: { email, method: 'link' } });
    // Whatever the two requests enqueued has been sent once the mail queue is empty.
    await waitFor(
      'the mail queue to drain',
      async () =>
        (await stack.services.db.oneFirst(sql.unsafe`
          SELECT count(*)::int FROM pgboss.job
          WHERE name = 'email-send' AND state IN ('created', 'retry', 'active')`)) === 0,
    );
    expect(await stack.mailTo(email)).toEqual([]);
  });

  it('limits requests per email and address to one a minute per method, alike for every email', async () => {
    const user = await createUser(stack);
    for (const email of [user.email, uniqueEmail()]) {
      const client = newClient(stack);
      const first = await client.call('/api/auth/forgot-password', { body: { email, method: 'link' } });
      const second = await client.call('/api/auth/forgot-password', { body: { email, method: 'link' } });
      const elsewhere = await newClient(stack).call('/api/auth/forgot-password', {
        body: { email, method: 'link' },
      });
      expect([first.status, second.status, elsewhere.status]).toEqual([200, 429, 200]);
    }
  });

  it.each([
    [{ email: 'a@b.co' }, 'Choose Reset via Link or Login via OTP.'],
    [{ email: 'a@b.co', method: 'sms' }, 'Choose Reset via Link or Login via OTP.'],
    [{ method: 'link' }, 'Email is required.'],
    [{ email: 'bad', method: 'otp' }, 'Enter a valid email address.'],
  ])('refuses %j with 400 "%s"', async (body, message) => {
    const reply = await newClient(stack).call('/api/auth/forgot-password', { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message });
  });
});
