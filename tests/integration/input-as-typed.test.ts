import { describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../core/db/users.ts';
import { EMAIL_MESSAGES } from '../../core/domain/email.ts';
import { PASSWORD_TOO_LONG_MESSAGE } from '../../core/domain/password.ts';
import { PHONE_MESSAGE } from '../../core/domain/phone.ts';
import { startTestStack } from '../support/stack.ts';
import { createUser, GOOD_PASSWORD, logIn, mailedCode, newClient, uniqueEmail } from '../support/accounts.ts';

/**
 * Input as people type it, at the API (the forms ask the same core/domain rules first): phone
 * numbers with +91, 0, spaces and dashes are stored as their ten digits; emails must be
 * deliverable (ASCII before the @, internationalised domains kept as punycode) or get a sentence
 * saying what is wrong; an over-long password is told the limit.
 */

const stack = await startTestStack({ worker: true });
const form = (overrides: Record<string, unknown>) => ({
  name: 'Asha Rao',
  email: uniqueEmail('typed'),
  phone: '9876543210',
  password: GOOD_PASSWORD,
  ...overrides,
});

describe('input as people type it', () => {
  it('signs up with "+91 98765-43210" and stores the ten digits', async () => {
    const client = newClient(stack);
    const email = uniqueEmail('phone');
    const registered = await client.call('/api/auth/register', {
      body: form({ email, phone: '+91 98765-43210' }),
    });
    expect(registered.status).toBe(200);
    const code = await mailedCode(stack, email, 'verification code');
    const verified = await client.call('/api/auth/verify-otp', { body: { email, otp: code } });
    expect(verified.status).toBe(200);
    expect(verified.body.phone).toBe('9876543210');
    expect((await findUserByEmail(stack.services.db, email))?.phone).toBe('9876543210');
  });

  it.each(['098765 43210', '+919876543210', '0091-98765-43210', '98765 43210'])(
    'saves the profile phone %j as 9876543210',
    async (typed) => {
      const user = await createUser(stack, { phone: null });
      const client = newClient(stack);
      await logIn(client, user.email);
      const saved = await client.call('/api/user/profile', { method: 'PUT', body: { phone: typed } });
      expect(saved.status).toBe(200);
      expect(saved.body.phone).toBe('9876543210');
    },
  );

  it.each(['+9198765432', '98765432100', '+1 415 555 0100', `+91 98765 43210${' '.repeat(30)}x`])(
    'refuses the phone %j with the phone sentence, wherever it is sent',
    async (typed) => {
      const client = newClient(stack);
      const registered = await client.call('/api/auth/register', { body: form({ phone: typed }) });
      expect(registered.status).toBe(400);
      expect(registered.body.message).toBe(PHONE_MESSAGE);
      const report = await client.call('/api/report-problem', {
        body: { title: 'Lag', description: 'Slow', phoneNumber: typed },
      });
      expect(report.status).toBe(400);
      expect(report.body.message).toBe(PHONE_MESSAGE);
    },
  );

  it.each([
    ['😀@😀.com', EMAIL_MESSAGES.localCharacters],
    ['<script>@x.com', EMAIL_MESSAGES.localCharacters],
    ['ra..vi@example.com', EMAIL_MESSAGES.localDots],
    ['ravi@example', EMAIL_MESSAGES.domain],
  ])('refuses the email %j with a sentence, before any code is sent', async (email, message) => {
    const client = newClient(stack);
    const registered = await client.call('/api/auth/register', { body: form({ email }) });
    expect(registered.status).toBe(400);
    expect(registered.body.message).toBe(message);
    const forgot = await client.call('/api/auth/forgot-password', { body: { email, method: 'link' } });
    expect(forgot.status).toBe(400);
    expect(forgot.body.message).toBe(message);
    const subscribe = await client.call('/api/subscribe', { body: { email } });
    expect(subscribe.status).toBe(400);
    expect(subscribe.body.message).toBe(message);
  });

  it('keeps an internationalised domain as punycode, and logs in with it typed either way', async () => {
    const client = newClient(stack);
    const local = `ravi${Date.now()}`;
    const registered = await client.call('/api/auth/register', {
      body: form({ email: `${local}@Bücher.de` }),
    });
    expect(registered.status).toBe(200);
    const stored = `${local}@xn--bcher-kva.de`;
    const code = await mailedCode(stack, stored, 'verification code');
    const verified = await client.call('/api/auth/verify-otp', {
      body: { email: `${local}@bücher.de`, otp: code },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.email).toBe(stored);
    const again = newClient(stack);
    expect(
      (
        await again.call('/api/auth/login', {
          body: { email: `${local}@bücher.de`, password: GOOD_PASSWORD },
        })
      ).status,
    ).toBe(200);
  });

  it('tells an over-long password the limit, at sign-up and at reset', async () => {
    const long = `Aa1!${'x'.repeat(300)}`;
    const client = newClient(stack);
    const registered = await client.call('/api/auth/register', { body: form({ password: long }) });
    expect(registered.status).toBe(400);
    expect(registered.body.message).toBe(PASSWORD_TOO_LONG_MESSAGE);
    const reset = await client.call('/api/auth/reset-password', {
      body: { email: 'a@example.com', token: 'x', newPassword: long },
    });
    expect(reset.status).toBe(400);
    expect(reset.body.message).toBe(PASSWORD_TOO_LONG_MESSAGE);
  });
});
