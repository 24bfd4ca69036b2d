import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

/** DCV_WEB_URL: where "Open in browser" sends people. Production's unless the sandbox says otherwise. */
describe('the browser desktop configuration', () => {
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
    AWS_REGION: 'ap-south-1',
    EC2_KEY_NAME: 'legend',
    EC2_PRIVATE_KEY_PEM: 'pem',
    EC2_SECURITY_GROUP_IDS: 'sg-0aaa',
    EC2_SUBNET_IDS: 'subnet-0aaa',
    EC2_AMI_ID: 'ami-0123456789abcdef0',
    WORKER_EGRESS_CIDRS: '203.0.113.10/32',
  };

  it("defaults to DCV's web client on the machine over HTTPS, port 8443", () => {
    expect(loadConfig({}).vm.dcvWebUrl).toBe('https://{ip}:8443/');
    expect(loadConfig(production).vm.dcvWebUrl).toBe('https://{ip}:8443/');
  });

  it('takes http outside production (the sandbox stand-in), https only in production', () => {
    expect(loadConfig({ DCV_WEB_URL: 'http://{ip}:8443/' }).vm.dcvWebUrl).toBe('http://{ip}:8443/');
    expect(() => loadConfig({ ...production, DCV_WEB_URL: 'http://{ip}:8443/' })).toThrow(
      /DCV_WEB_URL: https only/,
    );
    expect(loadConfig({ ...production, DCV_WEB_URL: 'https://{ip}:9443/dcv/' }).vm.dcvWebUrl).toBe(
      'https://{ip}:9443/dcv/',
    );
  });

  it('refuses a template that names no machine or is no URL', () => {
    expect(() => loadConfig({ DCV_WEB_URL: 'https://dcv.example.in/' })).toThrow(
      /name the machine as \{ip\}/,
    );
    expect(() => loadConfig({ DCV_WEB_URL: 'not a url {ip}' })).toThrow(/DCV_WEB_URL: .* is not a URL/);
    expect(() => loadConfig({ DCV_WEB_URL: 'ftp://{ip}/' })).toThrow(/DCV_WEB_URL: http or https only/);
  });
});
