import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { findPaymentByTxnid } from '../../core/db/payments.ts';
import { createUser, logIn, newClient, type Client } from './accounts.ts';
import { waitFor, type TestStack } from './stack.ts';

/**
 * Buying a plan from a test: choose, start the payment, land on the sandbox PayU checkout,
 * press its buttons (or forge, replay, tamper through its control API) and wait for the
 * worker's verdict. Everything goes through the real API, the sandbox and the worker.
 */

export type Checkout = Record<string, string> & {
  action: string;
  txnid: string;
  amount: string;
  hash: string;
};

export function paymentHelpers(stack: TestStack) {
  const db = stack.services.db;

  const count = async (query: ReturnType<typeof sql.unsafe>) =>
    db.oneFirst(
      sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM (${query}) AS q`,
    );

  function phone(): string {
    return `9${String(randomInt(0, 1e9)).padStart(9, '0')}`;
  }

  async function buyer(options: { phone?: string | null; name?: string } = {}) {
    const user = await createUser(stack, {
      phone: options.phone === undefined ? phone() : options.phone,
      name: options.name ?? 'Asha Rao',
    });
    const client = newClient(stack);
    await logIn(client, user.email);
    return { user, client };
  }

  async function choose(
    client: Client,
    email: string,
    body: Record<string, unknown> = { plan: 'LEGEND', duration: 45 },
  ) {
    return client.call('/api/vm/select-vm', { body: { email, storage: '115 GB', price: 1, ...body } });
  }

  async function startPayment(client: Client, email: string, body: Record<string, unknown> = {}) {
    return client.call('/api/vm/create-payment', { body: { customerEmail: email, amount: 1, ...body } });
  }

  /** Posts a form like a browser would (or PayU's server), not following redirects. */
  async function postForm(url: string, fields: Record<string, string>, origin = 'https://secure.payu.in') {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      text: await response.text(),
    };
  }

  async function control(body: Record<string, unknown>): Promise<any> {
    const response = await fetch(`${stack.url}/sandbox/payu/_control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`sandbox control ${JSON.stringify(body)}: ${JSON.stringify(json)}`);
    return json;
  }

  /** Chooses, starts the payment and lands on PayU's checkout page, as /select-vm and /payment do. */
  async function checkout(
    client: Client,
    email: string,
    choice?: Record<string, unknown>,
  ): Promise<Checkout> {
    const chosen = await choose(client, email, choice);
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    const started = await startPayment(client, email);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { action, ...fields } = started.body as Checkout;
    const page = await postForm(action, fields, stack.url);
    expect(page.status, page.text).toBe(200);
    return started.body as Checkout;
  }

  /** Presses a button on PayU's page (its webhook goes out at once unless turned off) and follows the browser back. */
  async function pay(
    txnid: string,
    outcome: 'success' | 'failure' = 'success',
    options: { webhook?: boolean } = {},
  ) {
    if (options.webhook === false) await control({ action: 'set-webhook', txnid, url: null });
    const done = await control({ action: 'complete', txnid, outcome });
    return postForm(done.returnUrl as string, done.fields as Record<string, string>);
  }

  async function settled(txnid: string) {
    await waitFor(`payment-verify jobs of ${txnid} to finish`, async () => {
      const open = await count(sql.unsafe`
        SELECT 1 FROM pgboss.job WHERE name = 'payment-verify' AND data->>'txnid' = ${txnid}
          AND state IN ('created', 'retry', 'active')`);
      return open === 0;
    });
    return findPaymentByTxnid(db, txnid);
  }

  async function paymentStatus(txnid: string, status: string) {
    return waitFor(`payment ${txnid} to be ${status}`, async () => {
      const payment = await findPaymentByTxnid(db, txnid);
      return payment?.status === status ? payment : null;
    });
  }

  async function checkoutPending(client: Client, email: string): Promise<Checkout> {
    const started = await startPayment(client, email);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { action, ...fields } = started.body as Checkout;
    expect((await postForm(action, fields, stack.url)).status).toBe(200);
    return started.body as Checkout;
  }

  return {
    count,
    phone,
    buyer,
    choose,
    startPayment,
    postForm,
    control,
    checkout,
    checkoutPending,
    pay,
    settled,
    paymentStatus,
  };
}
