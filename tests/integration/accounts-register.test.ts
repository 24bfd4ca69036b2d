import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findUserByEmail } from '../../core/db/users.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import {
  createUser,
  GOOD_PASSWORD,
  mailedCode,
  newClient,
  otherCode,
  uniqueEmail,
  waitForMail,
} from '../support/accounts.ts';

const stack = await startTestStack({ worker: true });
const form = (email: string) => ({ name: 'Asha Rao', email, phone: '9876543210', password: GOOD_PASSWORD });
const CODE_SUBJECT = 'verification code';

describe('POST /api/auth/register', () => {
  it('keeps the sign-up pending, mails a 6-digit code, and verify-otp creates the account and logs in', async () => {
    const client = newClient(stack);
    const email = uniqueEmail();
    const registered = await client.call('/api/auth/register', {
      body: { ...form(email), email: `  ${email.toUpperCase()} ` },
    });
    expect(registered.status).toBe(200);
    expect(registered.body).toEqual({ message: 'OTP sent to your email.' });
    expect(await findUserByEmail(stack.services.db, email)).toBeNull();

    const pending = await stack.services.db.one(
      sql.type(
        z.object({ name: z.string(), phone: z.string(), password_hash: z.string() }),
      )`SELECT name, phone, password_hash FROM pending_registrations WHERE email = ${email}`,
    );
    expect(pending.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(pending)).not.toContain(GOOD_PASSWORD);

    const code = await mailedCode(stack, email, CODE_SUBJECT);
    const verified = await client.call('/api/auth/verify-otp', { body: { ...form(email), otp: code } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ email, name: 'Asha Rao', phone: '9876543210', hasPlan: false });
    expect([...client.cookies.keys()]).toContain('legend_session');

    const session = await client.call('/api/auth/login');
    expect(session.status).toBe(200);
    expect(session.body.email).toBe(email);

    const user = await findUserByEmail(stack.services.db, email);
    expect(user?.email_verified_at).toBeInstanceOf(Date);
    expect(
      await stack.services.db.maybeOne(
        sql.unsafe`SELECT 1 FROM pending_registrations WHERE email = ${email}`,
      ),
    ).toBeNull();
  });

  it('mails the code to any address the sign-up accepts, special characters included', async () => {
    // The mail queue once held addresses to a stricter rule than the sign-up: a 500 after a yes.
    for (const local of ["o'brien+pc", 'a!b#c$d', 'x{y}z~w']) {
      const email = `${local}.${Date.now()}@example.com`;
      const registered = await newClient(stack).call('/api/auth/register', { body: form(email) });
      expect(registered.status, email).toBe(200);
      await mailedCode(stack, email, CODE_SUBJECT);
    }
  });

  it('never puts the code in plain text in the job table', async () => {
    const client = newClient(stack);
    const email = uniqueEmail();
    await client.call('/api/auth/register', { body: form(email) });
    const code = await mailedCode(stack, email, CODE_SUBJECT);
    const jobs = await stack.services.db.any(
      sql.type(
        z.object({ data: z.string() }),
      )`SELECT data::text AS data FROM pgboss.job WHERE name = 'email-code' AND data->>'to' = ${email}`,
    );
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(job.data).not.toContain(code);
      expect(job.data).toContain('{{sealed.code}}');
    }
    const stored = await stack.services.db.oneFirst(
      sql.unsafe`SELECT code_hash FROM one_time_codes WHERE email = ${email} ORDER BY created_at DESC LIMIT 1`,
    );
    expect(stored).not.toContain(code);
  });

  it('answers 409 "User already exists. Please login." for a verified account, in any letter case', async () => {
    const user = await createUser(stack);
    const response = await newClient(stack).call('/api/auth/register', {
      body: form(user.email.toUpperCase()),
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: 'User already exists. Please login.' });
  });

  it('answers a second sign-up of a still-pending email like the first (pending is not an account)', async () => {
    const email = uniqueEmail();
    const first = await newClient(stack).call('/api/auth/register', { body: form(email) });
    const second = await newClient(stack).call('/api/auth/register', {
      body: { ...form(email), name: 'Someone Else' },
    });
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
  });

  it.each([
    [{ email: 'a@b.co', phone: '9876543210', password: GOOD_PASSWORD }, 'Name is required.'],
    [{ name: '   ', email: 'a@b.co', phone: '9876543210', password: GOOD_PASSWORD }, 'Name is required.'],
    [{ name: 'A', phone: '9876543210', password: GOOD_PASSWORD }, 'Email is required.'],
    [
      { name: 'A', email: 'not-an-email', phone: '9876543210', password: GOOD_PASSWORD },
      'Enter a valid email address.',
    ],
    [{ name: 'A', email: 'a@b.co', password: GOOD_PASSWORD }, 'Phone is required.'],
    [
      { name: 'A', email: 'a@b.co', phone: '5876543210', password: GOOD_PASSWORD },
      'Enter a valid 10-digit phone number starting with 6-9.',
    ],
    [
      { name: 'A', email: 'a@b.co', phone: '98765', password: GOOD_PASSWORD },
      'Enter a valid 10-digit phone number starting with 6-9.',
    ],
    [{ name: 'A', email: 'a@b.co', phone: 9876543210, password: GOOD_PASSWORD }, 'Phone is required.'],
    [{ name: 'A', email: 'a@b.co', phone: '9876543210' }, 'Password is required.'],
    [{ name: 'A', email: 'a@b.co', phone: '9876543210', password: 'short1!A' }, 'Enter a valid Password'],
    [
      { name: 'A', email: 'a@b.co', phone: '9876543210', password: 'nouppercase1!' },
      'Enter a valid Password',
    ],
    [
      { name: 'A', email: 'a@b.co', phone: '9876543210', password: 'NoDigitsHere!' },
      'Enter a valid Password',
    ],
    [{ name: 'A', email: 'a@b.co', phone: '9876543210', password: 'NoSpecial123' }, 'Enter a valid Password'],
    [
      { name: 'A', email: 'a@b.co', phone: '9876543210', password: `Aa1!${'x'.repeat(200)}` },
      'Password must be at most 128 characters.',
    ],
    [
      { name: 'x'.repeat(101), email: 'a@b.co', phone: '9876543210', password: GOOD_PASSWORD },
      'Name must be at most 100 characters.',
    ],
  ])('refuses %j with 400 "%s" and mails nothing', async (body, message) => {
    const response = await newClient(stack).call('/api/auth/register', { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message });
  });

  it('answers malformed JSON with a 400 message, not a 5xx', async () => {
    const response = await newClient(stack).call('/api/auth/register', { body: '{"name":' });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('The request body is not valid JSON.');
  });
});

describe('POST /api/auth/verify-otp', () => {
  it('refuses the right code after five wrong ones: the code is dead', async () => {
    const client = newClient(stack);
    const email = uniqueEmail();
    await client.call('/api/auth/register', { body: form(email) });
    const code = await mailedCode(stack, email, CODE_SUBJECT);
    const wrong = otherCode(code);
    const statuses: Array<[number, string]> = [];
    for (let i = 0; i < 6; i++) {
      const r = await client.call('/api/auth/verify-otp', { body: { email, otp: wrong } });
      statuses.push([r.status, r.body.message]);
    }
    expect(statuses.slice(0, 5)).toEqual(
      Array(5).fill([400, 'Invalid OTP. Please check the code and try again.']),
    );
    expect(statuses[5]).toEqual([
      400,
      'This OTP has expired or was tried too many times. Please request a new one.',
    ]);
    const right = await client.call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(right.status).toBe(400);
    expect(await findUserByEmail(stack.services.db, email)).toBeNull();
    expect(client.cookies.has('legend_session')).toBe(false);
  });

  it('refuses an expired code', async () => {
    const client = newClient(stack);
    const email = uniqueEmail();
    await client.call('/api/auth/register', { body: form(email) });
    const code = await mailedCode(stack, email, CODE_SUBJECT);
    await stack.services.db.query(
      sql.unsafe`UPDATE one_time_codes SET expires_at = now() - interval '1 second' WHERE email = ${email}`,
    );
    const response = await client.call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(
      'This OTP has expired or was tried too many times. Please request a new one.',
    );
  });

  it('refuses a code used once already', async () => {
    const email = uniqueEmail();
    const client = newClient(stack);
    await client.call('/api/auth/register', { body: form(email) });
    const code = await mailedCode(stack, email, CODE_SUBJECT);
    expect((await client.call('/api/auth/verify-otp', { body: { email, otp: code } })).status).toBe(200);
    const again = await newClient(stack).call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(again.status).toBe(400);
  });

  it.each([
    [{ email: 'a@b.co' }, 'Please enter the OTP.'],
    [{ email: 'a@b.co', otp: '12345' }, 'The OTP is the 6-digit code from your email.'],
    [{ email: 'a@b.co', otp: 'abcdef' }, 'The OTP is the 6-digit code from your email.'],
    [{ otp: '123456' }, 'Email is required.'],
  ])('refuses %j with 400 "%s"', async (body, message) => {
    const response = await newClient(stack).call('/api/auth/verify-otp', { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message });
  });

  it('refuses a code for an email with no sign-up', async () => {
    const response = await newClient(stack).call('/api/auth/verify-otp', {
      body: { email: uniqueEmail(), otp: '123456' },
    });
    expect(response.status).toBe(400);
  });

  it('limits code checks per email and address, leaving other addresses alone', async () => {
    const email = uniqueEmail();
    const guesser = newClient(stack);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await guesser.call('/api/auth/verify-otp', { body: { email, otp: '000000' } })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Someone else (the person signing up) is not locked out by the guesser.
    const other = await newClient(stack).call('/api/auth/verify-otp', { body: { email, otp: '000000' } });
    expect(other.status).toBe(400);
  });

  it('a second sign-up for the same email elsewhere cannot set the password the first one creates', async () => {
    const person = newClient(stack);
    const stranger = newClient(stack);
    const email = uniqueEmail();
    await person.call('/api/auth/register', { body: form(email) });
    const code = await mailedCode(stack, email, CODE_SUBJECT);
    // Someone who knows the address signs it up too, with a password and phone of their own.
    const strangersPassword = `${GOOD_PASSWORD}-stranger`;
    const theirs = await stranger.call('/api/auth/register', {
      body: { ...form(email), name: 'Not Asha', phone: '9123456789', password: strangersPassword },
    });
    expect(theirs.status).toBe(200);
    await waitFor('the second code', async () => {
      const list = (await stack.mailTo(email)).filter((m) => m.subject.includes(CODE_SUBJECT));
      return list.length >= 2 ? list : undefined;
    });

    // The person's own code creates the account they asked for: their name, phone and password.
    const verified = await person.call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ name: 'Asha Rao', phone: '9876543210' });
    const login = (password: string) =>
      newClient(stack).call('/api/auth/login', { body: { email, password } });
    expect((await login(strangersPassword)).status).toBe(401);
    expect((await login(GOOD_PASSWORD)).status).toBe(200);
  });

  it('accepts a code only from the browser that asked for it', async () => {
    const owner = newClient(stack);
    const email = uniqueEmail();
    await owner.call('/api/auth/register', { body: form(email) });
    const code = await mailedCode(stack, email, CODE_SUBJECT);
    const stranger = await newClient(stack).call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(stranger.status).toBe(400);
    const ok = await owner.call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(ok.status).toBe(200);
  });
});

describe('POST /api/auth/resend-otp', () => {
  it('mails a new code while the first still works, then is limited to once a minute', async () => {
    const client = newClient(stack);
    const email = uniqueEmail();
    await client.call('/api/auth/register', { body: form(email) });
    const first = await mailedCode(stack, email, CODE_SUBJECT);

    const resent = await client.call('/api/auth/resend-otp', { body: { email } });
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ message: 'A new OTP has been sent to your email.' });
    const mails = await waitFor('the second code', async () => {
      const list = (await stack.mailTo(email)).filter((m) => m.subject.includes(CODE_SUBJECT));
      return list.length >= 2 ? list : undefined;
    });
    const second = /\b(\d{6})\b/.exec(mails[0]!.text)![1]!;

    const again = await client.call('/api/auth/resend-otp', { body: { email } });
    expect(again.status).toBe(429);
    expect(again.body.message).toBe('Please wait a minute before asking for another code.');
    expect(again.headers.get('retry-after')).toMatch(/^\d+$/);

    // The first mail's code still works; using it retires the second too.
    const ok = await client.call('/api/auth/verify-otp', { body: { email, otp: first } });
    expect(ok.status).toBe(200);
    if (first !== second) {
      const other = await newClient(stack).call('/api/auth/verify-otp', { body: { email, otp: second } });
      expect(other.status).toBe(400);
    }
  });

  it('re-sends the live code on a resend, so a resend buys no extra guesses', async () => {
    const client = newClient(stack);
    const email = uniqueEmail();
    await client.call('/api/auth/register', { body: form(email) });
    const first = await mailedCode(stack, email, CODE_SUBJECT);
    const wrong = otherCode(first);
    for (let i = 0; i < 4; i++) {
      expect((await client.call('/api/auth/verify-otp', { body: { email, otp: wrong } })).status).toBe(400);
    }
    const before = new Date().toISOString();
    expect((await client.call('/api/auth/resend-otp', { body: { email } })).status).toBe(200);
    expect(await mailedCode(stack, email, CODE_SUBJECT, before)).toBe(first);
    // The fifth miss kills the code; there is no second one.
    expect((await client.call('/api/auth/verify-otp', { body: { email, otp: wrong } })).status).toBe(400);
    const late = await client.call('/api/auth/verify-otp', { body: { email, otp: first } });
    if (late.status === 200) throw new Error('the code outlived its five wrong guesses');
    const rows = await stack.services.db.any(
      sql.type(z.object({ attempts: z.number() }))`
        SELECT attempts FROM one_time_codes WHERE email = ${email} ORDER BY created_at`,
    );
    expect(rows.map((r) => r.attempts)).toEqual([5]);
  });

  it("paces one inbox's mails (a short wait, never an hour) and allows five an hour per email and address", async () => {
    const email = uniqueEmail();
    const client = newClient(stack);
    await client.call('/api/auth/register', { body: form(email) });
    // The minute limit would stop the second resend; age its counter to test the others.
    const clearMinute = () =>
      stack.services.db.query(sql.unsafe`DELETE FROM rate_limits WHERE key LIKE 'code-send-pair-minute:%'`);
    const replies = [];
    for (let i = 0; i < 4; i++) {
      await clearMinute();
      replies.push(await client.call('/api/auth/resend-otp', { body: { email } }));
    }
    // The register and two resends are the inbox's burst; then a wait of five minutes at most
    // (the sign-up's own browser is not yet one that signed in, so it meets the proof of work).
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429, 428]);
    expect(Number(replies[2]!.headers.get('retry-after'))).toBeLessThanOrEqual(300);
    expect(replies[2]!.body.message).toMatch(/Please try again in [1-5] minutes?\./);
    expect(replies[3]!.body.proofOfWork).toBe(true);
    // The pair's five an hour: the register and three resends spent four, the puzzle none.
    await stack.services.db.query(sql.unsafe`DELETE FROM code_mail_budgets WHERE email = ${email}`);
    await clearMinute();
    expect((await client.call('/api/auth/resend-otp', { body: { email } })).status).toBe(200);
    await stack.services.db.query(sql.unsafe`DELETE FROM code_mail_budgets WHERE email = ${email}`);
    await clearMinute();
    const sixth = await client.call('/api/auth/resend-otp', { body: { email } });
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toBe('Too many codes requested. Please try again in an hour.');
    // Other browsers have no sign-up of their own to resend (400) and spend nothing of the inbox.
    const others: number[] = [];
    for (let i = 0; i < 6; i++) {
      others.push((await newClient(stack).call('/api/auth/resend-otp', { body: { email } })).status);
    }
    expect(others).toEqual([400, 400, 400, 400, 400, 400]);
  });

  it('asks to register again when there is no pending sign-up (same for a verified account)', async () => {
    const unknown = await newClient(stack).call('/api/auth/resend-otp', { body: { email: uniqueEmail() } });
    const user = await createUser(stack);
    const verified = await newClient(stack).call('/api/auth/resend-otp', { body: { email: user.email } });
    expect(unknown.status).toBe(400);
    expect(verified.status).toBe(400);
    expect(verified.body).toEqual(unknown.body);
  });

  it('refuses a bad email with a 400', async () => {
    const response = await newClient(stack).call('/api/auth/resend-otp', { body: { email: 'nope' } });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Enter a valid email address.');
  });
});

describe('the mail', () => {
  it('greets by name and says how long the code lasts', async () => {
    const email = uniqueEmail();
    await newClient(stack).call('/api/auth/register', { body: form(email) });
    const mail = await waitForMail(stack, email, CODE_SUBJECT);
    expect(mail.text).toContain('Hi Asha Rao,');
    expect(mail.text).toMatch(/Your verification code is \d{6}\./);
    expect(mail.text).toContain('expires in 10 minutes');
    expect(mail.html).toMatch(/\d{6}/);
  });
});
