import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  PayUError,
  buildCheckout,
  parseRefundStatus,
  parseVerifyPayments,
  createPayUClient,
  formatAmount,
  newTxnId,
  parseAmountToPaise,
  parseRefund,
  parseVerifyPayment,
  requestHash,
  responseHash,
  verifyResponseHash,
  type PayUConfig,
} from './payu.ts';

const config: PayUConfig = {
  key: 'TESTKEY',
  salt: 'test-salt',
  checkoutUrl: 'https://test.payu.in/_payment',
  apiUrl: 'https://test.payu.in',
};

const sha512 = (s: string) => createHash('sha512').update(s).digest('hex');

describe('requestHash', () => {
  it("reproduces PayU's published test vector", () => {
    const hash = requestHash(
      {
        key: 'C0Dr8m',
        txnid: '12345',
        amount: '10',
        productinfo: 'Shopping',
        firstname: 'Test',
        email: 'test@test.com',
        udf2: 'abc',
        udf4: '15',
      },
      '3sf0jURk',
    );
    expect(hash).toMatch(/^ffcdbf04[0-9a-f]{113}ba730ce$/);
    expect(hash).toBe(sha512('C0Dr8m|12345|10|Shopping|Test|test@test.com||abc||15|||||||3sf0jURk'));
  });

  it('hashes the amount byte for byte: 10 and 10.00 differ', () => {
    const base = { key: 'k', txnid: 't', productinfo: 'p', firstname: 'f', email: 'e@x.in' };
    expect(requestHash({ ...base, amount: '10' }, 's')).not.toBe(
      requestHash({ ...base, amount: '10.00' }, 's'),
    );
  });

  it('keeps every udf in its own slot', () => {
    const base = { key: 'k', txnid: 't', amount: '1.00', productinfo: 'p', firstname: 'f', email: 'e' };
    expect(requestHash({ ...base, udf1: 'a', udf5: 'e' }, 'S')).toBe(sha512('k|t|1.00|p|f|e|a||||e||||||S'));
  });
});

describe('amounts', () => {
  it('formats paise once, with two decimals', () => {
    expect(formatAmount(145000)).toBe('1450.00');
    expect(formatAmount(145050)).toBe('1450.50');
    expect(formatAmount(1)).toBe('0.01');
    expect(formatAmount(4000)).toBe('40.00');
  });

  it.each([0, -100, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2])('refuses to format %s paise', (paise) => {
    expect(() => formatAmount(paise)).toThrow(PayUError);
  });

  it.each([
    ['10', 1000],
    ['10.00', 1000],
    ['10.0', 1000],
    ['1450.5', 145050],
    ['1450.50', 145050],
    ['0.29', 29],
    [' 40.00 ', 4000],
    ['10.500', 1050],
    ['0', 0],
    [10, 1000],
    [1450.5, 145050],
    [0.29, 29],
    [0.1 + 0.2, 30],
  ])('parses %j as %i paise', (value, paise) => {
    expect(parseAmountToPaise(value)).toBe(paise);
  });

  it.each([
    ['10.005'],
    ['-1'],
    ['1e3'],
    ['abc'],
    [''],
    ['10,00'],
    ['₹10'],
    ['0x10'],
    [-5],
    [10.005],
    [Infinity],
    [NaN],
    [null],
    [undefined],
    [{}],
    [true],
  ])('refuses %j', (value) => {
    expect(parseAmountToPaise(value)).toBeNull();
  });
});

describe('newTxnId', () => {
  it('is unique, at most 25 characters and URL-safe', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newTxnId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) {
      expect(id.length).toBeLessThanOrEqual(25);
      expect(id).toMatch(/^[a-z0-9]+$/);
    }
  });
});

describe('buildCheckout', () => {
  const input = {
    txnid: 'lc123',
    amountPaise: 145000,
    productinfo: 'LEGEND 45 hours',
    firstname: 'Asha',
    email: 'asha@example.in',
    phone: '9876543210',
    surl: 'https://legend.example/api/payu/success',
    furl: 'https://legend.example/api/payu/failure',
    udf1: 'LEGEND',
    udf2: '45',
    udf3: '256GB',
  };

  it('answers the payment-start fields with the request hash over the formatted amount', () => {
    const start = buildCheckout(config, input);
    expect(start).toEqual({
      action: 'https://test.payu.in/_payment',
      key: 'TESTKEY',
      txnid: 'lc123',
      amount: '1450.00',
      productinfo: 'LEGEND 45 hours',
      firstname: 'Asha',
      email: 'asha@example.in',
      phone: '9876543210',
      surl: input.surl,
      furl: input.furl,
      udf1: 'LEGEND',
      udf2: '45',
      udf3: '256GB',
      udf4: '',
      udf5: '',
      hash: sha512(
        'TESTKEY|lc123|1450.00|LEGEND 45 hours|Asha|asha@example.in|LEGEND|45|256GB||||||||test-salt',
      ),
    });
  });

  it.each([
    ['a txnid over 25 characters', { txnid: 'x'.repeat(26) }],
    ['a txnid with odd characters', { txnid: 'a b' }],
    ['a productinfo over 100 characters', { productinfo: 'p'.repeat(101) }],
    ['a firstname over 60 characters', { firstname: 'n'.repeat(61) }],
    ['an empty firstname', { firstname: ' ' }],
    ['a pipe in a hashed field', { firstname: 'A|B' }],
    ['a pipe in a udf', { udf5: 'x|y' }],
    ['an amount in fractional paise', { amountPaise: 10.5 }],
    ['a zero amount', { amountPaise: 0 }],
    ['a relative surl', { surl: '/api/payu/success' }],
    ['a bad email', { email: 'nobody' }],
  ])('refuses %s', (_label, change) => {
    expect(() => buildCheckout(config, { ...input, ...change })).toThrow(PayUError);
  });

  it('accepts the limits exactly', () => {
    expect(() =>
      buildCheckout(config, {
        ...input,
        txnid: 't'.repeat(25),
        productinfo: 'p'.repeat(100),
        firstname: 'n'.repeat(60),
      }),
    ).not.toThrow();
  });
});

describe('verifyResponseHash', () => {
  const posted = {
    mihpayid: '403993715500000001',
    status: 'success',
    unmappedstatus: 'captured',
    key: 'TESTKEY',
    txnid: 'lc123',
    amount: '1450.00',
    productinfo: 'LEGEND 45 hours',
    firstname: 'Asha',
    email: 'asha@example.in',
    udf1: 'LEGEND',
    udf2: '45',
    udf3: '256GB',
    udf4: '',
    udf5: '',
    error: 'E000',
  };
  const reverse = sha512(
    'test-salt|success||||||||256GB|45|LEGEND|asha@example.in|Asha|LEGEND 45 hours|1450.00|lc123|TESTKEY',
  );

  it('computes PayU’s reverse hash', () => {
    expect(responseHash(posted, 'test-salt')).toBe(reverse);
  });

  it('accepts the genuine hash, in either case', () => {
    expect(verifyResponseHash({ ...posted, hash: reverse }, 'test-salt')).toBe(true);
    expect(verifyResponseHash({ ...posted, hash: reverse.toUpperCase() }, 'test-salt')).toBe(true);
  });

  it.each([
    ['a tampered amount', { amount: '1.00' }],
    ['a flipped status', { status: 'failure' }],
    ['another txnid', { txnid: 'lc124' }],
    ['a changed udf', { udf1: 'ULTRA LEGEND' }],
    ['a missing status', { status: undefined }],
    ['a duplicated field', { amount: ['1450.00', '1.00'] }],
  ])('refuses %s', (_label, change) => {
    expect(verifyResponseHash({ ...posted, ...change, hash: reverse }, 'test-salt')).toBe(false);
  });

  it('refuses a wrong salt, a short hash, a missing hash and garbage', () => {
    expect(verifyResponseHash({ ...posted, hash: reverse }, 'other-salt')).toBe(false);
    expect(verifyResponseHash({ ...posted, hash: reverse.slice(0, 127) }, 'test-salt')).toBe(false);
    expect(verifyResponseHash({ ...posted, hash: `${reverse}00` }, 'test-salt')).toBe(false);
    expect(verifyResponseHash(posted, 'test-salt')).toBe(false);
    expect(verifyResponseHash({ ...posted, hash: 'z'.repeat(128) }, 'test-salt')).toBe(false);
  });

  it.each(['additionalCharges', 'additional_charges'])('prefixes %s when PayU posts it', (name) => {
    const withCharges = sha512(
      `12.50|test-salt|success||||||||256GB|45|LEGEND|asha@example.in|Asha|LEGEND 45 hours|1450.00|lc123|TESTKEY`,
    );
    expect(verifyResponseHash({ ...posted, [name]: '12.50', hash: withCharges }, 'test-salt')).toBe(true);
    expect(verifyResponseHash({ ...posted, [name]: '12.50', hash: reverse }, 'test-salt')).toBe(false);
    // An empty value is the same as none.
    expect(verifyResponseHash({ ...posted, [name]: '', hash: reverse }, 'test-salt')).toBe(true);
  });

  it('checks our key in the client', () => {
    const client = createPayUClient(config);
    expect(client.verifyResponse({ ...posted, hash: reverse })).toBe(true);
    const otherKey = { ...posted, key: 'OTHER' };
    expect(client.verifyResponse({ ...otherKey, hash: responseHash(otherKey, 'test-salt') })).toBe(false);
  });
});

describe('parseVerifyPayment', () => {
  const found = {
    status: 1,
    msg: '1 out of 1 Transactions Fetched Successfully',
    transaction_details: {
      lc123: {
        mihpayid: '403993715521889530',
        status: 'success',
        unmappedstatus: 'captured',
        amt: '1450.00',
        transaction_amount: '1450.00',
        txnid: 'lc123',
        error_code: 'E000',
        error_Message: 'NO ERROR',
        net_amount_debit: 1450,
      },
    },
  };

  it('reads a success', () => {
    expect(parseVerifyPayment('lc123', found)).toMatchObject({
      found: true,
      status: 'success',
      mihpayid: '403993715521889530',
      amountPaise: 145000,
      netAmountDebitPaise: 145000,
      unmappedstatus: 'captured',
      errorCode: 'E000',
    });
  });

  it('reads net_amount_debit as a string too, and falls back to transaction_amount', () => {
    const entry = { ...found.transaction_details.lc123, amt: undefined, net_amount_debit: '1450.5' };
    const result = parseVerifyPayment('lc123', { ...found, transaction_details: { lc123: entry } });
    expect(result.amountPaise).toBe(145000);
    expect(result.netAmountDebitPaise).toBe(145050);
  });

  it.each([
    ['failure', 'failure'],
    ['pending', 'pending'],
    ['in progress', 'pending'],
    ['bounced', 'unknown'],
  ])('maps status %s to %s', (status, mapped) => {
    const entry = { ...found.transaction_details.lc123, status };
    expect(parseVerifyPayment('lc123', { ...found, transaction_details: { lc123: entry } }).status).toBe(
      mapped,
    );
  });

  it('reads "Not Found"', () => {
    const body = {
      status: 0,
      msg: '0 out of 1 Transactions Fetched Successfully',
      transaction_details: { nope: { mihpayid: 'Not Found', status: 'Not Found' } },
    };
    expect(parseVerifyPayment('nope', body)).toMatchObject({
      found: false,
      status: 'not-found',
      mihpayid: null,
      amountPaise: null,
    });
  });

  it('treats an unreadable amount as null, not zero', () => {
    const entry = { ...found.transaction_details.lc123, amt: 'abc', transaction_amount: null };
    expect(
      parseVerifyPayment('lc123', { ...found, transaction_details: { lc123: entry } }).amountPaise,
    ).toBeNull();
  });

  it('throws a non-retryable rejection for a refused call and a protocol error for garbage', () => {
    const refused = (() => {
      try {
        parseVerifyPayment('lc123', { status: 0, msg: 'Invalid Hash.' });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(PayUError);
    expect(refused).toMatchObject({ kind: 'rejected', retryable: false });
    expect(() => parseVerifyPayment('lc123', 'hello')).toThrow(PayUError);
    expect(() => parseVerifyPayment('lc123', { status: 1, transaction_details: { other: {} } })).toThrow(
      PayUError,
    );
  });
});

describe('parseRefund', () => {
  it('accepts only status 1 with error_code 102, as a number or a string', () => {
    const queued = {
      status: 1,
      msg: 'Refund Request Queued',
      request_id: '131242054',
      mihpayid: '4039',
      error_code: 102,
    };
    expect(parseRefund(queued)).toMatchObject({ accepted: true, requestId: '131242054', errorCode: 102 });
    expect(parseRefund({ ...queued, status: '1', error_code: '102' }).accepted).toBe(true);
    expect(parseRefund({ ...queued, error_code: 100 }).accepted).toBe(false);
    expect(parseRefund({ ...queued, status: 0 }).accepted).toBe(false);
  });

  it('flags a repeated token', () => {
    expect(parseRefund({ status: 0, msg: 'Token already exists', error_code: 106 })).toMatchObject({
      accepted: false,
      duplicateToken: true,
      requestId: null,
      message: 'Token already exists',
    });
  });
});

describe('the HTTP calls', () => {
  function fakeFetch(answer: (body: URLSearchParams, url: string) => Response | Promise<Response>) {
    const calls: Array<{ url: string; body: URLSearchParams }> = [];
    const fn = (async (url: string | URL | Request, init?: RequestInit) => {
      const body = new URLSearchParams(String(init?.body));
      calls.push({ url: String(url), body });
      return answer(body, String(url));
    }) as typeof fetch;
    return { fn, calls };
  }

  it('posts verify_payment with the command hash', async () => {
    const { fn, calls } = fakeFetch(() =>
      Response.json({
        status: 1,
        transaction_details: { lc123: { status: 'success', amt: '10.00', mihpayid: '1' } },
      }),
    );
    const result = await createPayUClient(
      { ...config, apiUrl: 'https://test.payu.in/' },
      { fetch: fn },
    ).verifyPayment('lc123');
    expect(result.status).toBe('success');
    expect(calls[0]?.url).toBe('https://test.payu.in/merchant/postservice.php?form=2');
    expect(Object.fromEntries(calls[0]?.body ?? [])).toEqual({
      key: 'TESTKEY',
      command: 'verify_payment',
      var1: 'lc123',
      hash: sha512('TESTKEY|verify_payment|lc123|test-salt'),
    });
  });

  it('posts a refund with the token and the formatted amount', async () => {
    const { fn, calls } = fakeFetch(() =>
      Response.json({ status: 1, msg: 'Refund Request Queued', request_id: '9', error_code: 102 }),
    );
    const result = await createPayUClient(config, { fetch: fn }).refund({
      mihpayid: '4039',
      refundToken: 'rf_1',
      amountPaise: 50050,
    });
    expect(result.accepted).toBe(true);
    expect(Object.fromEntries(calls[0]?.body ?? [])).toEqual({
      key: 'TESTKEY',
      command: 'cancel_refund_transaction',
      var1: '4039',
      var2: 'rf_1',
      var3: '500.50',
      hash: sha512('TESTKEY|cancel_refund_transaction|4039|test-salt'),
    });
  });

  it('refuses a refund token over 23 characters before calling', async () => {
    const { fn, calls } = fakeFetch(() => Response.json({}));
    await expect(
      createPayUClient(config, { fetch: fn }).refund({
        mihpayid: '4039',
        refundToken: 'x'.repeat(24),
        amountPaise: 100,
      }),
    ).rejects.toMatchObject({ kind: 'invalid-request' });
    expect(calls).toHaveLength(0);
  });

  it.each([
    ['a 502', () => new Response('bad gateway', { status: 502 }), 'server', true],
    ['a 403', () => new Response('no', { status: 403 }), 'protocol', false],
    ['an HTML page', () => new Response('<html>', { status: 200 }), 'protocol', false],
  ] as const)('turns %s into a typed error', async (_label, answer, kind, retryable) => {
    const { fn } = fakeFetch(answer);
    await expect(createPayUClient(config, { fetch: fn }).verifyPayment('lc123')).rejects.toMatchObject({
      kind,
      retryable,
    });
  });

  it('turns a network failure and a timeout into retryable errors', async () => {
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    await expect(createPayUClient(config, { fetch: down }).verifyPayment('lc123')).rejects.toMatchObject({
      kind: 'network',
      retryable: true,
    });

    const slow = ((_url: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as typeof fetch;
    await expect(
      createPayUClient(config, { fetch: slow, timeoutMs: 20 }).verifyPayment('lc123'),
    ).rejects.toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
  });
});

describe('batched verify_payment and refund status', () => {
  it('reads one answer per txnid asked, a missing one as not found', () => {
    const results = parseVerifyPayments(['a1', 'b2'], {
      status: 1,
      msg: '1 out of 2 Transactions Fetched Successfully',
      transaction_details: { a1: { status: 'success', mihpayid: '403993715521889530', amt: '1450.00' } },
    });
    expect(results.map((r) => [r.txnid, r.status, r.amountPaise])).toEqual([
      ['a1', 'success', 145000],
      ['b2', 'not-found', null],
    ]);
  });

  it('reads check_action_status nested under the request id and mihpayid', () => {
    const nested = { transaction_details: { '123': { '4039': { status: 'SUCCESS', request_id: '123' } } } };
    expect(parseRefundStatus('123', nested)).toMatchObject({ payuStatus: 'SUCCESS', progress: 'success' });
    const flat = { transaction_details: { '123': { status: 'IN PROGRESS' } } };
    expect(parseRefundStatus('123', flat).progress).toBe('in-progress');
    expect(parseRefundStatus('123', { transaction_details: { '123': { status: 'FAILURE' } } }).progress).toBe(
      'failure',
    );
    expect(() => parseRefundStatus('123', { status: 0, msg: 'No action status found' })).toThrow(
      /No action status/,
    );
  });
});
