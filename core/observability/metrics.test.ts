import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { metricsAccess } from './metrics.ts';

const development = loadConfig({ NODE_ENV: 'development' });
const production = (token: string | undefined) => ({
  ...development,
  production: true,
  ops: { ...development.ops, metricsToken: token },
});

describe('who may read /metrics', () => {
  it('is open outside production', () => {
    expect(metricsAccess(development, undefined)).toBe('allowed');
  });

  it('in production needs the METRICS_TOKEN bearer token', () => {
    const config = production('a-long-metrics-token-123');
    expect(metricsAccess(config, 'Bearer a-long-metrics-token-123')).toBe('allowed');
    expect(metricsAccess(config, 'bearer a-long-metrics-token-123')).toBe('allowed');
    expect(metricsAccess(config, 'Bearer a-long-metrics-token-124')).toBe('unauthorized');
    expect(metricsAccess(config, 'Basic YTpi')).toBe('unauthorized');
    expect(metricsAccess(config, undefined)).toBe('unauthorized');
  });

  it('is off in production when no token is configured', () => {
    expect(metricsAccess(production(undefined), 'Bearer anything-at-all-here')).toBe('off');
  });
});
