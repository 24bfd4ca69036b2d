import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { TWO_FACTOR_MESSAGES } from '../../core/domain/codeLimits.ts';
import { startTestStack } from '../support/stack.ts';
import {
  createUser,
  GOOD_PASSWORD,
  logIn,
  loopbackAddress,
  mailedCode,
  newClient,
  totp,
  waitForMail,
  withTwoFactor,
  type Client,
} from '../support/accounts.ts';
import { countLiveSessions } from '../support/rows.ts';

const stack = await startTestStack({ worker: true });
const db = stack.services.db;

async function passwordStep(client: Client, email: string) {
  const reply = await client.call('/api/auth/login', { body: { email, password: GOOD_PASSWORD } });
  expect(reply.status).toBe(200);
  expect(reply.body.twoFactorRequired).toBe(true);
  expect(reply.body.email).toBeUndefined();
  return reply;
}

describe('enrolment', () => {
  it('shows a QR code and the secret, stores the secret encrypted, and turns on only with a good code', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    expect((await client.call('/api/user/two-factor')).body).toEqual({
      enabled: false,
      recoveryCodesLeft: 0,
    });

    const setup = await client.call('/api/user/two-factor/setup', { method: 'POST' });
    expect(setup.body.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauthUrl).toContain('otpauth://totp/Legend%20Cloud:');
    const stored = await db.oneFirst(
      sql.unsafe`SELECT totp_pending_secret_encrypted FROM users WHERE id = ${user.id}`,
    );
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(setup.body.secret);

    const wrong = await client.call('/api/user/two-factor/enable', { body: { code: '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('That code is not right. Please try again.');

    const ok = await client.call('/api/user/two-factor/enable', {
      body: { code: await totp(setup.body.secret) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.recoveryCodes).toHaveLength(10);
    expect(new Set(ok.body.recoveryCodes).size).toBe(10);
    for (const code of ok.body.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const hashes = await db.anyFirst(
      sql.unsafe`SELECT code_hash FROM recovery_codes WHERE user_id = ${user.id}`,
    );
    expect(hashes).toHaveLength(10);
    for (const hash of hashes) expect(ok.body.recoveryCodes).not.toContain(hash);
    expect((await client.call('/api/user/two-factor')).body).toEqual({
      enabled: true,
      recoveryCodesLeft: 10,
    });
    await waitForMail(stack, user.email, 'Two-factor sign-in is on');

    const twice = await client.call('/api/user/two-factor/setup', { method: 'POST' });
    expect(twice.status).toBe(409);
  });

  it('needs a session', async () => {
    const anonymous = newClient(stack);
    expect((await anonymous.call('/api/user/two-factor')).status).toBe(401);
    expect((await anonymous.call('/api/user/two-factor/setup', { method: 'POST' })).status).toBe(401);
    expect((await anonymous.call('/api/user/two-factor/enable', { body: { code: '123456' } })).status).toBe(
      401,
    );
    expect((await anonymous.call('/api/user/two-factor/disable', { body: { code: '123456' } })).status).toBe(
      401,
    );
  });

  it('refuses enabling without a pending set-up', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const reply = await client.call('/api/user/two-factor/enable', { body: { code: '123456' } });
    expect(reply.status).toBe(400);
  });
});

describe('logging in with two-factor on', () => {
  it('password login asks for the code; a TOTP code finishes it, and the same code cannot be used again', async () => {
    const { user, secret } = await withTwoFactor(stack);
    const client = newClient(stack);
    await passwordStep(client, user.email);
    expect(client.cookies.has('legend_session')).toBe(false);
    expect((await client.call('/api/auth/login')).status).toBe(401);

    const code = await totp(secret, 1);
    const done = await client.call('/api/auth/two-factor', { body: { code } });
    expect(done.status).toBe(200);
    expect(done.body.email).toBe(user.email);
    expect((await client.call('/api/auth/login')).status).toBe(200);

    const replay = newClient(stack);
    await passwordStep(replay, user.email);
    const again = await replay.call('/api/auth/two-factor', { body: { code } });
    expect(again.status).toBe(400);
  });

  it('accepts a recovery code once', async () => {
    const { user, recoveryCodes } = await withTwoFactor(stack);
    const recovery = recoveryCodes[0]!;
    const client = newClient(stack);
    await passwordStep(client, user.email);
    const done = await client.call('/api/auth/two-factor', { body: { code: ` ${recovery.toUpperCase()} ` } });
    expect(done.status).toBe(200);

    const second = newClient(stack);
    await passwordStep(second, user.email);
    expect((await second.call('/api/auth/two-factor', { body: { code: recovery } })).status).toBe(400);
  });

  it('asks on the code login path too', async () => {
    const { user, secret } = await withTwoFactor(stack);
    const client = newClient(stack);
    await client.call('/api/auth/forgot-password', { body: { email: user.email, method: 'otp' } });
    const code = await mailedCode(stack, user.email, 'login code');
    const first = await client.call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: code },
    });
    expect(first.body.twoFactorRequired).toBe(true);
    expect(client.cookies.has('legend_session')).toBe(false);
    const done = await client.call('/api/auth/two-factor', { body: { code: await totp(secret, 1) } });
    expect(done.status).toBe(200);
  });

  it('ends the challenge after five wrong codes', async () => {
    const { user, secret } = await withTwoFactor(stack);
    const client = newClient(stack);
    await passwordStep(client, user.email);
    for (let i = 0; i < 5; i++) {
      expect((await client.call('/api/auth/two-factor', { body: { code: '000000' } })).status).toBe(400);
    }
    const late = await client.call('/api/auth/two-factor', { body: { code: await totp(secret, 1) } });
    expect(late.status).toBe(401);
    expect(late.body.message).toBe(TWO_FACTOR_MESSAGES.exhausted);
  });

  it('refuses the second step without a first, and after the challenge expired', async () => {
    const none = await newClient(stack).call('/api/auth/two-factor', { body: { code: '123456' } });
    expect(none.status).toBe(401);
    const { user, secret } = await withTwoFactor(stack);
    const client = newClient(stack);
    await passwordStep(client, user.email);
    await db.query(
      sql.unsafe`UPDATE two_factor_challenges SET expires_at = now() - interval '1 second' WHERE user_id = ${user.id}`,
    );
    expect(
      (await client.call('/api/auth/two-factor', { body: { code: await totp(secret, 1) } })).status,
    ).toBe(401);
  });

  it.each([[{}], [{ code: '' }], [{ code: 'x'.repeat(41) }]])('refuses %j with a 400', async (body) => {
    const reply = await newClient(stack).call('/api/auth/two-factor', { body });
    expect(reply.status).toBe(400);
  });
});

describe('disabling', () => {
  it('needs a current code; then login asks for the password only', async () => {
    const { user, client, secret } = await withTwoFactor(stack);
    const without = await client.call('/api/user/two-factor/disable', { body: { code: '000000' } });
    expect(without.status).toBe(400);
    const off = await client.call('/api/user/two-factor/disable', { body: { code: await totp(secret, 1) } });
    expect(off.status).toBe(200);
    expect((await client.call('/api/user/two-factor')).body).toEqual({
      enabled: false,
      recoveryCodesLeft: 0,
    });
    const plain = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(plain.body.email).toBe(user.email);
    expect(await countLiveSessions(db, user.id)).toBe(2);
  });
});

describe('wrong codes while signed in (turning two-factor on or off)', () => {
  it("stop a guesser after ten in their session and address only; the owner's session elsewhere still turns two-factor off and on, and the guesser stays refused", async () => {
    const { user, client: owner, secret, recoveryCodes } = await withTwoFactor(stack);
    // A session someone else holds (a borrowed laptop, a stolen cookie), at an address of its own.
    const thief = newClient(stack);
    await passwordStep(thief, user.email);
    expect((await thief.call('/api/auth/two-factor', { body: { code: recoveryCodes[0] } })).status).toBe(200);
    for (let i = 0; i < 10; i += 1) {
      const reply = await thief.call('/api/user/two-factor/disable', { body: { code: '000000' } });
      expect(reply.status).toBe(400);
    }
    // Refused before the code is looked at: a right one is not used up.
    const limited = await thief.call('/api/user/two-factor/disable', { body: { code: recoveryCodes[1] } });
    expect(limited.status).toBe(429);
    // Another session at the guesser's address is that guesser too.
    const thiefAgain = newClient(stack, thief.ip);
    await passwordStep(thiefAgain, user.email);
    expect((await thiefAgain.call('/api/auth/two-factor', { body: { code: recoveryCodes[2] } })).status).toBe(
      200,
    );
    const sameAddress = await thiefAgain.call('/api/user/two-factor/disable', {
      body: { code: recoveryCodes[3] },
    });
    expect(sameAddress.status).toBe(429);
    expect((await owner.call('/api/user/two-factor')).body).toEqual({ enabled: true, recoveryCodesLeft: 8 });

    // The owner, in their own session elsewhere, is not locked out by the guesses: off, then on again.
    const off = await owner.call('/api/user/two-factor/disable', { body: { code: await totp(secret, 1) } });
    expect(off.status).toBe(200);
    const setup = await owner.call('/api/user/two-factor/setup', { method: 'POST' });
    expect(setup.status).toBe(200);
    const on = await owner.call('/api/user/two-factor/enable', {
      body: { code: await totp(setup.body.secret) },
    });
    expect(on.status).toBe(200);

    // The guesser stays refused, even with a right code.
    const still = await thief.call('/api/user/two-factor/disable', {
      body: { code: on.body.recoveryCodes[0] },
    });
    expect(still.status).toBe(429);
    // And so does their session from another network (the same browser on mobile data).
    const moved = newClient(stack, loopbackAddress(), thief);
    const movedReply = await moved.call('/api/user/two-factor/disable', {
      body: { code: on.body.recoveryCodes[1] },
    });
    expect(movedReply.status).toBe(429);
    expect((await owner.call('/api/user/two-factor')).body).toEqual({ enabled: true, recoveryCodesLeft: 10 });
  });

  it('spend nothing on a right code: the count starts again after one', async () => {
    const { client, secret } = await withTwoFactor(stack);
    for (let i = 0; i < 9; i += 1) {
      const reply = await client.call('/api/user/two-factor/disable', { body: { code: '000000' } });
      expect(reply.status).toBe(400);
    }
    const off = await client.call('/api/user/two-factor/disable', { body: { code: await totp(secret, 1) } });
    expect(off.status).toBe(200);
    const setup = await client.call('/api/user/two-factor/setup', { method: 'POST' });
    for (let i = 0; i < 10; i += 1) {
      const reply = await client.call('/api/user/two-factor/enable', { body: { code: '000000' } });
      expect(reply.status).toBe(400);
    }
    const limited = await client.call('/api/user/two-factor/enable', {
      body: { code: await totp(setup.body.secret) },
    });
    expect(limited.status).toBe(429);
    expect((await client.call('/api/user/two-factor')).body).toEqual({
      enabled: false,
      recoveryCodesLeft: 0,
    });
  });
});
