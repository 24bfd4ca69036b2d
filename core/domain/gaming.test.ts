import { describe, expect, it } from 'vitest';
import { bestModeFor, GAMING, moonlightDefaultMbps, STREAM_MODES } from './gaming.ts';
import { THRESHOLDS } from './connectionCheck.ts';

describe('the gaming figures', () => {
  it("are Moonlight's default bitrates (moonlight-qt getDefaultBitrate)", () => {
    expect(moonlightDefaultMbps(1280, 720, 60)).toBe(10);
    expect(moonlightDefaultMbps(1920, 1080, 60)).toBe(20);
    // Above 60 fps the frame rate counts as √(fps/60)×60: 10 × 2√2 = 28.3.
    expect(moonlightDefaultMbps(1920, 1080, 120)).toBe(28);
    expect(moonlightDefaultMbps(2560, 1440, 60)).toBe(40);
    expect(moonlightDefaultMbps(3840, 2160, 60)).toBe(80);
    // Between two table rows, the factor is interpolated; past the last, the last.
    expect(moonlightDefaultMbps(1600, 900, 60)).toBe(15);
    expect(moonlightDefaultMbps(5120, 2880, 60)).toBe(80);
    expect(moonlightDefaultMbps(320, 180, 30)).toBe(1);
  });

  it('name each quality once, lightest first, and the plan for games', () => {
    const speeds = STREAM_MODES.map((m) => m.mbps);
    expect([...speeds].sort((a, b) => a - b)).toEqual(speeds);
    expect(new Set(STREAM_MODES.map((m) => m.label)).size).toBe(STREAM_MODES.length);
    expect(GAMING).toMatchObject({
      planName: 'Ultra Legend',
      maxFps: 144,
      minimumMbps: 10,
      recommendedMbps: 20,
    });
    // The connection check judges gaming by the same figures.
    expect(THRESHOLDS.gaming.great.mbps).toBe(GAMING.recommendedMbps);
    expect(THRESHOLDS.gaming.ok.mbps).toBe(GAMING.minimumMbps);
  });

  it('bestModeFor: the best a line carries, none below the lightest', () => {
    expect(bestModeFor(9.9)).toBeNull();
    expect(bestModeFor(10)?.label).toBe('720p 60 fps');
    expect(bestModeFor(31)?.label).toBe('1080p 144 fps');
    expect(bestModeFor(1000)?.label).toBe('4K 60 fps');
  });
});
