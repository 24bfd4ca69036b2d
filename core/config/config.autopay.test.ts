import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { PRODUCTION_ENV } from './productionEnv.fixture.ts';

/** AutoPay: PAYU_SI_ENABLED (PayU's SI product on the merchant account) and AUTOPAY_NOTICE_MINUTES. */
describe('the AutoPay configuration', () => {
  const production = PRODUCTION_ENV;

  it('the sandbox plays SI, so AutoPay is on there with the 48-hour notice', () => {
    expect(loadConfig({}).autopay).toEqual({ enabled: true, noticeMinutes: 2880 });
  });

  it('a real merchant account has AutoPay only when PAYU_SI_ENABLED says PayU enabled SI', () => {
    const payu = {
      PAYU_KEY: 'key',
      PAYU_SALT: 'salt',
      PAYU_CHECKOUT_URL: 'https://test.payu.in/_payment',
      PAYU_API_URL: 'https://test.payu.in',
    };
    expect(loadConfig(payu).autopay.enabled).toBe(false);
    expect(loadConfig({ ...payu, PAYU_SI_ENABLED: 'true' }).autopay.enabled).toBe(true);
    // Production refuses AutoPay without the SI product: never offered, never registered.
    expect(loadConfig(production).autopay.enabled).toBe(false);
    expect(loadConfig({ ...production, PAYU_SI_ENABLED: 'true' }).autopay.enabled).toBe(true);
  });

  it('production refuses a notice lead under 48 hours; elsewhere a test may shorten it', () => {
    expect(() => loadConfig({ ...production, AUTOPAY_NOTICE_MINUTES: '1440' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, AUTOPAY_NOTICE_MINUTES: '1440' })).toThrow(/48 hours/);
    expect(loadConfig({ ...production, AUTOPAY_NOTICE_MINUTES: '4320' }).autopay.noticeMinutes).toBe(4320);
    expect(loadConfig({ AUTOPAY_NOTICE_MINUTES: '10' }).autopay.noticeMinutes).toBe(10);
    expect(() => loadConfig({ AUTOPAY_NOTICE_MINUTES: 'soon' })).toThrow(ConfigError);
  });
});
