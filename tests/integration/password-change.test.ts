import { describe, expect, it } from 'vitest';
import { PASSWORD_CHANGE_MESSAGES as PC, PASSWORD_TOO_LONG_MESSAGE } from '../../core/domain/password.ts';
import { startTestStack } from '../support/stack.ts';
import {
  createUser,
  GOOD_PASSWORD,
  googleClient,
  logIn,
  newClient,
  uniqueEmail,
  waitForMail,
  withTwoFactor,
} from '../support/accounts.ts';
import { countLiveSessions } from '../support/rows.ts';

/**
 * `POST /api/user/password` (the Security page): the sign-up's rules, the current password
 * proven (a wrong one a 400, limited like a login), every other session signed out at once
 * (the in-process session cache included), the owner mailed; an account made with Google sets
 * a first password; two-factor stays in force and is not asked again.
 */

const stack = await startTestStack({ worker: true, captureLogs: true });
const db = stack.services.db;
const NEW_PASSWORD = 'N3w!Passw0rd-2026';

describe('POST /api/user/password', () => {
  it('changes the password, signs out every other session at once, keeps this one and mails the owner', async () => {
    const user = await createUser(stack);
    const here = newClient(stack);
    const phone = newClient(stack);
    const laptop = newClient(stack);
    await logIn(here, user.email);
    await logIn(phone, user.email);
    await logIn(laptop, user.email);
    // Both other sessions were just read, so the web process answers them from its cache.
    expect((await phone.call('/api/auth/login')).status).toBe(200);
    expect((await laptop.call('/api/vm/dashboard')).status).toBe(200);

    const changed = await here.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ message: PC.changed });

    // At once, not after the cache's few seconds, and each device is told why on its next request.
    const phoneAsks = await phone.call('/api/auth/login');
    expect(phoneAsks.status).toBe(401);
    expect(phoneAsks.headers.get('x-session-ended')).toBe('password-changed');
    const laptopAsks = await laptop.call('/api/vm/dashboard');
    expect(laptopAsks.status).toBe(401);
    expect(laptopAsks.headers.get('x-session-ended')).toBe('password-changed');
    expect((await here.call('/api/auth/login')).status).toBe(200);
    expect(await countLiveSessions(db, user.id)).toBe(1);

    const old = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(old.status).toBe(401);
    await logIn(newClient(stack), user.email, NEW_PASSWORD);

    const mail = await waitForMail(stack, user.email, 'Your Legend Cloud password was changed');
    expect(mail.text).toContain('Every other device signed in to your account was signed out.');
    expect(mail.text).not.toContain(NEW_PASSWORD);
  });

  it('refuses a wrong current password with a 400 that says so, and changes nothing', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    const other = newClient(stack);
    await logIn(client, user.email);
    await logIn(other, user.email);
    const wrong = await client.call('/api/user/password', {
      body: { currentPassword: 'Wr0ng!Password', newPassword: NEW_PASSWORD },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ message: PC.currentWrong });
    const missing = await client.call('/api/user/password', { body: { newPassword: NEW_PASSWORD } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: PC.currentRequired });
    expect((await other.call('/api/auth/login')).status).toBe(200);
    await logIn(newClient(stack), user.email, GOOD_PASSWORD);
  });

  it.each([
    ['short1!A', 'Enter a valid Password'],
    [`Aa1!${'x'.repeat(300)}`, PASSWORD_TOO_LONG_MESSAGE],
    ['', PC.newRequired],
    [GOOD_PASSWORD, PC.sameAsCurrent],
  ])('holds the new password %# to the sign-up rules', async (newPassword, message) => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const reply = await client.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message });
  });

  it("stops a guesser of the current password after ten tries in their session and address only; the owner's session still changes it, and the owner is mailed once", async () => {
    const user = await createUser(stack);
    const owner = newClient(stack);
    await logIn(owner, user.email);
    // A session someone else holds (a borrowed laptop, a stolen cookie), at an address of its own.
    const thief = newClient(stack);
    await logIn(thief, user.email);
    for (let i = 0; i < 10; i += 1) {
      const reply = await thief.call('/api/user/password', {
        body: { currentPassword: `Guess!${i}Password`, newPassword: NEW_PASSWORD },
      });
      expect(reply.status).toBe(400);
    }
    const limited = await thief.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(limited.status).toBe(429);
    // Another session at the guesser's address is that guesser too.
    const thiefAgain = newClient(stack, thief.ip);
    await logIn(thiefAgain, user.email);
    const sameAddress = await thiefAgain.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(sameAddress.status).toBe(429);

    // Someone else's account from that address is not theirs to spend.
    const someoneElse = await createUser(stack);
    const theirs = newClient(stack, thief.ip);
    await logIn(theirs, someoneElse.email);
    const fine = await theirs.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(fine.status).toBe(200);

    // The owner, in their own session elsewhere, is not locked out by the guesses.
    const changed = await owner.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    const warning = await waitForMail(
      stack,
      user.email,
      'Someone tried to change your Legend Cloud password',
    );
    expect(warning.text).toContain(thief.ip);
    expect(warning.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(warning.text).toContain(`${stack.config.publicUrl}/forgot-password`);

    await waitForMail(stack, user.email, 'Your Legend Cloud password was changed');
    const warnings = (await stack.mailTo(user.email)).filter((m) =>
      m.subject.includes('Someone tried to change your Legend Cloud password'),
    );
    expect(warnings).toHaveLength(1);
    // Six wrong guesses past the threshold, one mail, one "owner warned" in the log.
    expect(
      stack.logs.filter((l) => String(l.msg).endsWith('owner warned') && l.userId === user.id),
    ).toHaveLength(1);
  });

  it('lets an account made with Google set a first password, then log in with it', async () => {
    const email = uniqueEmail('google');
    const client = await googleClient(stack, email);
    expect((await client.call('/api/user/password')).body).toEqual({ hasPassword: false });

    const set = await client.call('/api/user/password', { body: { newPassword: NEW_PASSWORD } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ message: PC.set });
    expect((await client.call('/api/user/password')).body).toEqual({ hasPassword: true });
    await logIn(newClient(stack), email, NEW_PASSWORD);
    await waitForMail(stack, email, 'A password was set on your Legend Cloud account');

    // Now it has one, the next change must prove it.
    const again = await client.call('/api/user/password', { body: { newPassword: 'An0ther!Passw0rd' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: PC.currentRequired });
  });

  it('with two-factor on: changes without a code, and the new password still needs the second factor', async () => {
    const { user, client } = await withTwoFactor(stack);

    const changed = await client.call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    const login = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.twoFactorRequired).toBe(true);
    expect(login.body.email).toBeUndefined();
  });

  it('voids a reset link mailed before the change', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    await newClient(stack).call('/api/auth/forgot-password', { body: { email: user.email, method: 'link' } });
    const mail = await waitForMail(stack, user.email, 'Reset your Legend Cloud password');
    const url = new URL(/https?:\/\/\S+\/reset-password\?\S+/.exec(mail.text)![0]);
    expect(
      (
        await client.call('/api/user/password', {
          body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
        })
      ).status,
    ).toBe(200);
    const reset = await newClient(stack).call('/api/auth/reset-password', {
      body: {
        email: url.searchParams.get('email'),
        token: url.searchParams.get('token'),
        newPassword: 'Att4cker!Password',
      },
    });
    expect(reset.status).toBe(400);
    await logIn(newClient(stack), user.email, NEW_PASSWORD);
  });

  it('answers 401 without a session', async () => {
    const reply = await newClient(stack).call('/api/user/password', {
      body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(reply.status).toBe(401);
    expect((await newClient(stack).call('/api/user/password')).status).toBe(401);
  });
});
