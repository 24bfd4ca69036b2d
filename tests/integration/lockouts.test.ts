import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { INBOX_BURST, INBOX_INTERVAL_SECONDS } from '../../core/domain/codeLimits.ts';
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
  totp,
  withTwoFactor,
  type Client,
  type Reply,
} from '../support/accounts.ts';

/**
 * The probe's lockouts, aimed at an owner by strangers from distinct loopback addresses (each
 * client connects from an address of its own, as real clients would), against the real stack:
 * someone else's requests must never refuse the owner a code or a second factor.
 */

const stack = await startTestStack({ worker: true, captureLogs: true });
const db = stack.services.db;

/** Tried (answered 2xx) and refused (4xx) counts of a batch of replies. */
function tally(replies: Reply[]) {
  return {
    tried: replies.filter((r) => r.status < 300).length,
    refused: replies.filter((r) => r.status >= 400).length,
  };
}

/** Asks as the SPA does: solves the proof-of-work puzzle when the server asks for one (428). */
async function ask(client: Client, path: string, body: Record<string, unknown>): Promise<Reply> {
  const first = await client.call(path, { body });
  if (first.status !== 428) return first;
  expect(first.body.proofOfWork).toBe(true);
  const challenge = (await client.call('/api/auth/proof-of-work')).body as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  expect(solution).not.toBeNull();
  const proof = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64url');
  return client.call(path, { body: { ...body, proof } });
}

/** The inbox's wait passes (its budget moves back in time by one interval). */
async function inboxWaitPasses(email: string) {
  await db.query(sql.unsafe`
    UPDATE code_mail_budgets SET tat = tat - make_interval(secs => ${INBOX_INTERVAL_SECONDS}) WHERE email = ${email}`);
}

/** Waits until the strangers' `count` mails to `email` went out, so newer mails are someone else's. */
async function strangersMailed(email: string, count: number) {
  await waitFor("the strangers' mails", async () =>
    (await stack.mailTo(email)).length >= count ? true : undefined,
  );
}

/** Ten strangers, each from an address of its own, ask for codes for `email`. */
async function tenStrangers(path: string, body: Record<string, unknown>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < 10; i++) replies.push(await newClient(stack).call(path, { body }));
  return replies;
}

describe('emailed codes cannot be aimed at an owner', () => {
  it.each(['otp', 'link'] as const)(
    'forgot-password (%s) from ten addresses: the known browser gets its mail at once',
    async (method) => {
      const user = await createUser(stack);
      const owner = newClient(stack);
      await logIn(owner, user.email);
      await owner.call('/api/auth/logout', { method: 'POST' });

      const attack = tally(await tenStrangers('/api/auth/forgot-password', { email: user.email, method }));
      await strangersMailed(user.email, attack.tried);
      const started = new Date().toISOString();
      const asked = await owner.call('/api/auth/forgot-password', { body: { email: user.email, method } });
      console.log(
        `forgot-password ${method}: strangers ${attack.tried} tried / ${attack.refused} refused; known browser: ${asked.status}`,
      );
      expect(attack.refused).toBeGreaterThan(0);
      expect(asked.status).toBe(200);
      if (method === 'otp') {
        const code = await mailedCode(stack, user.email, 'login code', started);
        const signedIn = await owner.call('/api/auth/forgot-password/verify-otp', {
          body: { email: user.email, otp: code },
        });
        expect(signedIn.status).toBe(200);
      } else {
        await waitForMail(stack, user.email, 'Reset your Legend Cloud password', started);
      }
    },
  );

  it("tells the owner's new browser to wait five minutes at most, then sends its code", async () => {
    const user = await createUser(stack);
    const attack = tally(
      await tenStrangers('/api/auth/forgot-password', { email: user.email, method: 'otp' }),
    );
    await strangersMailed(user.email, attack.tried);
    const newBrowser = newClient(stack);
    let refusals = 0;
    const asked = new Date().toISOString();
    let reply = await ask(newBrowser, '/api/auth/forgot-password', { email: user.email, method: 'otp' });
    while (reply.status === 429) {
      refusals++;
      const wait = Number(reply.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(300);
      expect(reply.body.message).toMatch(/try again in [1-5] minutes?\./);
      expect(refusals).toBeLessThanOrEqual(1);
      await inboxWaitPasses(user.email);
      // A new address too, as a phone moving networks: the browser's own minute limit is per address.
      reply = await ask(newClient(stack, undefined, newBrowser), '/api/auth/forgot-password', {
        email: user.email,
        method: 'otp',
      });
    }
    console.log(
      `new browser under attack: strangers ${attack.tried} tried / ${attack.refused} refused; owner refused ${refusals} time(s), waited ≤ 5 min`,
    );
    expect(reply.status).toBe(200);
    const code = await mailedCode(stack, user.email, 'login code', asked);
    const signedIn = await newBrowser.call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: code },
    });
    expect(signedIn.status).toBe(200);
  });

  it('a sign-up aimed at from ten addresses still reaches the person signing up', async () => {
    const email = uniqueEmail('signup-target');
    const form = { name: 'Asha Rao', email, phone: '9876543210', password: GOOD_PASSWORD };
    const attack = tally(await tenStrangers('/api/auth/register', form));
    await strangersMailed(email, attack.tried);
    const person = newClient(stack);
    const asked = new Date().toISOString();
    let reply = await ask(person, '/api/auth/register', form);
    let refusals = 0;
    while (reply.status === 429) {
      refusals++;
      expect(Number(reply.headers.get('retry-after'))).toBeLessThanOrEqual(300);
      expect(refusals).toBeLessThanOrEqual(1);
      await inboxWaitPasses(email);
      reply = await ask(person, '/api/auth/register', form);
    }
    console.log(
      `sign-up under attack: strangers ${attack.tried} tried / ${attack.refused} refused; person refused ${refusals} time(s)`,
    );
    expect(reply.status).toBe(200);
    // The code mail sent after the strangers' is the person's.
    const code = await mailedCode(stack, email, 'verification code', asked);
    const done = await person.call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(done.status).toBe(200);
    expect(done.body.email).toBe(email);
  });

  it("sign-ups of an existing account's email spend none of its inbox: the owner's new browser gets its code at once", async () => {
    const user = await createUser(stack);
    const form = { name: 'Asha Rao', email: user.email, phone: '9876543210', password: GOOD_PASSWORD };
    // More than the inbox's burst, from addresses of their own: each is told the account exists,
    // and no mail goes, so none counts against the inbox.
    const replies = await tenStrangers('/api/auth/register', form);
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(409));
    expect(await stack.mailTo(user.email)).toEqual([]);

    const owner = newClient(stack);
    const asked = await owner.call('/api/auth/forgot-password', {
      body: { email: user.email, method: 'otp' },
    });
    expect(asked.status).toBe(200);
    const code = await mailedCode(stack, user.email, 'login code');
    const signedIn = await owner.call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: code },
    });
    expect(signedIn.status).toBe(200);
  });

  it('protects the inbox: a burst of requests mails a few codes, and a repeat re-sends the live code', async () => {
    const user = await createUser(stack);
    const replies = await tenStrangers('/api/auth/forgot-password', { email: user.email, method: 'otp' });
    expect(tally(replies).tried).toBe(INBOX_BURST);
    await waitFor('the allowed mails', async () =>
      (await stack.mailTo(user.email)).length === INBOX_BURST ? true : undefined,
    );

    const owner = newClient(stack);
    await logIn(owner, user.email);
    await owner.call('/api/auth/logout', { method: 'POST' });
    const first = new Date().toISOString();
    expect(
      (await owner.call('/api/auth/forgot-password', { body: { email: user.email, method: 'otp' } })).status,
    ).toBe(200);
    const code = await mailedCode(stack, user.email, 'login code', first);
    // The same browser asks again from another network: the same code, not a new one.
    const again = new Date().toISOString();
    const elsewhere = newClient(stack, undefined, owner);
    expect(
      (await elsewhere.call('/api/auth/forgot-password', { body: { email: user.email, method: 'otp' } }))
        .status,
    ).toBe(200);
    expect(await mailedCode(stack, user.email, 'login code', again)).toBe(code);
    const live = await db.oneFirst(sql.unsafe`
      SELECT count(*)::int FROM one_time_codes WHERE email = ${user.email} AND consumed_at IS NULL
        AND requester_hash IN (SELECT requester_hash FROM one_time_codes WHERE email = ${user.email}
          ORDER BY created_at DESC LIMIT 1)`);
    expect(live).toBe(1);
  });
});

describe('two-factor cannot be aimed at an owner', () => {
  it("ten wrong codes over two sign-ins with the password: the owner's code and recovery code still work", async () => {
    const { user, secret, recoveryCodes } = await withTwoFactor(stack);
    const replies: Reply[] = [];
    for (let login = 0; login < 2; login++) {
      const attacker = newClient(stack);
      await attacker.call('/api/auth/login', { body: { email: user.email, password: GOOD_PASSWORD } });
      for (let i = 0; i < 5; i++) {
        replies.push(await attacker.call('/api/auth/two-factor', { body: { code: '000000' } }));
      }
      // The sixth says what happened: this sign-in used its tries.
      const sixth = await attacker.call('/api/auth/two-factor', { body: { code: '000000' } });
      expect(sixth.status).toBe(401);
      expect(sixth.body.message).toContain('Too many wrong codes for this sign-in');
      expect(sixth.body.message).not.toContain('expired');
    }
    const attack = tally(replies);

    const owner = newClient(stack);
    await owner.call('/api/auth/login', { body: { email: user.email, password: GOOD_PASSWORD } });
    const byCode = await owner.call('/api/auth/two-factor', { body: { code: await totp(secret, 1) } });
    const another = newClient(stack);
    await another.call('/api/auth/login', { body: { email: user.email, password: GOOD_PASSWORD } });
    const byRecovery = await another.call('/api/auth/two-factor', { body: { code: recoveryCodes[0] } });
    console.log(
      `2FA aimed at owner: attacker ${attack.tried} tried / ${attack.refused} refused (wrong); owner code ${byCode.status}, recovery code ${byRecovery.status}`,
    );
    expect(byCode.status).toBe(200);
    expect(byRecovery.status).toBe(200);
  });

  it('one browser and address guessing across sign-ins is stopped with a message saying when to retry', async () => {
    const { user } = await withTwoFactor(stack);
    const attacker = newClient(stack);
    const statuses: number[] = [];
    let last: Reply | undefined;
    for (let login = 0; login < 3; login++) {
      await attacker.call('/api/auth/login', { body: { email: user.email, password: GOOD_PASSWORD } });
      for (let i = 0; i < 5; i++) {
        last = await attacker.call('/api/auth/two-factor', { body: { code: otherCode('123456') } });
        statuses.push(last.status);
      }
    }
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    expect(last?.status).toBe(429);
    expect(last?.body.message).toMatch(
      /Too many wrong codes from this browser\. Please try again in \d+ minutes?/,
    );
  });

  it('mails the owner after three failed second steps with the right password: when, where, and where to change it', async () => {
    const { user } = await withTwoFactor(stack);
    for (let login = 0; login < 3; login++) {
      const attacker = newClient(stack, '127.77.0.9');
      await attacker.call('/api/auth/login', { body: { email: user.email, password: GOOD_PASSWORD } });
      expect((await attacker.call('/api/auth/two-factor', { body: { code: '000000' } })).status).toBe(400);
    }
    const mail = await waitForMail(stack, user.email, 'Someone has your Legend Cloud password');
    expect(mail.text).toContain('127.77.0.9');
    expect(mail.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(mail.text).toContain(`${stack.config.publicUrl}/forgot-password`);
    // Once an hour at most.
    const attacker = newClient(stack);
    await attacker.call('/api/auth/login', { body: { email: user.email, password: GOOD_PASSWORD } });
    await attacker.call('/api/auth/two-factor', { body: { code: '000000' } });
    // Logged once, for the one mail; not again for the attempt the hour's limit turned away.
    const warned = stack.logs.filter((l) => String(l.msg).endsWith('owner warned') && l.userId === user.id);
    expect(warned).toHaveLength(1);
    const warnings = await db.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM owner_warnings WHERE user_id = ${user.id} AND kind = 'password-known'`,
    );
    expect(warnings).toBe(1);
  });

  it('mails the owner once after three sign-ins with the right password that never give a code, from addresses the owner has not used', async () => {
    const { user } = await withTwoFactor(stack);
    const strangers: Client[] = [];
    for (let i = 0; i < 6; i++) {
      const stranger = newClient(stack);
      const reply = await stranger.call('/api/auth/login', {
        body: { email: user.email, password: GOOD_PASSWORD },
      });
      expect(reply.body.twoFactorRequired).toBe(true);
      strangers.push(stranger);
    }
    // Six such sign-ins, one warning: logged once, claimed once, one mail naming the third address.
    const warned = stack.logs.filter((l) => String(l.msg).endsWith('owner warned') && l.userId === user.id);
    expect(warned).toHaveLength(1);
    const mail = await waitForMail(stack, user.email, 'Someone has your Legend Cloud password');
    expect(mail.text).toContain(strangers[2]!.ip);
    expect(mail.text).toContain(`${stack.config.publicUrl}/forgot-password`);
    const warnings = await db.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM owner_warnings WHERE user_id = ${user.id} AND kind = 'password-known'`,
    );
    expect(warnings).toBe(1);
  });

  it("sign-ins left at the second step from the owner's own address are no warning", async () => {
    const { user, client } = await withTwoFactor(stack);
    for (let i = 0; i < 3; i++) {
      // The owner's phone and laptop behind their home address, each stopping at the code.
      const browser = newClient(stack, client.ip);
      const reply = await browser.call('/api/auth/login', {
        body: { email: user.email, password: GOOD_PASSWORD },
      });
      expect(reply.body.twoFactorRequired).toBe(true);
    }
    expect(stack.logs.filter((l) => String(l.msg).endsWith('owner warned') && l.userId === user.id)).toEqual(
      [],
    );
    const warnings = await db.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM owner_warnings WHERE user_id = ${user.id}`,
    );
    expect(warnings).toBe(0);
  });
});
