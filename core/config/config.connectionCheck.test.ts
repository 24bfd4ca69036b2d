import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { PRODUCTION_ENV } from './productionEnv.fixture.ts';

/** REGION_PING_URL: what the connection check page measures from the browser. */
describe('the connection check endpoint', () => {
  const production = { ...PRODUCTION_ENV, AWS_REGION: 'ap-south-2' };

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
