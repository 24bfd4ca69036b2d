import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { PRODUCTION_ENV } from './productionEnv.fixture.ts';

/** DCV_WEB_URL: where "Open in browser" sends people. Production's unless the sandbox says otherwise. */
describe('the browser desktop configuration', () => {
  const production = PRODUCTION_ENV;

  it("defaults to DCV's web client on the machine, by its name when it has one, over HTTPS, port 8443", () => {
    expect(loadConfig({}).vm.dcvWebUrl).toBe('https://{host}:8443/');
    expect(loadConfig(production).vm.dcvWebUrl).toBe('https://{host}:8443/');
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
      /name the machine as \{host\} .* or \{ip\}/,
    );
    expect(() => loadConfig({ DCV_WEB_URL: 'not a url {ip}' })).toThrow(/DCV_WEB_URL: .* is not a URL/);
    expect(() => loadConfig({ DCV_WEB_URL: 'ftp://{ip}/' })).toThrow(/DCV_WEB_URL: http or https only/);
  });
});
