import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { hashConfirmToken } from '../../core/commands/newsletter.ts';
import { startTestStack, waitFor } from '../support/stack.ts';
import { UNMEASURED_STAT } from '../../core/domain/content/timeToDesktop.ts';
import {
  countFeedbackMessages,
  countSubscribers,
  findFeedbackMessage,
  findSubscriberByEmail,
} from '../support/rows.ts';

const stack = await startTestStack({ worker: true });
const db = stack.services.db;

const good = {
  firstName: 'Asha',
  lastName: 'Verma',
  field: 'Video editing',
  contactNumber: '9876543210',
  email: 'asha.verma@example.in',
  message: 'Can I run DaVinci Resolve on Pro Legend?',
};

let addressCounter = 0;
const newAddress = (label: string) => `${label}-${Date.now()}-${++addressCounter}@example.in`;

type Mail = Awaited<ReturnType<typeof stack.mailTo>>[number];

async function mailWith(to: string, subject: string): Promise<Mail> {
  return waitFor(`"${subject}" to ${to}`, async () =>
    (await stack.mailTo(to)).find((m) => m.subject === subject),
  );
}

function confirmTokenIn(mail: Mail): string {
  const token = /\/subscribe\/confirm\?token=([\w-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no confirm link in:\n${mail.text}`);
  return token;
}

function unsubscribeTokenIn(mail: Mail): string {
  const token = /\/subscribe\/unsubscribe\?token=([\w.-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no unsubscribe link in:\n${mail.text}`);
  return token;
}

const CONFIRM_SUBJECT = 'Confirm your Legend Cloud blog subscription';
const WELCOME_SUBJECT = 'Welcome to the Legend Cloud blog';
const ALREADY_SUBJECT = 'You are already subscribed to the Legend Cloud blog';
const CHECK_INBOX = { message: 'Almost there! Check your inbox for a link to confirm your subscription.' };
const CONFIRM_INVALID = {
  message:
    'This confirmation link has already been used or has expired. If you are not subscribed yet, subscribe again on the blog page.',
};

/** Pretends the form last mailed this address long ago, past the re-send throttle. */
async function forgetLastMail(email: string) {
  await db.query(
    sql.unsafe`UPDATE blog_subscribers SET last_mailed_at = now() - interval '1 day' WHERE email = ${email}`,
  );
}

describe('GET /api/site', () => {
  it('answers the contact and support addresses from configuration', async () => {
    const response = await stack.api('/api/site');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      contactEmail: stack.config.contactEmail,
      supportEmail: stack.config.supportEmail,
      // No provisions recorded in this file's database: the modest wording (time-to-desktop.test.ts).
      timeToDesktop: UNMEASURED_STAT,
      // The same provisions by kind, for the wait after paying: none recorded.
      setupTimes: { pool: null, launch: null },
      // What the connection check page measures (connection-check.test.ts).
      connectionCheck: stack.config.connectionCheck,
    });
  });
});

describe('POST /api/feedback', () => {
  it('stores a valid message, answers its id and emails support through the worker', async () => {
    const response = await stack.api('/api/feedback', {
      body: { ...good, email: ' Asha.Verma@Example.in ' },
    });
    expect(response.status).toBe(201);
    const id = response.body.id as string;
    expect(Object.keys(response.body)).toEqual(['id']);
    const row = await findFeedbackMessage(db, id);
    expect(row).toMatchObject({
      first_name: 'Asha',
      last_name: 'Verma',
      field: 'Video editing',
      contact_number: '9876543210',
      email: 'asha.verma@example.in',
      message: good.message,
    });
    const mail = await waitFor('the support mail', async () =>
      (await stack.mailTo(stack.config.supportEmail)).find((m) => m.text.includes(id)),
    );
    expect(mail.subject).toBe('Contact form: Asha Verma (Video editing)');
    expect(mail.text).toContain(good.message);
    expect(mail.text).toContain('asha.verma@example.in');
    expect(mail.text).toContain('9876543210');
  });

  it.each([
    [{ ...good, firstName: '  ' }, 'First Name is required.'],
    [{ ...good, firstName: undefined }, 'First Name is required.'],
    [{ ...good, lastName: '' }, 'Last Name is required.'],
    [{ ...good, field: '' }, 'Choose your field from the list.'],
    [{ ...good, field: 'Astrology' }, 'Choose your field from the list.'],
    [{ ...good, contactNumber: '' }, 'Enter a valid 10-digit phone number starting with 6-9.'],
    [{ ...good, contactNumber: '5876543210' }, 'Enter a valid 10-digit phone number starting with 6-9.'],
    [{ ...good, contactNumber: 9876543210 }, 'Enter a valid 10-digit phone number starting with 6-9.'],
    [{ ...good, email: '' }, 'Email is required.'],
    [{ ...good, email: 'asha@' }, 'Enter a valid email address.'],
    [{ ...good, email: `${'a'.repeat(250)}@example.in` }, 'An email address can be at most 254 characters.'],
    [{ ...good, message: ' ' }, 'Message is required.'],
    [{ ...good, message: 'x'.repeat(5001) }, 'Message is too long.'],
    [{ ...good, firstName: 'x'.repeat(101) }, 'First Name is too long.'],
    [{}, 'First Name is required.'],
  ])('refuses %j with a 400 and stores nothing', async (body, message) => {
    const before = await countFeedbackMessages(db);
    const response = await stack.api('/api/feedback', { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message });
    expect(await countFeedbackMessages(db)).toBe(before);
  });

  it('refuses malformed JSON and a message posted from another site', async () => {
    const before = await countFeedbackMessages(db);
    const malformed = await stack.api('/api/feedback', { body: '{"firstName": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('The request body is not valid JSON.');
    const foreign = await stack.api('/api/feedback', {
      body: good,
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(await countFeedbackMessages(db)).toBe(before);
  });

  it('limits messages per address with a 429, a Retry-After and a message', async () => {
    // One of the ten was spent by the first test; invalid bodies spend nothing.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await stack.api('/api/feedback', { body: good })).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(9);
    expect(statuses.at(-1)).toBe(429);
    const limited = await stack.api('/api/feedback', { body: good });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body.message).toBe('Too many messages from your network. Please try again in a while.');
  });
});

describe('blog subscription (double opt-in)', () => {
  // Ten subscribes an hour from one address: the tests below count theirs (#n).
  const confirmedAddress = newAddress('reader');

  it('stores a pending subscriber with only a hash of the token and mails a confirm link (#1)', async () => {
    const response = await stack.api('/api/subscribe', {
      body: { email: `  ${confirmedAddress.toUpperCase()} ` },
    });
    expect(response.status).toBe(202);
    expect(response.body).toEqual(CHECK_INBOX);

    const mail = await mailWith(confirmedAddress, CONFIRM_SUBJECT);
    const token = confirmTokenIn(mail);
    expect(mail.text).toContain(`${stack.config.publicUrl}/subscribe/confirm?token=`);
    expect(mail.html).toContain('Confirm your subscription');
    unsubscribeTokenIn(mail);

    const row = await findSubscriberByEmail(db, confirmedAddress);
    expect(row?.state).toBe('pending');
    expect(row?.confirm_token_hash).toBe(hashConfirmToken(token));
    expect(row?.confirm_token_hash).not.toContain(token);
  });

  it('confirms once with the link, sends a welcome mail, and refuses the same link again', async () => {
    const token = confirmTokenIn(await mailWith(confirmedAddress, CONFIRM_SUBJECT));
    const look = await stack.api(`/api/subscribe/confirm?token=${token}`);
    expect(look).toMatchObject({ status: 200, body: { status: 'pending' } });
    expect((await findSubscriberByEmail(db, confirmedAddress))?.state).toBe('pending');

    const confirmed = await stack.api('/api/subscribe/confirm', { body: { token } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({
      status: 'confirmed',
      message: 'You are subscribed. New posts will reach your inbox.',
    });
    const row = await findSubscriberByEmail(db, confirmedAddress);
    expect(row).toMatchObject({ state: 'confirmed', confirm_token_hash: null });
    expect(row?.confirmed_at).toBeInstanceOf(Date);

    const welcome = await mailWith(confirmedAddress, WELCOME_SUBJECT);
    expect(welcome.text).toContain(`${stack.config.publicUrl}/BlogPostPage/1`);
    unsubscribeTokenIn(welcome);

    const again = await stack.api('/api/subscribe/confirm', { body: { token } });
    expect(again).toMatchObject({ status: 400, body: CONFIRM_INVALID });
    expect((await stack.api(`/api/subscribe/confirm?token=${token}`)).status).toBe(400);
    expect((await stack.mailTo(confirmedAddress)).filter((m) => m.subject === WELCOME_SUBJECT)).toHaveLength(
      1,
    );
  });

  it('answers an already subscribed address exactly like a new one (#2, #3)', async () => {
    const known = await stack.api('/api/subscribe', { body: { email: confirmedAddress } });
    const fresh = await stack.api('/api/subscribe', { body: { email: newAddress('fresh') } });
    expect(known.status).toBe(fresh.status);
    expect(known.body).toEqual(fresh.body);
    expect(known.body).toEqual(CHECK_INBOX);
    expect((await findSubscriberByEmail(db, confirmedAddress))?.state).toBe('confirmed');
  });

  it('tells a subscribed owner they already are, at most once per throttle window (#4)', async () => {
    await forgetLastMail(confirmedAddress);
    await stack.api('/api/subscribe', { body: { email: confirmedAddress } });
    const notice = await mailWith(confirmedAddress, ALREADY_SUBJECT);
    unsubscribeTokenIn(notice);
    expect((await findSubscriberByEmail(db, confirmedAddress))?.state).toBe('confirmed');
  });

  it('does not mail an address again within minutes, so the form cannot flood an inbox (#5, #6)', async () => {
    const email = newAddress('flood');
    await stack.api('/api/subscribe', { body: { email } });
    const first = await findSubscriberByEmail(db, email);
    const second = await stack.api('/api/subscribe', { body: { email } });
    expect(second).toMatchObject({ status: 202, body: CHECK_INBOX });
    // No new token means no new mail: the only confirm link stays the first one.
    expect((await findSubscriberByEmail(db, email))?.confirm_token_hash).toBe(first?.confirm_token_hash);
    const token = confirmTokenIn(await mailWith(email, CONFIRM_SUBJECT));
    expect(hashConfirmToken(token)).toBe(first?.confirm_token_hash);
  });

  it('refuses an expired confirm link (#7)', async () => {
    const email = newAddress('late');
    await stack.api('/api/subscribe', { body: { email } });
    const token = confirmTokenIn(await mailWith(email, CONFIRM_SUBJECT));
    await db.query(
      sql.unsafe`UPDATE blog_subscribers SET confirm_token_expires_at = now() - interval '1 second' WHERE email = ${email}`,
    );
    expect(await stack.api('/api/subscribe/confirm', { body: { token } })).toMatchObject({
      status: 400,
      body: CONFIRM_INVALID,
    });
    expect((await findSubscriberByEmail(db, email))?.state).toBe('pending');
  });

  it('unsubscribes with the link from any mail, idempotently, and refuses forged links', async () => {
    const token = unsubscribeTokenIn(await mailWith(confirmedAddress, WELCOME_SUBJECT));
    const response = await stack.api('/api/subscribe/unsubscribe', { body: { token } });
    expect(response).toMatchObject({ status: 200, body: { status: 'unsubscribed' } });
    const row = await findSubscriberByEmail(db, confirmedAddress);
    expect(row?.state).toBe('unsubscribed');
    expect(row?.unsubscribed_at).toBeInstanceOf(Date);
    expect((await stack.api('/api/subscribe/unsubscribe', { body: { token } })).status).toBe(200);

    const unsubscribeInvalid = {
      message: 'This unsubscribe link is not valid. Use the link in the latest email we sent you.',
    };
    const [id] = token.split('.');
    for (const forged of [
      `${id}.AAAA`,
      `00000000-0000-4000-8000-000000000000.${token.split('.')[1]}`,
      'nonsense',
      '',
    ]) {
      const refused = await stack.api('/api/subscribe/unsubscribe', { body: { token: forged } });
      expect(refused).toMatchObject({ status: 400, body: unsubscribeInvalid });
    }
  });

  it('lets an unsubscribed reader opt in again, through a new confirmation (#8)', async () => {
    await forgetLastMail(confirmedAddress);
    await stack.api('/api/subscribe', { body: { email: confirmedAddress } });
    await waitFor('a second confirm mail', async () =>
      (await stack.mailTo(confirmedAddress)).filter((m) => m.subject === CONFIRM_SUBJECT).length === 2
        ? true
        : null,
    );
    const [latest] = (await stack.mailTo(confirmedAddress)).filter((m) => m.subject === CONFIRM_SUBJECT);
    const token = confirmTokenIn(latest!);
    expect((await findSubscriberByEmail(db, confirmedAddress))?.state).toBe('pending');
    expect((await stack.api('/api/subscribe/confirm', { body: { token } })).status).toBe(200);
    expect((await findSubscriberByEmail(db, confirmedAddress))?.state).toBe('confirmed');
  });

  it.each([
    [{}, 'Enter a valid email address.'],
    [{ email: '' }, 'Enter a valid email address.'],
    [{ email: 'not-an-email' }, 'Enter a valid email address.'],
    [{ email: 42 }, 'Enter a valid email address.'],
  ])('refuses %j with a 400 and stores nothing', async (body, message) => {
    const before = await countSubscribers(db);
    const response = await stack.api('/api/subscribe', { body });
    expect(response).toMatchObject({ status: 400, body: { message } });
    expect(await countSubscribers(db)).toBe(before);
  });

  it('refuses confirm and unsubscribe calls without a token', async () => {
    expect((await stack.api('/api/subscribe/confirm', { body: {} })).status).toBe(400);
    expect((await stack.api('/api/subscribe/confirm')).status).toBe(400);
    expect((await stack.api('/api/subscribe/unsubscribe', { body: {} })).status).toBe(400);
  });

  it('limits subscribe requests per address (#9, #10, then 429)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await stack.api('/api/subscribe', { body: { email: newAddress('burst') } })).status);
    }
    expect(statuses).toEqual([202, 202, 429]);
    const limited = await stack.api('/api/subscribe', { body: { email: newAddress('burst') } });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe(
      'Too many subscription requests from your network. Please try again in a while.',
    );
  });
});
