import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

/** REGION_PING_URL: what the connection check page measures from the browser. */
describe('the connection check endpoint', () => {
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://app@db.internal/legend',
    APP_SECRET: 'x'.repeat(40),
    PUBLIC_URL: 'https://legendcloud.in',
    SMTP_URL: 'smtps://user:pass@smtp.example.com:465',
    PAYU_KEY: 'key',
    PAYU_SALT: 'salt',
    PAYU_CHECKOUT_URL: 'https://secure.payu.in/_payment',
    PAYU_API_URL: 'https://info.payu.in',
    GSTIN: '29ABCDE1234F1Z5',
    LEGAL_NAME: 'Legend Cloud Pvt Ltd',
    LEGAL_ADDRESS: 'Bengaluru, Karnataka, India',
    OPS_EMAIL: 'ops@legendcloud.in',
    AWS_REGION: 'ap-south-2',
    EC2_KEY_NAME: 'legend',
    EC2_PRIVATE_KEY_PEM: 'pem',
    EC2_SECURITY_GROUP_IDS: 'sg-0aaa',
    EC2_SUBNET_IDS: 'subnet-0aaa',
    EC2_AMI_ID: 'ami-0123456789abcdef0',
  };

  it("defaults to DynamoDB's ping in the region machines are launched in", () => {
    expect(loadConfig(production).connectionCheck).toEqual({
      pingUrl: 'https://dynamodb.ap-south-2.amazonaws.com/ping',
      region: 'ap-south-2',
    });
  });

  it("is the sandbox's stand-in on the public origin in sandbox mode", () => {
    expect(loadConfig({ PORT: '4100' }).connectionCheck).toEqual({
      pingUrl: 'http://localhost:4100/sandbox/region-ping/ping',
      region: 'ap-south-1',
    });
    expect(loadConfig({ PUBLIC_URL: 'https://demo.example.in/' }).connectionCheck.pingUrl).toBe(
      'https://demo.example.in/sandbox/region-ping/ping',
    );
  });

  it('takes the URL it is given, https only in production', () => {
    const own = 'https://ping.ap-south-2.legendcloud.in/ping';
    expect(loadConfig({ ...production, REGION_PING_URL: own }).connectionCheck.pingUrl).toBe(own);
    expect(
      loadConfig({ REGION_PING_URL: 'http://127.0.0.1:4100/sandbox/region-ping/ping' }).connectionCheck
        .pingUrl,
    ).toBe('http://127.0.0.1:4100/sandbox/region-ping/ping');
    expect(() => loadConfig({ ...production, REGION_PING_URL: 'http://ping.example.in/ping' })).toThrow(
      /REGION_PING_URL: https only in production/,
    );
  });

  it('refuses what a browser could not or should not fetch', () => {
    expect(() => loadConfig({ REGION_PING_URL: 'ftp://ping.example.in/' })).toThrow(
      /REGION_PING_URL must be an http\(s\) URL/,
    );
    expect(() => loadConfig({ REGION_PING_URL: 'https://user:secret@ping.example.in/' })).toThrow(
      /must not carry a user name or password/,
    );
  });
});
