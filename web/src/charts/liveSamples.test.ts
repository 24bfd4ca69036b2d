import { describe, expect, it } from 'vitest';
import { appendLiveSample, latestValue, sessionSeconds, type LiveSample } from './liveSamples.ts';

const sample = (t: number): LiveSample => ({ t, sessionSeconds: t, cpu: null, gpu: null });

describe('live session samples', () => {
  it('keeps a rolling list of the newest 60 samples', () => {
    let samples: LiveSample[] = [];
    for (let t = 1; t <= 75; t++) samples = appendLiveSample(samples, sample(t));
    expect(samples).toHaveLength(60);
    expect(samples[0]?.t).toBe(16);
    expect(samples.at(-1)?.t).toBe(75);
  });

  it('grows by one per sample until full', () => {
    expect(appendLiveSample([sample(1)], sample(2))).toHaveLength(2);
  });

  it('counts the session in whole seconds since the machine started, never negative', () => {
    const start = '2026-03-09T10:00:00.000Z';
    expect(sessionSeconds(start, Date.parse(start) + 65_900)).toBe(65);
    expect(sessionSeconds(start, Date.parse(start) - 5_000)).toBe(0);
    expect(sessionSeconds(null, Date.now())).toBe(0);
  });

  it('reads the newest CPU value when there is one', () => {
    expect(latestValue([])).toBeNull();
    expect(latestValue([{ value: 10 }, { value: 42.5 }])).toBe(42.5);
  });
});
