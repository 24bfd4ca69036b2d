import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PayUError,
  createPayUClient,
  requestHash,
  verifyResponseHash,
  type CheckoutInput,
  type PayUClient,
} from '../../core/providers/payu.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT, createSandboxPayU } from '../../sandbox/payu/index.ts';
import { waitFor } from '../support/waitFor.ts';

/**
 * The PayU stand-in driven by our real PayU client, with a tiny merchant in the same app
 * catching what the sandbox (or the "browser") posts to surl, furl and the webhook.
 */

type Caught = { path: string; fields: Record<string, string> };

const caught: Caught[] = [];
let server: Server;
let base = '';
let client: PayUClient;

const RESPONSE_FIELDS = [
  'mihpayid',
  'mode',
  'status',
  'unmappedstatus',
  'key',
  'txnid',
  'amount',
  'productinfo',
  'firstname',
  'email',
  'phone',
  ...Array.from({ length: 10 }, (_, i) => `udf${i + 1}`),
  'hash',
  'error',
  'error_Message',
  'bank_ref_num',
  'bankcode',
  'PG_TYPE',
  'net_amount_debit',
  'addedon',
  ...Array.from({ length: 9 }, (_, i) => `field${i + 1}`),
];

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}`;

  const app = new Koa();
  const sandbox = new Router({ prefix: '/sandbox' });
  const payu = createSandboxPayU({
    key: SANDBOX_PAYU_KEY,
    salt: SANDBOX_PAYU_SALT,
    webhookUrl: `${base}/merchant/webhook`,
  });
  sandbox.use('/payu', payu.routes(), payu.allowedMethods());
  app.use(sandbox.routes());

  const merchant = new Router({ prefix: '/merchant' });
  merchant.post('/:which', koaBody({ urlencoded: true }), (ctx) => {
    caught.push({ path: ctx.params.which ?? '', fields: ctx.request.body as Record<string, string> });
    if (ctx.params.which === 'webhook') {
      ctx.body = 'ok';
    } else {
      ctx.redirect('/thanks');
    }
  });
  app.use(merchant.routes());
  server.on('request', app.callback());

  client = createPayUClient({
    key: SANDBOX_PAYU_KEY,
    salt: SANDBOX_PAYU_SALT,
    checkoutUrl: `${base}/sandbox/payu/_payment`,
    apiUrl: `${base}/sandbox/payu`,
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

let counter = 0;
function input(change: Partial<CheckoutInput> = {}): CheckoutInput {
  counter += 1;
  return {
    txnid: `it${Date.now().toString(36)}${counter}`,
    amountPaise: 145000,
    productinfo: 'LEGEND 45 hours',
    firstname: 'Asha',
    email: 'asha@example.in',
    phone: '9876543210',
    surl: `${base}/merchant/success`,
    furl: `${base}/merchant/failure`,
    udf1: 'LEGEND',
    udf2: '45',
    udf3: '256GB',
    ...change,
  };
}

async function postForm(url: string, fields: Record<string, string>) {
  const response = await fetch(url.startsWith('http') ? url : `${base}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function control(body: Record<string, unknown>) {
  const response = await fetch(`${base}/sandbox/payu/_control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function state(txnid: string) {
  const response = await fetch(`${base}/sandbox/payu/_state?txnid=${encodeURIComponent(txnid)}`);
  return (await response.json()) as any;
}

function unescape(value: string): string {
  return value
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** What a browser would submit from a page's (first) auto-submitting form. */
function returnForm(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form method="post" action="([^"]*)" data-autosubmit>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no auto-submitting form in:\n${html}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescape(input[1] ?? '')] = unescape(input[2] ?? '');
  }
  return { action: unescape(form[1] ?? ''), fields };
}

/** Starts a checkout the way the SPA's hidden form does. */
async function startCheckout(change: Partial<CheckoutInput> = {}) {
  const { action, ...fields } = client.buildCheckout(input(change));
  const page = await postForm(action, fields);
  return { fields, page };
}

/** Starts a checkout and presses one of its buttons, like a person on the sandbox page. */
async function pay(outcome: 'success' | 'failure', change: Partial<CheckoutInput> = {}) {
  const { fields, page } = await startCheckout(change);
  expect(page.status).toBe(200);
  const done = await postForm('/sandbox/payu/_complete', { txnid: fields.txnid, outcome });
  expect(done.status).toBe(200);
  return { txnid: fields.txnid, checkout: fields, returned: returnForm(done.text), html: done.text };
}

const caughtFor = (txnid: string, path?: string) =>
  caught.filter((c) => c.fields.txnid === txnid && (path === undefined || c.path === path));

describe('sandbox PayU hosted checkout', () => {
  it('accepts a correctly hashed checkout and shows merchant, amount, product, customer and both buttons', async () => {
    const { fields, page } = await startCheckout();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('Sandbox merchant');
    expect(page.text).toContain('₹1,450.00');
    expect(page.text).toContain('Pay ₹1,450.00 (success)');
    expect(page.text).toContain('Fail payment');
    expect(page.text).toContain('LEGEND 45 hours');
    expect(page.text).toContain('asha@example.in');
    expect(page.text).not.toMatch(/<script>|<style>|style="/);
    const { transactions } = await state(fields.txnid);
    expect(transactions).toEqual([
      expect.objectContaining({
        txnid: fields.txnid,
        amountPaise: 145000,
        browserStatus: 'initiated',
        serverStatus: 'pending',
      }),
    ]);
    expect(await client.verifyPayment(fields.txnid)).toMatchObject({
      found: true,
      status: 'pending',
      amountPaise: 145000,
    });
  });

  it('refuses a wrong hash with an error page like PayU’s and records nothing', async () => {
    const { action, ...fields } = client.buildCheckout(input());
    const page = await postForm(action, { ...fields, amount: '1.00' });
    expect(page.status).toBe(400);
    expect(page.text).toContain('Transaction failed due to incorrectly calculated hash parameter.');
    expect((await state(fields.txnid)).transactions).toEqual([]);
  });

  it('refuses a reused txnid, a foreign key and a missing parameter', async () => {
    const { action, ...fields } = client.buildCheckout(input());
    expect((await postForm(action, fields)).status).toBe(200);
    const again = await postForm(action, fields);
    expect(again.status).toBe(400);
    expect(again.text).toContain('Duplicate transaction');

    const foreign = await postForm(action, { ...fields, key: 'OTHER' });
    expect(foreign.text).toContain('Invalid key');
    const { phone: _phone, ...noPhone } = fields;
    const missing = await postForm(action, noPhone);
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Mandatory param phone is missing');
  });

  it('hashes the amount exactly as posted and echoes it with two decimals', async () => {
    const txnid = `raw${Date.now().toString(36)}`;
    const fields = {
      key: SANDBOX_PAYU_KEY,
      txnid,
      amount: '10',
      productinfo: 'Trial',
      firstname: 'Ravi',
      email: 'ravi@example.in',
      phone: '9000000000',
      surl: `${base}/merchant/success`,
      furl: `${base}/merchant/failure`,
    };
    const hash = requestHash(fields, SANDBOX_PAYU_SALT);
    expect((await postForm('/sandbox/payu/_payment', { ...fields, hash })).status).toBe(200);
    const done = await postForm('/sandbox/payu/_complete', { txnid, outcome: 'success' });
    const returned = returnForm(done.text).fields;
    expect(returned.amount).toBe('10.00');
    expect(verifyResponseHash(returned, SANDBOX_PAYU_SALT)).toBe(true);
    expect((await client.verifyPayment(txnid)).amountPaise).toBe(1000);
  });

  it('escapes what the merchant posted', async () => {
    const { page } = await startCheckout({
      productinfo: '<img src=x onerror=alert(1)>',
      firstname: 'A "quoted" name',
    });
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('A &quot;quoted&quot; name');
  });

  it('serves the auto-submit script as a same-origin file', async () => {
    const response = await fetch(`${base}/sandbox/payu/autosubmit.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('javascript');
    expect(await response.text()).toContain('form[data-autosubmit]');
  });
});

describe('completing a payment', () => {
  it('success: the page posts every PayU field to surl with a reverse hash that verifies; the webhook gets the same', async () => {
    const { txnid, returned, html } = await pay('success');
    expect(returned.action).toBe(`${base}/merchant/success`);
    expect(html).toContain('<script src="autosubmit.js" defer></script>');
    expect(html).toContain('Continue to merchant');
    expect(Object.keys(returned.fields).sort()).toEqual([...RESPONSE_FIELDS].sort());
    expect(returned.fields).toMatchObject({
      status: 'success',
      unmappedstatus: 'captured',
      error: 'E000',
      key: SANDBOX_PAYU_KEY,
      txnid,
      amount: '1450.00',
      udf1: 'LEGEND',
      udf2: '45',
      udf3: '256GB',
      udf4: '',
    });
    expect(returned.fields.mihpayid).toMatch(/^\d{18}$/);
    expect(returned.fields.addedon).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    // The browser follows the page to surl.
    const post = await postForm(returned.action, returned.fields);
    expect(post.status).toBe(302);
    const atSurl = caughtFor(txnid, 'success');
    expect(atSurl).toHaveLength(1);
    expect(atSurl[0]?.fields).toEqual(returned.fields);
    expect(client.verifyResponse(atSurl[0]?.fields ?? {})).toBe(true);

    const webhook = await waitFor('the webhook', () => caughtFor(txnid, 'webhook')[0]);
    expect(webhook.fields).toEqual(returned.fields);
    expect(verifyResponseHash(webhook.fields, SANDBOX_PAYU_SALT)).toBe(true);

    expect(await client.verifyPayment(txnid)).toMatchObject({
      found: true,
      status: 'success',
      mihpayid: returned.fields.mihpayid,
      amountPaise: 145000,
      netAmountDebitPaise: 145000,
      unmappedstatus: 'captured',
    });
  });

  it('failure: the page posts to furl, the hash verifies, verify_payment says failure', async () => {
    const { txnid, returned } = await pay('failure');
    expect(returned.action).toBe(`${base}/merchant/failure`);
    expect(returned.fields).toMatchObject({
      status: 'failure',
      unmappedstatus: 'failed',
      txnid,
      net_amount_debit: '0',
    });
    expect(returned.fields.error).not.toBe('E000');
    expect(verifyResponseHash(returned.fields, SANDBOX_PAYU_SALT)).toBe(true);
    await postForm(returned.action, returned.fields);
    expect(caughtFor(txnid, 'failure')).toHaveLength(1);
    await waitFor('the webhook', () => caughtFor(txnid, 'webhook')[0]);
    expect(await client.verifyPayment(txnid)).toMatchObject({
      found: true,
      status: 'failure',
      amountPaise: 145000,
    });
  });

  it('refuses a second press of the buttons', async () => {
    const { txnid } = await pay('success');
    const again = await postForm('/sandbox/payu/_complete', { txnid, outcome: 'failure' });
    expect(again.status).toBe(409);
    expect((await client.verifyPayment(txnid)).status).toBe('success');
  });

  it('can be completed through the control API, without a browser', async () => {
    const { fields } = await startCheckout();
    const done = await control({ action: 'complete', txnid: fields.txnid, outcome: 'success' });
    expect(done.status).toBe(200);
    expect(done.body.returnUrl).toBe(`${base}/merchant/success`);
    expect(verifyResponseHash(done.body.fields, SANDBOX_PAYU_SALT)).toBe(true);
    expect(done.body.deliveries).toEqual([expect.objectContaining({ target: 'webhook', status: 200 })]);
    expect(caughtFor(fields.txnid, 'webhook')).toHaveLength(1);
  });
});

describe('verify_payment', () => {
  it('answers status 0 and "Not Found" for an unknown txnid', async () => {
    const result = await client.verifyPayment('never-started');
    expect(result).toMatchObject({ found: false, status: 'not-found', mihpayid: null, amountPaise: null });
    expect(result.raw).toEqual({ mihpayid: 'Not Found', status: 'Not Found' });
  });

  it('can say failure although the browser was told success', async () => {
    const { txnid, returned } = await pay('success');
    const changed = await control({ action: 'set-status', txnid, status: 'failure' });
    expect(changed.body).toMatchObject({ ok: true, status: 'failure', unmappedstatus: 'failed' });
    expect(returned.fields.status).toBe('success');
    expect(verifyResponseHash(returned.fields, SANDBOX_PAYU_SALT)).toBe(true);
    expect(await client.verifyPayment(txnid)).toMatchObject({ status: 'failure' });
  });

  it('refuses a call hashed with the wrong salt', async () => {
    const wrong = createPayUClient({ ...client.config, salt: 'guessed' });
    const error = await wrong.verifyPayment('anything').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayUError);
    expect(error).toMatchObject({ kind: 'rejected', retryable: false });
  });

  it('answers the exact JSON shape of PayU', async () => {
    const { txnid } = await pay('success');
    const body = new URLSearchParams({ key: SANDBOX_PAYU_KEY, command: 'verify_payment', var1: txnid });
    const { createHash } = await import('node:crypto');
    body.set(
      'hash',
      createHash('sha512')
        .update(`${SANDBOX_PAYU_KEY}|verify_payment|${txnid}|${SANDBOX_PAYU_SALT}`)
        .digest('hex'),
    );
    const response = await fetch(`${base}/sandbox/payu/merchant/postservice.php?form=2`, {
      method: 'POST',
      body,
    });
    const json = (await response.json()) as any;
    expect(json).toMatchObject({ status: 1, msg: '1 out of 1 Transactions Fetched Successfully' });
    expect(json.transaction_details[txnid]).toMatchObject({
      status: 'success',
      unmappedstatus: 'captured',
      amt: '1450.00',
      transaction_amount: '1450.00',
      txnid,
      error_code: 'E000',
      net_amount_debit: 1450,
    });
  });
});

describe('refunds', () => {
  it('queues a partial refund, refuses a repeated token and an over-refund, and allows the exact remainder', async () => {
    const { txnid, returned } = await pay('success');
    const mihpayid = returned.fields.mihpayid ?? '';

    const first = await client.refund({
      mihpayid,
      refundToken: `rf${txnid}`.slice(0, 23),
      amountPaise: 50000,
    });
    expect(first).toMatchObject({ accepted: true, errorCode: 102, duplicateToken: false });
    expect(first.requestId).toMatch(/^\d+$/);

    const repeated = await client.refund({
      mihpayid,
      refundToken: `rf${txnid}`.slice(0, 23),
      amountPaise: 50000,
    });
    expect(repeated).toMatchObject({ accepted: false, duplicateToken: true, errorCode: 106 });

    const over = await client.refund({
      mihpayid,
      refundToken: `rg${txnid}`.slice(0, 23),
      amountPaise: 95001,
    });
    expect(over).toMatchObject({ accepted: false, errorCode: 105 });
    expect(over.message).toContain('950.00');

    const rest = await client.refund({
      mihpayid,
      refundToken: `rh${txnid}`.slice(0, 23),
      amountPaise: 95000,
    });
    expect(rest.accepted).toBe(true);
    const again = await client.refund({ mihpayid, refundToken: `ri${txnid}`.slice(0, 23), amountPaise: 1 });
    expect(again.accepted).toBe(false);

    const { refunds, transactions } = await state(txnid);
    expect(refunds.map((r: { amount: string }) => r.amount)).toEqual(['500.00', '950.00']);
    expect(transactions[0].refundedPaise).toBe(145000);
  });

  it('refuses a refund of a failed payment and of an unknown mihpayid', async () => {
    const { txnid, returned } = await pay('failure');
    const failed = await client.refund({
      mihpayid: returned.fields.mihpayid ?? '',
      refundToken: `rf${txnid}`.slice(0, 23),
      amountPaise: 100,
    });
    expect(failed).toMatchObject({ accepted: false, errorCode: 111 });
    const unknown = await client.refund({
      mihpayid: '999999999999999999',
      refundToken: 'unknown-1',
      amountPaise: 100,
    });
    expect(unknown).toMatchObject({ accepted: false, errorCode: 116 });
  });
});

describe('reconciliation and refund following', () => {
  it('answers verify_payment for a batch of txnids joined with "|", unknown ones as Not Found', async () => {
    const paid = await pay('success');
    const failed = await pay('failure');
    const results = await client.verifyPayments([paid.txnid, failed.txnid, 'nosuchtxn']);
    expect(results.map((r) => [r.txnid, r.status])).toEqual([
      [paid.txnid, 'success'],
      [failed.txnid, 'failure'],
      ['nosuchtxn', 'not-found'],
    ]);
  });

  it('plays a scripted bank: pending, pending, then success, one answer per check', async () => {
    const { fields, page } = await startCheckout();
    expect(page.status).toBe(200);
    await control({
      action: 'script-verify',
      txnid: fields.txnid,
      statuses: ['pending', 'pending', 'success'],
    });
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await client.verifyPayment(fields.txnid)).status);
    expect(seen).toEqual(['pending', 'pending', 'success', 'success']);
    expect((await state(fields.txnid)).transactions[0]).toMatchObject({
      verifyCalls: 4,
      serverStatus: 'success',
    });
  });

  it('follows a refund with check_action_status: QUEUED, then SUCCESS, or a scripted FAILURE', async () => {
    const { txnid, returned } = await pay('success');
    const mihpayid = returned.fields.mihpayid ?? '';
    const refund = await client.refund({
      mihpayid,
      refundToken: `rs${txnid}`.slice(0, 23),
      amountPaise: 1000,
    });
    expect(refund.accepted).toBe(true);
    expect((await client.refundStatus(refund.requestId!)).payuStatus).toBe('QUEUED');
    expect(await client.refundStatus(refund.requestId!)).toMatchObject({
      payuStatus: 'SUCCESS',
      progress: 'success',
    });

    await control({ action: 'script-refund', txnid, states: ['IN PROGRESS', 'FAILURE'] });
    const second = await client.refund({
      mihpayid,
      refundToken: `rt${txnid}`.slice(0, 23),
      amountPaise: 1000,
    });
    expect((await client.refundStatus(second.requestId!)).progress).toBe('in-progress');
    expect((await client.refundStatus(second.requestId!)).progress).toBe('failure');
    await expect(client.refundStatus('999999999')).rejects.toThrow(/No action status/);
  });
});

describe('the control API', () => {
  it('replays the last callback N times to the return URL and the webhook, each copy valid', async () => {
    const { txnid, returned } = await pay('success');
    await waitFor('the first webhook', () => caughtFor(txnid, 'webhook')[0]);
    const replay = await control({ action: 'replay', txnid, times: 3, to: 'both' });
    expect(replay.status).toBe(200);
    expect(replay.body.deliveries).toHaveLength(6);
    expect(caughtFor(txnid, 'success')).toHaveLength(3);
    expect(caughtFor(txnid, 'webhook')).toHaveLength(4);
    for (const c of caughtFor(txnid)) {
      expect(c.fields).toEqual(returned.fields);
      expect(verifyResponseHash(c.fields, SANDBOX_PAYU_SALT)).toBe(true);
    }
  });

  it('sends 10 copies at once when asked to', async () => {
    const { txnid } = await pay('success');
    const replay = await control({ action: 'replay', txnid, times: 10, to: 'surl', concurrent: true });
    expect(replay.body.deliveries.map((d: { status: number }) => d.status)).toEqual(Array(10).fill(302));
    expect(caughtFor(txnid, 'success')).toHaveLength(10);
  });

  it('refuses to replay a transaction that never completed', async () => {
    const { fields } = await startCheckout();
    expect((await control({ action: 'replay', txnid: fields.txnid })).status).toBe(409);
    expect((await control({ action: 'replay', txnid: 'nope' })).status).toBe(404);
    expect((await control({ action: 'explode', txnid: 'nope' })).status).toBe(400);
  });

  it('forges a success callback whose hash does not verify', async () => {
    const { txnid } = await pay('failure');
    const forged = await control({ action: 'forge', txnid, status: 'success' });
    expect(forged.body.deliveries).toEqual([
      expect.objectContaining({ target: 'surl', kind: 'forged', status: 302 }),
    ]);
    const atSurl = caughtFor(txnid, 'success');
    expect(atSurl).toHaveLength(1);
    expect(atSurl[0]?.fields.status).toBe('success');
    expect(atSurl[0]?.fields.hash).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyResponseHash(atSurl[0]?.fields ?? {}, SANDBOX_PAYU_SALT)).toBe(false);
    expect((await client.verifyPayment(txnid)).status).toBe('failure');
  });

  it('sends a tampered amount, validly rehashed so only the amount check can catch it', async () => {
    const { txnid } = await pay('success');
    await control({ action: 'tamper-amount', txnid, amount: '1.00', to: 'webhook' });
    const tampered = await waitFor('the tampered webhook', () =>
      caughtFor(txnid, 'webhook').find((c) => c.fields.amount === '1.00'),
    );
    expect(verifyResponseHash(tampered.fields, SANDBOX_PAYU_SALT)).toBe(true);
    expect((await client.verifyPayment(txnid)).amountPaise).toBe(145000);

    await control({ action: 'tamper-amount', txnid, amount: '2.00', rehash: false, to: 'surl' });
    const unhashed = caughtFor(txnid, 'success').find((c) => c.fields.amount === '2.00');
    expect(unhashed && verifyResponseHash(unhashed.fields, SANDBOX_PAYU_SALT)).toBe(false);
  });

  it('sets and clears the webhook per transaction and by default', async () => {
    const { fields } = await startCheckout();
    await control({ action: 'set-webhook', txnid: fields.txnid, url: `${base}/merchant/other-hook` });
    await control({ action: 'complete', txnid: fields.txnid, outcome: 'success' });
    expect(caught.filter((c) => c.path === 'other-hook' && c.fields.txnid === fields.txnid)).toHaveLength(1);

    await control({ action: 'set-webhook', url: null });
    const quiet = await pay('success');
    expect((await control({ action: 'replay', txnid: quiet.txnid, to: 'webhook' })).body.deliveries).toEqual(
      [],
    );
    expect(caughtFor(quiet.txnid, 'webhook')).toHaveLength(0);
    await control({ action: 'set-webhook', url: `${base}/merchant/webhook` });
  });

  it('lists transactions, refunds and deliveries in _state', async () => {
    const { txnid } = await pay('success');
    const s = await waitFor('the webhook delivery', async () => {
      const current = await state(txnid);
      return current.deliveries.length > 0 ? current : undefined;
    });
    expect(s.transactions).toEqual([
      expect.objectContaining({ txnid, browserStatus: 'success', serverStatus: 'success' }),
    ]);
    expect(s.deliveries).toEqual([
      expect.objectContaining({ txnid, target: 'webhook', kind: 'completion', status: 200 }),
    ]);
    expect(s.webhookUrl).toBe(`${base}/merchant/webhook`);
  });
});

describe('as mounted by the sandbox', () => {
  it('answers under /sandbox/payu with the sandbox merchant credentials', async () => {
    const app = new Koa();
    app.use(createSandbox({ profile: 'fast' }));
    const mounted = createServer(app.callback());
    await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve));
    const address = mounted.address();
    const url = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}`;
    try {
      const local = createPayUClient({
        key: SANDBOX_PAYU_KEY,
        salt: SANDBOX_PAYU_SALT,
        checkoutUrl: `${url}/sandbox/payu/_payment`,
        apiUrl: `${url}/sandbox/payu`,
      });
      const { action, ...fields } = local.buildCheckout(input());
      const page = await postForm(action, fields);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Legend Cloud');
      expect(page.text).toContain('href="/sandbox/sandbox.css"');
      const css = await fetch(`${url}/sandbox/sandbox.css`).then((r) => r.text());
      expect(css).toContain('.payu-checkout');
      expect((await local.verifyPayment(fields.txnid)).status).toBe('pending');
    } finally {
      await new Promise((resolve) => mounted.close(resolve));
    }
  });
});
