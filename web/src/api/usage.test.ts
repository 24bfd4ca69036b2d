import { describe, expect, it } from 'vitest';
import { usagePollInterval } from './usage.ts';

describe('usage polling (spec §4 Progress polling)', () => {
  it('polls every second while the PC runs', () => {
    expect(usagePollInterval({ isRunning: true, vmLastState: 'running' })).toBe(1_000);
  });

  it('keeps asking at the dashboard’s pace while a STOP or START settles', () => {
    expect(usagePollInterval({ isRunning: false, vmLastState: 'stopping' })).toBe(5_000);
    expect(usagePollInterval({ isRunning: false, vmLastState: 'starting' })).toBe(5_000);
  });

  it('stops polling once the PC is stopped, gone or unknown', () => {
    expect(usagePollInterval({ isRunning: false, vmLastState: 'stopped' })).toBe(0);
    expect(usagePollInterval({ isRunning: false, vmLastState: 'terminated' })).toBe(0);
    expect(usagePollInterval(undefined)).toBe(0);
  });
});
