import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { PRODUCTION_ENV } from './productionEnv.fixture.ts';

/** MACHINE_DNS_ZONE_ID and MACHINE_DNS_SUFFIX: the machines' stable names, off unless both are set. */
describe('the machine names configuration', () => {
  it('is off by default: machines are reached by their address, as before', () => {
    expect(loadConfig({}).machineNames).toBeNull();
    expect(loadConfig(PRODUCTION_ENV).machineNames).toBeNull();
    // An empty value is unset (npm start's way to turn the sandbox's names off).
    expect(loadConfig({ MACHINE_DNS_ZONE_ID: '', MACHINE_DNS_SUFFIX: ' ' }).machineNames).toBeNull();
  });

  it('takes a zone id (with or without /hostedzone/) and its domain, normalised', () => {
    const names = loadConfig({
      ...PRODUCTION_ENV,
      MACHINE_DNS_ZONE_ID: '/hostedzone/Z0123456789ABCDEFGHIJ',
      MACHINE_DNS_SUFFIX: 'Play.LegendCloud.in.',
    }).machineNames;
    expect(names).toMatchObject({ zoneId: 'Z0123456789ABCDEFGHIJ', suffix: 'play.legendcloud.in' });
    // Against AWS: Route 53's own endpoint, EC2's credentials (the default chain in production).
    expect(names?.route53.endpoint).toBeUndefined();
  });

  it("in the sandbox, Route 53 is the sandbox's", () => {
    const names = loadConfig({
      PORT: '4100',
      MACHINE_DNS_ZONE_ID: 'Z0SANDBOXLEGENDPLAY01',
      MACHINE_DNS_SUFFIX: 'play.legendcloud.test',
    }).machineNames;
    expect(names?.route53.endpoint).toBe('http://127.0.0.1:4100/sandbox/route53');
    expect(names?.route53.credentials?.accessKeyId).toMatch(/^AKIA/);
  });

  it('refuses half a configuration, a zone id that is not one, and a suffix that is no domain', () => {
    expect(() => loadConfig({ MACHINE_DNS_ZONE_ID: 'Z0123456789ABCDEFGHIJ' })).toThrow(
      /Set both MACHINE_DNS_ZONE_ID and MACHINE_DNS_SUFFIX/,
    );
    expect(() => loadConfig({ MACHINE_DNS_SUFFIX: 'play.legendcloud.in' })).toThrow(ConfigError);
    expect(() => loadConfig({ MACHINE_DNS_ZONE_ID: 'example.com', MACHINE_DNS_SUFFIX: 'play.in' })).toThrow(
      /MACHINE_DNS_ZONE_ID: a Route 53 hosted zone id/,
    );
    expect(() => loadConfig({ MACHINE_DNS_ZONE_ID: 'Z01234', MACHINE_DNS_SUFFIX: 'localhost' })).toThrow(
      /MACHINE_DNS_SUFFIX: a domain name/,
    );
  });
});
