import { describe, expect, it } from 'vitest';
import { STREAM_MODES } from './gaming.ts';
import {
  adviceFor,
  streamQualityFor,
  DOWNLOAD_BUDGET_BYTES,
  DOWNLOAD_SIZES,
  formatMbps,
  formatMs,
  greatNeeds,
  jitterMs,
  median,
  MIN_RTT_SAMPLES,
  nextDownloadBytes,
  regionLabel,
  RTT_REQUESTS,
  rttRunCanSucceed,
  rttSampleMs,
  summariseRtt,
  throughputMbps,
  verdictFor,
  verdicts,
  type Measured,
  type Transfer,
  type Use,
} from './connectionCheck.ts';

const MIB = 1024 * 1024;

describe('round-trip samples from Resource Timing', () => {
  it.each([
    [
      'with Timing-Allow-Origin: request sent to first byte',
      { startTime: 100, requestStart: 110, responseStart: 132, responseEnd: 133 },
      99,
      22,
    ],
    [
      'cross-origin without it (detailed fields are 0): the whole fetch',
      { startTime: 100, requestStart: 0, responseStart: 0, responseEnd: 127 },
      99,
      27,
    ],
    ['no entry (buffer full): the page clock', undefined, 31, 31],
    [
      'an entry with nothing timed: the page clock',
      { startTime: 0, requestStart: 0, responseStart: 0, responseEnd: 0 },
      31,
      31,
    ],
  ])('%s', (_name, entry, clock, expected) => {
    expect(rttSampleMs(entry, clock)).toBe(expected);
  });
});

describe('statistics', () => {
  it.each([
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[10, 10, 10, 400], 10],
  ])('median of %j is %d', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it('median of nothing is NaN, not 0 (nothing was measured)', () => {
    expect(median([])).toBeNaN();
  });

  it.each([
    ['steady samples', [20, 20, 20, 20], 0],
    ['one sample', [20], 0],
    ['alternating by 10', [20, 30, 20, 30, 20], 10],
    ['a single spike counts twice (up and back down)', [20, 20, 50, 20, 20], 15],
    ['a slow drift is small jitter', [20, 21, 22, 23, 24], 1],
  ])('jitter (mean |D(i-1,i)|): %s', (_name, samples, expected) => {
    expect(jitterMs(samples)).toBe(expected);
  });
});

describe('a run of round trips', () => {
  const run = (first: number, rest: Array<number | null>) => [first, ...rest];

  it('discards the first request (connection set-up) whatever it measured', () => {
    const steady = Array.from({ length: RTT_REQUESTS - 1 }, () => 30);
    const summary = summariseRtt(run(450, steady));
    expect(summary).toEqual({ samples: 24, lost: 0, medianMs: 30, jitterMs: 0, minMs: 30, maxMs: 30 });
  });

  it('counts lost requests and takes jitter over the answers in order', () => {
    const attempts = run(200, [20, null, 30, 20, 30, ...Array.from({ length: 19 }, () => 20)]);
    const summary = summariseRtt(attempts);
    expect(summary?.lost).toBe(1);
    expect(summary?.samples).toBe(23);
    // 20→30→20→30→20, then steady: four steps of 10 over 22 differences.
    expect(summary?.jitterMs).toBeCloseTo(40 / 22, 10);
    expect(summary?.medianMs).toBe(20);
  });

  it('refuses to judge on fewer than the minimum of answers', () => {
    const answered = Array.from({ length: MIN_RTT_SAMPLES - 1 }, () => 25);
    const lost = Array.from({ length: RTT_REQUESTS - MIN_RTT_SAMPLES }, () => null);
    expect(summariseRtt(run(60, [...answered, ...lost]))).toBeNull();
    expect(summariseRtt(run(60, [...answered, 25]))).not.toBeNull();
  });

  it('stops a run once too many requests are lost to reach the minimum', () => {
    const lost = (n: number) => Array.from({ length: n }, () => null);
    // The set-up request does not count, answered or not.
    expect(rttRunCanSucceed([null])).toBe(true);
    expect(rttRunCanSucceed([null, ...lost(RTT_REQUESTS - 1 - MIN_RTT_SAMPLES)])).toBe(true);
    expect(rttRunCanSucceed([null, ...lost(RTT_REQUESTS - MIN_RTT_SAMPLES)])).toBe(false);
    expect(rttRunCanSucceed([30, 20, null, 20, null])).toBe(true);
  });

  it('asks for at least 20 samples after the discarded one', () => {
    expect(RTT_REQUESTS - 1).toBeGreaterThanOrEqual(20);
    expect(MIN_RTT_SAMPLES).toBeGreaterThanOrEqual(20);
  });
});

describe('download speed', () => {
  const t = (requestedBytes: number, bytes: number, ms: number, cutOff = false): Transfer => ({
    requestedBytes,
    bytes,
    ms,
    cutOff,
  });

  it('is bounded: at most about 21 MiB over four growing payloads', () => {
    expect(DOWNLOAD_SIZES).toEqual([256 * 1024, MIB, 4 * MIB, 16 * MIB]);
    expect(DOWNLOAD_BUDGET_BYTES).toBe(21.25 * MIB);
  });

  it.each<[string, Transfer[], number | null]>([
    ['starts small', [], 256 * 1024],
    ['grows while transfers are quick', [t(256 * 1024, 256 * 1024, 20)], MIB],
    [
      'grows to the largest',
      [t(256 * 1024, 256 * 1024, 5), t(MIB, MIB, 20), t(4 * MIB, 4 * MIB, 80)],
      16 * MIB,
    ],
    [
      'stops after the largest',
      [t(256 * 1024, 256 * 1024, 5), t(MIB, MIB, 20), t(4 * MIB, 4 * MIB, 80), t(16 * MIB, 16 * MIB, 300)],
      null,
    ],
    ['stops once a transfer lasted a second', [t(256 * 1024, 256 * 1024, 200), t(MIB, MIB, 1000)], null],
    ['stops when one was cut off', [t(256 * 1024, 180 * 1024, 8000, true)], null],
    ['stops when the endpoint answers a small body whatever was asked', [t(256 * 1024, 42, 1)], null],
  ])('the next payload: %s', (_name, done, expected) => {
    expect(nextDownloadBytes(done)).toBe(expected);
  });

  it.each<[string, Transfer[], number | null]>([
    ['nothing fetched', [], null],
    ['8 Mbit in a second is 8 Mbps', [t(MIB, 1_000_000, 1000)], 8],
    [
      'the largest transfer counts, not the slow-start-bound small one',
      [t(256 * 1024, 250_000, 100), t(MIB, 1_000_000, 200)],
      40,
    ],
    ['a cut-off transfer counts what arrived', [t(4 * MIB, 2_000_000, 8000, true)], 2],
    ['an endpoint that does not serve sizes: not measured', [t(256 * 1024, 42, 1)], null],
    ['nothing timed: not measured', [t(MIB, MIB, 0)], null],
  ])('throughput: %s', (_name, done, expected) => {
    expect(throughputMbps(done)).toBe(expected);
  });
});

describe('verdicts', () => {
  const m = (rttMs: number, jitter: number, mbps: number | null): Measured => ({
    rttMs,
    jitterMs: jitter,
    mbps,
  });

  it.each<[Use, Measured, 'great' | 'ok' | 'poor', string]>([
    // Gaming: great at 35 ms and 5 ms inclusive, with 20 Mbps.
    ['gaming', m(35, 5, 20), 'great', 'Great for gaming'],
    ['gaming', m(12, 1, 300), 'great', 'Great for gaming'],
    ['gaming', m(36, 5, 100), 'ok', 'Good for relaxed gaming'],
    ['gaming', m(35, 5.1, 100), 'ok', 'Good for relaxed gaming'],
    ['gaming', m(20, 2, 19), 'ok', 'Good for relaxed gaming'],
    ['gaming', m(60, 10, 10), 'ok', 'Good for relaxed gaming'],
    ['gaming', m(61, 2, 100), 'poor', 'Not great for gaming from here'],
    ['gaming', m(20, 11, 100), 'poor', 'Not great for gaming from here'],
    ['gaming', m(20, 2, 9), 'poor', 'Not great for gaming from here'],
    // An unmeasured speed rests the verdict on round trip and jitter.
    ['gaming', m(30, 3, null), 'great', 'Great for gaming'],
    // Video editing forgives more delay than games but wants the bitrate.
    ['editing', m(80, 15, 20), 'great', 'Great for video editing'],
    ['editing', m(61, 12, 50), 'great', 'Great for video editing'],
    ['editing', m(81, 15, 20), 'ok', 'Fine for video editing'],
    ['editing', m(40, 3, 15), 'ok', 'Fine for video editing'],
    ['editing', m(121, 3, 50), 'poor', 'Not great for video editing from here'],
    ['editing', m(40, 3, 8), 'poor', 'Not great for video editing from here'],
    // Work and study: about 100 ms still feels immediate.
    ['work', m(100, 20, 5), 'great', 'Great for work and study'],
    ['work', m(150, 20, 5), 'ok', 'Fine for work and study'],
    ['work', m(90, 10, 3), 'ok', 'Fine for work and study'],
    ['work', m(201, 10, 50), 'poor', 'Slow for work and study from here'],
    ['work', m(90, 41, 50), 'poor', 'Slow for work and study from here'],
  ])('%s at %j: %s', (use, measured, level, title) => {
    const verdict = verdictFor(use, measured);
    expect(verdict.level).toBe(level);
    expect(verdict.title).toBe(title);
    expect(verdict.text.length).toBeGreaterThan(10);
    expect(verdict.shortfalls.length === 0).toBe(level === 'great');
  });

  it('names what kept a use from great', () => {
    expect(verdictFor('gaming', m(50, 8, 12)).shortfalls).toEqual(['rtt', 'jitter', 'speed']);
    expect(verdictFor('gaming', m(20, 8, null)).shortfalls).toEqual(['jitter']);
  });

  it('says what great asks for each use', () => {
    expect(greatNeeds('gaming')).toBe('Great needs a round trip up to 35 ms, jitter up to 5 ms and 20 Mbps.');
    expect(greatNeeds('editing')).toBe(
      'Great needs a round trip up to 80 ms, jitter up to 15 ms and 20 Mbps.',
    );
    expect(greatNeeds('work')).toBe('Great needs a round trip up to 100 ms, jitter up to 20 ms and 5 Mbps.');
  });

  it('judges every use, gaming first', () => {
    expect(verdicts(m(20, 2, 100)).map((v) => v.use)).toEqual(['gaming', 'editing', 'work']);
  });

  it('a connection just far enough from Mumbai changes the gaming verdict but not the others', () => {
    const near = verdicts(m(25, 2, 80));
    const far = verdicts(m(75, 2, 80));
    expect(near.map((v) => v.level)).toEqual(['great', 'great', 'great']);
    expect(far.map((v) => v.level)).toEqual(['poor', 'great', 'great']);
  });
});

describe('advice', () => {
  it('has nothing to say when gaming is great', () => {
    expect(adviceFor({ rttMs: 20, jitterMs: 2, mbps: 100 }, 'ap-south-1')).toEqual([]);
  });

  it('sends jittery Wi-Fi to a cable or 5 GHz', () => {
    const advice = adviceFor({ rttMs: 20, jitterMs: 9, mbps: 100 }, 'ap-south-1');
    expect(advice[0]).toContain('5 GHz Wi-Fi');
    expect(advice[0]).toContain('network cable');
    expect(advice.at(-1)).toContain('run the check again');
  });

  it('names the region for a long round trip', () => {
    const advice = adviceFor({ rttMs: 80, jitterMs: 2, mbps: 100 }, 'ap-south-1');
    expect(advice).toHaveLength(2);
    expect(advice[0]).toContain('Our PCs run in Mumbai (ap-south-1), the nearest region we offer');
  });

  it('suggests the best quality the line carries, never one it cannot', () => {
    const advice = adviceFor({ rttMs: 20, jitterMs: 2, mbps: 14 }, 'ap-south-1');
    expect(advice[0]).toContain('stream at 720p at 60 fps in Moonlight: it needs about 10 Mbps');
    // 8 Mbps cannot carry 720p's 10: nothing is suggested that it cannot carry.
    const slow = adviceFor({ rttMs: 20, jitterMs: 2, mbps: 8 }, 'ap-south-1');
    expect(slow[0]).not.toMatch(/stream at/);
    expect(slow[0]).toContain(
      'Moonlight needs at least 10 Mbps (720p at 60 fps), more than this line carried',
    );
    for (let mbps = 0.5; mbps < 200; mbps += 0.5) {
      for (const line of [
        ...adviceFor({ rttMs: 20, jitterMs: 2, mbps }, 'ap-south-1'),
        streamQualityFor(mbps)?.text ?? '',
      ]) {
        const named = /(?:stream at|up to) (\d+p|4K) at (\d+) fps/.exec(line);
        if (!named) continue;
        const quality = STREAM_MODES.find((m) => m.resolution === named[1] && m.fps === Number(named[2]));
        expect(quality, line).toBeDefined();
        expect(quality!.mbps, `${mbps} Mbps: ${line}`).toBeLessThanOrEqual(mbps);
      }
    }
  });

  it('names the best quality a measured line carries', () => {
    expect(streamQualityFor(null)).toBeNull();
    expect(streamQualityFor(45)?.text).toBe(
      'This line carries Moonlight at up to 1440p at 60 fps (about 40 Mbps).',
    );
    expect(streamQualityFor(9)).toEqual({
      mode: null,
      text: 'This line carries less than the 10 Mbps Moonlight needs for 720p at 60 fps.',
    });
  });

  it('gives every kind of advice, jitter first, when everything falls short', () => {
    const advice = adviceFor({ rttMs: 90, jitterMs: 20, mbps: 3 }, 'ap-south-2');
    expect(advice).toHaveLength(4);
    expect(advice[0]).toContain('jitter');
    expect(advice[1]).toContain('Hyderabad (ap-south-2)');
    expect(advice[2]).toContain('Pause downloads');
  });
});

describe('labels', () => {
  it.each([
    ['ap-south-1', 'Mumbai (ap-south-1)'],
    ['ap-south-2', 'Hyderabad (ap-south-2)'],
    ['xx-nowhere-9', 'xx-nowhere-9'],
  ])('region %s reads %s', (region, label) => {
    expect(regionLabel(region)).toBe(label);
  });

  it.each([
    [4.26, '4.3 ms'],
    [23.6, '24 ms'],
    [140, '140 ms'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });

  it.each([
    [null, 'Not measured'],
    [7.46, '7.5 Mbps'],
    [85.4, '85 Mbps'],
    [2345, '2.3 Gbps'],
  ])('%s Mbps reads %s', (mbps, text) => {
    expect(formatMbps(mbps)).toBe(text);
  });
});
