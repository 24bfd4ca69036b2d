import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildCheckout, PayUError } from './payu.ts';

const config = {
  key: 'C0Dr8m',
  salt: '3sf0jURk',
  checkoutUrl: 'https://test.payu.in/_payment',
  apiUrl: 'https://test.payu.in',
};
const input = {
  txnid: 'lc12345',
  amountPaise: 183000,
  productinfo: 'Legend Cloud LEGEND, 45 hours, one month',
  firstname: 'Asha',
  email: 'asha@example.com',
  phone: '9876543210',
  surl: 'https://legendcloud.in/api/payu/success',
  furl: 'https://legendcloud.in/api/payu/failure',
  udf1: 'LEGEND',
};

describe('a standing-instruction registration at checkout', () => {
  it('posts si=1, api_version=7 and si_details, and hashes si_details before the salt', () => {
    const details = { billingAmount: '1830.00', billingCurrency: 'INR', billingCycle: 'MONTHLY' };
    const start = buildCheckout(config, { ...input, siDetails: details });
    const siDetails = JSON.stringify(details);
    expect(start).toMatchObject({ si: '1', api_version: '7', si_details: siDetails, amount: '1830.00' });
    // key|txnid|amount|productinfo|firstname|email|udf1..udf5||||||si_details|SALT (docs.payu.in).
    const expected = createHash('sha512')
      .update(
        `C0Dr8m|lc12345|1830.00|${input.productinfo}|Asha|asha@example.com|LEGEND||||||||||${siDetails}|3sf0jURk`,
      )
      .digest('hex');
    expect(start.hash).toBe(expected);
    // Without it the checkout is exactly what it was.
    const plain = buildCheckout(config, input);
    expect(plain).not.toHaveProperty('si');
    expect(plain.hash).not.toBe(expected);
  });

  it('refuses si_details that would split the hash', () => {
    expect(() => buildCheckout(config, { ...input, siDetails: { remarks: 'a|b' } })).toThrow(PayUError);
  });
});
