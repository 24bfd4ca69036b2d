import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('TRUST_PROXY_HOPS', () => {
  it('trusts no proxy unless told how many stand in front', () => {
    expect(loadConfig({}).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY_HOPS: '2' }).trustProxyHops).toBe(2);
  });

  it('refuses nonsense counts', () => {
    expect(() => loadConfig({ TRUST_PROXY_HOPS: '-1' })).toThrow(/TRUST_PROXY_HOPS/);
    expect(() => loadConfig({ TRUST_PROXY_HOPS: 'yes' })).toThrow(/TRUST_PROXY_HOPS/);
  });

  it('refuses the old all-or-nothing TRUST_PROXY, naming its replacement', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/replaced by TRUST_PROXY_HOPS/);
  });
});

describe('SERVE_SOURCE_MAPS', () => {
  it('is off unless asked for', () => {
    expect(loadConfig({}).serveSourceMaps).toBe(false);
    expect(loadConfig({ SERVE_SOURCE_MAPS: 'true' }).serveSourceMaps).toBe(true);
  });
});
