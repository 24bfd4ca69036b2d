/**
 * The connection check (/connection-check): how a browser's way to the region our PCs run in is
 * measured, and what the figures mean for gaming, video editing and work or study. Pure: the page
 * does the fetching and hands over what the browser timed; every rule and every sentence is here.
 *
 * Method, in short:
 * - Round trip: `RTT_REQUESTS` small GETs one after another over one connection. The first is
 *   thrown away (it pays for DNS, TCP and TLS, which a stream pays once); the rest are the samples.
 *   The figure is their median, so one slow answer does not move it.
 * - Jitter: the mean absolute difference between consecutive samples, |D(i−1, i)| as RFC 3550
 *   (§6.4.1) defines it for RTP, averaged plainly over the run instead of RTP's running 1/16
 *   filter, which needs far more than two dozen packets to settle.
 * - Download speed: payloads of growing size (`DOWNLOAD_SIZES`), stopping once one lasts long
 *   enough to mean something (`DOWNLOAD_LONG_ENOUGH_MS`) or the largest is done; the figure is the
 *   largest transfer's bytes over the time from its first byte to its last, so the request's own
 *   round trip (measured above) is not counted twice.
 */

import { bestModeFor, MINIMUM_MODE, RECOMMENDED_MODE, spoken, type StreamMode } from './gaming.ts';

/** Requests for the round trip: the first is set-up and discarded, the rest are samples. */
export const RTT_REQUESTS = 25;
/** Below this many answered samples the check says it could not measure. */
export const MIN_RTT_SAMPLES = 20;
/** One sample may take this long before it counts as lost. */
export const RTT_TIMEOUT_MS = 3_000;

const KIB = 1024;
const MIB = 1024 * KIB;
/** Payload sizes tried in turn: 21.25 MiB at most, fetched only while the earlier ones were quick. */
export const DOWNLOAD_SIZES: readonly number[] = [256 * KIB, 1 * MIB, 4 * MIB, 16 * MIB];
/** A transfer that lasted this long is big enough to say what the line carries. */
export const DOWNLOAD_LONG_ENOUGH_MS = 1_000;
/** A payload still arriving after this long is cut off; what arrived counts. */
export const DOWNLOAD_TIMEOUT_MS = 8_000;
/** The most the check downloads, for the page to say before it starts. */
export const DOWNLOAD_BUDGET_BYTES = DOWNLOAD_SIZES.reduce((sum, size) => sum + size, 0);

/** The Resource Timing fields a sample is read from (a `PerformanceResourceTiming`). */
export type ResourceTimingLike = {
  startTime: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
};

/**
 * One round-trip sample from what the browser recorded for a request.
 * - With `Timing-Allow-Origin` the detailed fields are filled: the time from sending the request
 *   to its first byte back, one network round trip plus the server's moment, without the body.
 * - Cross-origin without it (AWS's endpoints), those fields are 0 and only start and end are
 *   given: the whole fetch, which on a reused connection is one round trip and a tiny body.
 * - With no entry at all (the buffer was full), the page's own clock around the fetch.
 */
export function rttSampleMs(entry: ResourceTimingLike | undefined, clockMs: number): number {
  if (entry && entry.requestStart > 0 && entry.responseStart >= entry.requestStart) {
    return entry.responseStart - entry.requestStart;
  }
  if (entry && entry.responseEnd > entry.startTime && entry.startTime > 0) {
    return entry.responseEnd - entry.startTime;
  }
  return clockMs;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Jitter: the mean of |D(i−1, i)| over consecutive samples (0 for fewer than two). */
export function jitterMs(samples: readonly number[]): number {
  if (samples.length < 2) return 0;
  let sum = 0;
  for (let i = 1; i < samples.length; i++) {
    sum += Math.abs((samples[i] as number) - (samples[i - 1] as number));
  }
  return sum / (samples.length - 1);
}

/** One round-trip request in the order sent: its milliseconds, or null when it was lost. */
export type RttAttempt = number | null;

export type RttSummary = {
  /** Samples counted (answered, the set-up request excluded). */
  samples: number;
  /** Requests that got no answer in time (the set-up request excluded). */
  lost: number;
  medianMs: number;
  jitterMs: number;
  minMs: number;
  maxMs: number;
};

/**
 * The round-trip figures of a run: the first request is discarded whatever it measured (it set
 * the connection up); lost requests are counted and left out, so jitter is taken over the answers
 * in the order they came. Null when fewer than `MIN_RTT_SAMPLES` answered.
 */
export function summariseRtt(attempts: readonly RttAttempt[]): RttSummary | null {
  const counted = attempts.slice(1);
  const samples = counted.filter((value): value is number => value !== null && Number.isFinite(value));
  if (samples.length < MIN_RTT_SAMPLES) return null;
  return {
    samples: samples.length,
    lost: counted.length - samples.length,
    medianMs: median(samples),
    jitterMs: jitterMs(samples),
    minMs: Math.min(...samples),
    maxMs: Math.max(...samples),
  };
}

/**
 * Whether a run that has made `attempts` so far can still end with `MIN_RTT_SAMPLES` answers:
 * once too many are lost it stops, rather than wait out the timeouts of the rest.
 */
export function rttRunCanSucceed(attempts: readonly RttAttempt[]): boolean {
  const lost = attempts.slice(1).filter((value) => value === null).length;
  return RTT_REQUESTS - 1 - lost >= MIN_RTT_SAMPLES;
}

/** One payload fetched for the download speed. */
export type Transfer = {
  /** What was asked for. */
  requestedBytes: number;
  /** What arrived. */
  bytes: number;
  /** From its first byte to its last (or to the cut-off). */
  ms: number;
  /** Cut off at `DOWNLOAD_TIMEOUT_MS`. */
  cutOff: boolean;
};

/** Fewer bytes than asked, and not because we stopped it: the endpoint does not serve sizes. */
function unsized(transfer: Transfer): boolean {
  return !transfer.cutOff && transfer.bytes < transfer.requestedBytes / 2;
}

/**
 * The next payload size to fetch after `done`, or null when the download measurement is over:
 * the last lasted long enough (or was cut off), the largest size is done, or the endpoint
 * answered a small body whatever was asked (AWS's DynamoDB ping does).
 */
export function nextDownloadBytes(done: readonly Transfer[]): number | null {
  const last = done.at(-1);
  if (!last) return DOWNLOAD_SIZES[0] ?? null;
  if (last.cutOff || unsized(last) || last.ms >= DOWNLOAD_LONG_ENOUGH_MS) return null;
  return DOWNLOAD_SIZES[done.length] ?? null;
}

/**
 * Megabits per second from the largest transfer (the one least shaped by TCP's slow start), or
 * null when none was sized (the endpoint does not serve payloads) or nothing was timed.
 */
export function throughputMbps(done: readonly Transfer[]): number | null {
  if (done.length === 0 || done.some(unsized)) return null;
  const largest = done.reduce((best, transfer) => (transfer.bytes > best.bytes ? transfer : best));
  if (largest.bytes <= 0 || largest.ms <= 0) return null;
  return (largest.bytes * 8) / (largest.ms * 1000);
}

// ---------------------------------------------------------------------------------------------
// What the figures mean, per use.

export const USES = ['gaming', 'editing', 'work'] as const;
export type Use = (typeof USES)[number];
export type Level = 'great' | 'ok' | 'poor';

/** What a level asks for: a round trip and jitter at most, a download speed at least. */
export type Limits = { rttMs: number; jitterMs: number; mbps: number };

/**
 * The thresholds, per use (docs/connection-check.md says why each):
 * - gaming, great: 35 ms and 5 ms (the figures) with what Moonlight streams 1080p at
 *   60 fps at by default (20 Mbps, core/domain/gaming.ts); ok: 60 ms, 10 ms and its 720p at
 *   60 fps (10 Mbps), where controller and slower games still play well.
 * - editing, great: 80 ms, 15 ms, 20 Mbps: scrubbing and dragging clips are pointer work that
 *   forgives more delay than a shooter, but the picture needs a 1080p60-class bitrate to show
 *   detail; ok: 120 ms, 25 ms, 10 Mbps.
 * - work and study, great: 100 ms (about the limit under which a reaction feels immediate),
 *   20 ms, 5 Mbps for a sharp desktop of text; ok: 200 ms, 40 ms, 2 Mbps.
 */
export const THRESHOLDS: Readonly<Record<Use, { great: Limits; ok: Limits }>> = {
  gaming: {
    great: { rttMs: 35, jitterMs: 5, mbps: RECOMMENDED_MODE.mbps },
    ok: { rttMs: 60, jitterMs: 10, mbps: MINIMUM_MODE.mbps },
  },
  editing: {
    great: { rttMs: 80, jitterMs: 15, mbps: 20 },
    ok: { rttMs: 120, jitterMs: 25, mbps: 10 },
  },
  work: {
    great: { rttMs: 100, jitterMs: 20, mbps: 5 },
    ok: { rttMs: 200, jitterMs: 40, mbps: 2 },
  },
};

export type Measured = {
  rttMs: number;
  jitterMs: number;
  /** Null when the endpoint could not measure it: the verdict then rests on the round trip and jitter. */
  mbps: number | null;
};

export type Shortfall = 'rtt' | 'jitter' | 'speed';

/** What the figures fall short of for `limits` (an unmeasured speed falls short of nothing). */
export function shortfalls(measured: Measured, limits: Limits): Shortfall[] {
  const found: Shortfall[] = [];
  if (measured.rttMs > limits.rttMs) found.push('rtt');
  if (measured.jitterMs > limits.jitterMs) found.push('jitter');
  if (measured.mbps !== null && measured.mbps < limits.mbps) found.push('speed');
  return found;
}

export const USE_LABELS: Readonly<Record<Use, string>> = {
  gaming: 'Gaming',
  editing: 'Video editing',
  work: 'Work and study',
};

const VERDICT_TEXT: Readonly<Record<Use, Record<Level, { title: string; text: string }>>> = {
  gaming: {
    great: {
      title: 'Great for gaming',
      text: 'Fast shooters and competitive games will feel close to a PC at your desk.',
    },
    ok: {
      title: 'Good for relaxed gaming',
      text: 'Story, strategy and controller games play well. You may feel the delay in fast shooters.',
    },
    poor: {
      title: 'Not great for gaming from here',
      text: 'Expect a delay you can feel, or stutter, in most games.',
    },
  },
  editing: {
    great: {
      title: 'Great for video editing',
      text: 'Scrubbing the timeline and previewing your cuts will feel smooth and sharp.',
    },
    ok: {
      title: 'Fine for video editing',
      text: 'Editing works. Previews may look softer, or lag a little while you scrub.',
    },
    poor: {
      title: 'Not great for video editing from here',
      text: 'Scrubbing and previews will lag or look blurry.',
    },
  },
  work: {
    great: {
      title: 'Great for work and study',
      text: 'Office apps, coding, browsing and online classes will feel responsive.',
    },
    ok: {
      title: 'Fine for work and study',
      text: 'Everything works. You may notice a small delay when you type or scroll.',
    },
    poor: {
      title: 'Slow for work and study from here',
      text: 'Typing and scrolling will lag behind you.',
    },
  },
};

export type Verdict = {
  use: Use;
  level: Level;
  title: string;
  text: string;
  /** What kept it from "great" (empty when great). */
  shortfalls: Shortfall[];
};

/** The verdict for one use: great when every great limit holds, ok when every ok limit holds, else poor. */
export function verdictFor(use: Use, measured: Measured): Verdict {
  const limits = THRESHOLDS[use];
  const missed = shortfalls(measured, limits.great);
  const level: Level =
    missed.length === 0 ? 'great' : shortfalls(measured, limits.ok).length === 0 ? 'ok' : 'poor';
  return { use, level, ...VERDICT_TEXT[use][level], shortfalls: missed };
}

export function verdicts(measured: Measured): Verdict[] {
  return USES.map((use) => verdictFor(use, measured));
}

/** What "great" asks of a line for `use`, in the page's words. */
export function greatNeeds(use: Use): string {
  const { rttMs, jitterMs, mbps } = THRESHOLDS[use].great;
  return `Great needs a round trip up to ${rttMs} ms, jitter up to ${jitterMs} ms and ${mbps} Mbps.`;
}

// ---------------------------------------------------------------------------------------------
// Advice when it falls short, and the region's name.

/** AWS regions by the city customers know them by (ours run in one; this names it). */
const REGION_CITIES: Readonly<Record<string, string>> = {
  'ap-south-1': 'Mumbai',
  'ap-south-2': 'Hyderabad',
  'ap-southeast-1': 'Singapore',
  'ap-southeast-3': 'Jakarta',
  'ap-east-1': 'Hong Kong',
  'ap-northeast-1': 'Tokyo',
  'me-central-1': 'the UAE',
  'me-south-1': 'Bahrain',
  'eu-central-1': 'Frankfurt',
  'eu-west-1': 'Ireland',
  'eu-west-2': 'London',
  'us-east-1': 'N. Virginia',
  'us-west-2': 'Oregon',
};

/** "Mumbai (ap-south-1)", or the code alone for a region not in the list. */
export function regionLabel(region: string): string {
  const city = REGION_CITIES[region];
  return city ? `${city} (${region})` : region;
}

/**
 * What to try when the figures fall short of great gaming (the strictest use): one line per
 * kind of shortfall, in the order that helps most. Empty when nothing falls short.
 */
export function adviceFor(measured: Measured, region: string): string[] {
  const missed = shortfalls(measured, THRESHOLDS.gaming.great);
  const advice: string[] = [];
  if (missed.includes('jitter')) {
    advice.push(
      'Use a network cable, or 5 GHz Wi-Fi close to your router. Uneven delay (jitter) nearly always comes from Wi-Fi, and it is what makes a stream stutter.',
    );
  }
  if (missed.includes('rtt')) {
    advice.push(
      `Our PCs run in ${regionLabel(region)}, the nearest region we offer, so every click travels there and back. A cable or 5 GHz Wi-Fi takes a few milliseconds off, and so does pausing downloads and video calls on your network.`,
    );
  }
  if (missed.includes('speed') && measured.mbps !== null) {
    // Only a quality the measured speed carries is ever suggested.
    const best = bestModeFor(measured.mbps);
    advice.push(
      best
        ? `Pause downloads, updates and video streaming on your network while you play. If the speed stays low, stream at ${spoken(best)} in Moonlight: it needs about ${best.mbps} Mbps.`
        : `Pause downloads, updates and video streaming on your network while you play. Moonlight needs at least ${MINIMUM_MODE.mbps} Mbps (${spoken(MINIMUM_MODE)}), more than this line carried: try another connection.`,
    );
  }
  if (advice.length > 0) {
    advice.push('Then run the check again, ideally at the time of day you plan to play or work.');
  }
  return advice;
}

/**
 * The best Moonlight quality the measured speed carries, for the page to say (null: the speed was
 * not measured). `mode` null: not even the lightest.
 */
export function streamQualityFor(mbps: number | null): { mode: StreamMode | null; text: string } | null {
  if (mbps === null) return null;
  const mode = bestModeFor(mbps);
  return mode
    ? { mode, text: `This line carries Moonlight at up to ${spoken(mode)} (about ${mode.mbps} Mbps).` }
    : {
        mode: null,
        text: `This line carries less than the ${MINIMUM_MODE.mbps} Mbps Moonlight needs for ${spoken(MINIMUM_MODE)}.`,
      };
}

// ---------------------------------------------------------------------------------------------
// Figures as the page shows them.

export function formatMs(ms: number): string {
  return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

export function formatMbps(mbps: number | null): string {
  if (mbps === null) return 'Not measured';
  if (mbps >= 1000) return `${(mbps / 1000).toFixed(1)} Gbps`;
  return `${mbps < 10 ? mbps.toFixed(1) : Math.round(mbps)} Mbps`;
}

export const CONNECTION_CHECK_MESSAGES = {
  unreachable:
    'We could not reach our region from your browser. Check that you are online (and that no ad blocker or firewall stops the check), then run it again.',
  tooFewAnswers: (answered: number) =>
    `Only ${answered} of ${RTT_REQUESTS - 1} test requests came back, too few to judge. Your connection may be dropping: run the check again, ideally on a cable or 5 GHz Wi-Fi.`,
  speedNotMeasured:
    'Download speed is not measured against this endpoint, so the verdicts rest on the round trip and jitter.',
  siteUnavailable: 'The check could not load its settings. Please reload the page.',
} as const;
