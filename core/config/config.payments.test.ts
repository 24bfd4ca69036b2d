import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SANDBOX_PAYU_KEY } from './config.ts';

/** The plans-and-payments part of the configuration. */

const base = { NODE_ENV: 'test', PORT: '4100' };

describe('PayU configuration', () => {
  it('defaults to the sandbox merchant: checkout on our origin, API through SANDBOX_URL', () => {
    const config = loadConfig({ ...base, PUBLIC_URL: 'https://dev.example.in' });
    expect(config.payu).toMatchObject({
      mode: 'sandbox',
      key: SANDBOX_PAYU_KEY,
      checkoutUrl: 'https://dev.example.in/sandbox/payu/_payment',
      apiUrl: 'http://127.0.0.1:4100/sandbox/payu',
    });
    expect(config.sandbox.enabled).toBe(true);
  });

  it('takes all four PayU variables, or refuses half a configuration', () => {
    const payu = {
      PAYU_KEY: 'gtKFFx',
      PAYU_SALT: 'salt',
      PAYU_CHECKOUT_URL: 'https://test.payu.in/_payment',
      PAYU_API_URL: 'https://test.payu.in/',
    };
    expect(loadConfig({ ...base, ...payu }).payu).toEqual({
      mode: 'payu',
      key: 'gtKFFx',
      salt: 'salt',
      checkoutUrl: 'https://test.payu.in/_payment',
      apiUrl: 'https://test.payu.in',
    });
    expect(() => loadConfig({ ...base, PAYU_KEY: 'gtKFFx' })).toThrow(ConfigError);
  });

  it('refuses production without PayU credentials and the invoice identity', () => {
    let message = '';
    try {
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://u:p@db/legend',
        APP_SECRET: 'x'.repeat(40),
        PUBLIC_URL: 'https://legendcloud.in',
        SMTP_URL: 'smtp://mail:25',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of [
      'PAYU_KEY',
      'PAYU_SALT',
      'PAYU_CHECKOUT_URL',
      'PAYU_API_URL',
      'GSTIN',
      'LEGAL_NAME',
      'LEGAL_ADDRESS',
      'OPS_EMAIL or ALERT_WEBHOOK_URL',
    ]) {
      expect(message).toContain(name);
    }
  });
});

describe('invoice, capacity and refund settings', () => {
  it('reads GST identity and states, and refuses a state that is not Indian', () => {
    const config = loadConfig({
      ...base,
      GSTIN: '27ABCDE1234F1Z5',
      SUPPLIER_STATE: 'Maharashtra',
      GST_RATE_PERCENT: '12',
    });
    expect(config.invoice).toMatchObject({
      gstin: '27ABCDE1234F1Z5',
      supplierState: 'Maharashtra',
      defaultCustomerState: 'Maharashtra',
      gstRatePercent: 12,
    });
    expect(() => loadConfig({ ...base, SUPPLIER_STATE: 'Atlantis' })).toThrow(/SUPPLIER_STATE/);
    expect(() => loadConfig({ ...base, GSTIN: 'not-a-gstin' })).toThrow(ConfigError);
  });

  it('overrides capacity per instance type and keeps the defaults for the rest', () => {
    const config = loadConfig({ ...base, CAPACITY_LIMITS: 'g5.xlarge=3, g4dn.xlarge = 0' });
    expect(config.capacityLimits['g5.xlarge']).toBe(3);
    expect(config.capacityLimits['g4dn.xlarge']).toBe(0);
    expect(config.capacityLimits['g4dn.2xlarge']).toBe(10);
    expect(() => loadConfig({ ...base, CAPACITY_LIMITS: 'lots' })).toThrow(/CAPACITY_LIMITS/);
  });

  it('reads the refund policy, defaulting to the architecture’s figures', () => {
    expect(loadConfig(base).refundPolicy).toEqual({
      percentByDay: [70, 70, 60, 50, 40, 30, 25, 20],
      cancellationChargePaise: 20000,
    });
    expect(
      loadConfig({ ...base, REFUND_PERCENT_BY_DAY: '100,50', REFUND_CANCELLATION_CHARGE_RUPEES: '0' })
        .refundPolicy,
    ).toEqual({ percentByDay: [100, 50], cancellationChargePaise: 0 });
    expect(() => loadConfig({ ...base, REFUND_PERCENT_BY_DAY: '70,150' })).toThrow(/REFUND_PERCENT_BY_DAY/);
  });
});
