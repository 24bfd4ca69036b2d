import { describe, expect, it } from 'vitest';
import { setupEstimate, setupPhaseOf, type ProvisionDistribution } from './setupProgress.ts';

const row = (over: Partial<Parameters<typeof setupPhaseOf>[0]>) => ({
  state: 'provisioning',
  source: 'launch' as const,
  instanceId: 'i-0123456789abcdef0',
  remoteDesktopWaitingSince: null,
  ...over,
});

describe('the phase of a new PC', () => {
  it('a launch: prepared (no instance yet, then first boot), then Remote Desktop checked, then ready', () => {
    expect(setupPhaseOf(row({ state: 'requested', instanceId: null, source: null }))).toBe('preparing');
    expect(setupPhaseOf(row({}))).toBe('preparing');
    expect(setupPhaseOf(row({ remoteDesktopWaitingSince: new Date() }))).toBe('remote-desktop');
    expect(setupPhaseOf(row({ state: 'running' }))).toBe('ready');
  });

  it('a warm-pool spare only starts, then Remote Desktop is checked', () => {
    expect(setupPhaseOf(row({ source: 'pool' }))).toBe('starting');
    expect(setupPhaseOf(row({ source: 'pool', remoteDesktopWaitingSince: new Date() }))).toBe(
      'remote-desktop',
    );
  });

  it('is no setup for a machine stopped, stopping or gone', () => {
    for (const state of ['stopped', 'stopping', 'starting', 'terminated', 'error'])
      expect(setupPhaseOf(row({ state }))).toBeNull();
  });
});

describe('how long is left', () => {
  const requestedAt = new Date('2027-01-10T10:00:00Z');
  const after = (seconds: number) => new Date(requestedAt.getTime() + seconds * 1000);
  const distribution: ProvisionDistribution = {
    pool: { sampleSize: 50, p50Seconds: 75, p90Seconds: 110 },
    launch: { sampleSize: 30, p50Seconds: 290, p90Seconds: 370 },
  };

  it('from the recorded provisions of its kind, less the time already waited', () => {
    expect(setupEstimate({ distribution, source: 'launch', requestedAt, now: after(60) })).toEqual({
      measured: true,
      text: 'Usually ready about 5 minutes after payment. About 4 minutes to go; 9 in 10 are ready within 7 minutes.',
    });
    expect(setupEstimate({ distribution, source: 'pool', requestedAt, now: after(15) }).text).toBe(
      'Usually ready about 75 seconds after payment. About 60 seconds to go; 9 in 10 are ready within 2 minutes.',
    );
    // Before the kind is known: the slower one, so the estimate is no promise a launch breaks.
    expect(setupEstimate({ distribution, source: null, requestedAt, now: after(0) }).text).toMatch(
      /^Usually ready about 5 minutes after payment/,
    );
  });

  it('past the 90th percentile says it is slower than usual and goes on; never "0 seconds to go"', () => {
    expect(setupEstimate({ distribution, source: 'pool', requestedAt, now: after(100) }).text).toContain(
      'About 5 seconds to go',
    );
    expect(setupEstimate({ distribution, source: 'pool', requestedAt, now: after(200) }).text).toBe(
      'This one is taking longer than usual (9 in 10 are ready within 2 minutes); we keep going, and this page updates by itself.',
    );
  });

  it('with too few recorded provisions says only what is true of every kind', () => {
    const few: ProvisionDistribution = {
      pool: { sampleSize: 3, p50Seconds: 10, p90Seconds: 12 },
      launch: null,
    };
    for (const d of [few, null])
      expect(setupEstimate({ distribution: d, source: 'pool', requestedAt, now: after(1) })).toEqual({
        measured: false,
        text: 'This usually takes a few minutes. This page updates by itself.',
      });
  });
});
