import { describe, expect, it } from 'vitest';
import { createUser, logIn, newClient } from '../support/accounts.ts';
import { paymentHelpers } from '../support/payments.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * The server side of the customer journeys: the SPA's session check that answers signed-out
 * visitors without an error, and account deletion's typed confirmation and confirmation mail.
 */

const stack = await startTestStack({ worker: true });
const payments = paymentHelpers(stack);

describe('GET /api/auth/session', () => {
  it('answers 200 with no email when signed out, and the session user when signed in', async () => {
    const anonymous = await newClient(stack).call('/api/auth/session');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ email: null });
    expect(anonymous.headers.get('cache-control')).toBe('no-store');

    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const mine = await client.call('/api/auth/session');
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual((await client.call('/api/auth/login')).body);
    expect(mine.body.email).toBe(user.email);
  });
});

describe('DELETE /api/user with a paid, running machine', () => {
  it('refuses a mistyped confirmation email and deletes nothing', async () => {
    const { user, client } = await payments.buyer({ name: 'Ravi Kumar' });
    const reply = await client.call('/api/user', {
      method: 'DELETE',
      body: { email: `x${user.email}` },
    });
    expect(reply.status).toBe(403);
    expect((await client.call('/api/auth/session')).body.email).toBe(user.email);
  });

  it('mails a confirmation naming the machine, the plan and its hours given up, and the invoices kept', async () => {
    const { user, client } = await payments.buyer({ name: 'Ravi Kumar' });
    const checkout = await payments.checkout(client, user.email, { plan: 'LEGEND', duration: 30 });
    await payments.pay(checkout.txnid);
    await waitFor('the machine to be ready', async () => {
      const body = (await client.call(`/api/vm/dashboard/${encodeURIComponent(user.email)}`)).body;
      return body.vmPublicIp ? body : null;
    });
    // The tax invoice records the SAC code it was issued with (SAC_CODE, default 998315).
    const invoices = await client.call(`/api/invoices/user/${encodeURIComponent(user.email)}`);
    expect(invoices.body.map((i: { sacCode: string | null }) => i.sacCode)).toEqual(['998315']);

    const reply = await client.call('/api/user', { method: 'DELETE', body: { email: user.email } });
    expect(reply.status).toBe(200);
    const mail = await waitFor('the deletion mail', async () =>
      (await stack.mailTo(user.email)).find((m) => m.subject.includes('account has been deleted')),
    );
    expect(mail.text).toContain('Hi Ravi Kumar,');
    expect(mail.text).toContain(
      '- Your cloud PC is shut down and terminated: nothing of yours keeps running or is billed.',
    );
    expect(mail.text).toContain('- Its disk is deleted, with every file on it.');
    expect(mail.text).toContain('- Any snapshot of its disk we keep after a plan ends is deleted.');
    expect(mail.text).toMatch(/Your LEGEND plan is cancelled; its (29|30) h \d\d min left are given up\./);
    expect(mail.text).toContain(
      "- Your invoices and payment records are kept for 8 years, as India's GST law requires (CGST Act, section 36). Your name, email address and phone number are removed from them;",
    );
  });

  it('says no machine was destroyed for an account without one', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    expect((await client.call('/api/user', { method: 'DELETE', body: { email: user.email } })).status).toBe(
      200,
    );
    const mail = await waitFor('the deletion mail', async () =>
      (await stack.mailTo(user.email)).find((m) => m.subject.includes('account has been deleted')),
    );
    expect(mail.text).toContain('You have no cloud PC, so there is no machine or disk to delete.');
    expect(mail.text).not.toContain('plan is cancelled');
  });
});
