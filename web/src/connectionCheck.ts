/**
 * The connection check's measurements in the browser: it fetches the regional endpoint the
 * server names and hands what the browser timed to core/domain/connectionCheck.ts, which
 * decides what the figures are and what they mean.
 *
 * Every request is unique (a `n` query) and sent with `cache: 'no-store'`, so no cache ever
 * answers; without credentials or a referrer, so the endpoint learns nothing about the visitor
 * but the address it sees anyway.
 */
import {
  DOWNLOAD_SIZES,
  DOWNLOAD_TIMEOUT_MS,
  nextDownloadBytes,
  RTT_REQUESTS,
  RTT_TIMEOUT_MS,
  rttRunCanSucceed,
  rttSampleMs,
  summariseRtt,
  throughputMbps,
  type RttAttempt,
  type RttSummary,
  type Transfer,
} from '../../core/domain/connectionCheck.ts';

export type CheckProgress =
  | { phase: 'rtt'; done: number; total: number }
  /** Payload `step` of at most `steps` (the measurement may stop sooner). */
  | { phase: 'download'; bytes: number; payloadBytes: number; step: number; steps: number };

export type CheckResult = {
  rtt: RttSummary;
  /** Null when not measured: `speedProblem` says why. */
  mbps: number | null;
  speedProblem: 'unsized' | 'failed' | null;
};

/** The check could not reach the endpoint, or too few answers came back to judge. */
export class CheckFailed extends Error {
  readonly answered: number;
  constructor(answered: number) {
    super(answered === 0 ? 'unreachable' : 'too few answers');
    this.name = 'CheckFailed';
    this.answered = answered;
  }
}

const REQUEST: RequestInit = {
  cache: 'no-store',
  mode: 'cors',
  credentials: 'omit',
  referrerPolicy: 'no-referrer',
};

let counter = 0;

function uniqueUrl(base: string, extra: Record<string, string> = {}): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  counter += 1;
  url.searchParams.set('n', `${Date.now().toString(36)}-${counter}`);
  return url.toString();
}

function within(signal: AbortSignal, ms: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(ms)]);
}

/** The browser's Resource Timing entry for `url`, once it has been recorded. */
async function resourceEntry(url: string): Promise<PerformanceResourceTiming | undefined> {
  // Entries are added when the response completes, which may be a task after the body resolved.
  for (let attempt = 0; attempt < 3; attempt++) {
    const entry = performance.getEntriesByName(url, 'resource').at(-1);
    if (entry) return entry as PerformanceResourceTiming;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return undefined;
}

/** One small request: its round trip in milliseconds, or null when it got no good answer in time. */
async function roundTrip(pingUrl: string, signal: AbortSignal): Promise<RttAttempt> {
  const url = uniqueUrl(pingUrl);
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(url, { ...REQUEST, signal: within(signal, RTT_TIMEOUT_MS) });
    await response.arrayBuffer();
  } catch (error) {
    if (signal.aborted) throw error;
    // Lost (offline, blocked, timed out): counted as such by the summary, not a figure.
    return null;
  }
  const clockMs = performance.now() - started;
  if (!response.ok) return null;
  return rttSampleMs(await resourceEntry(url), clockMs);
}

/** One payload: bytes from its first byte to its last, cut off after `DOWNLOAD_TIMEOUT_MS`. */
async function download(
  pingUrl: string,
  size: number,
  signal: AbortSignal,
  onBytes: (bytes: number) => void,
): Promise<Transfer> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), DOWNLOAD_TIMEOUT_MS);
  const both = AbortSignal.any([signal, stop.signal]);
  try {
    const response = await fetch(uniqueUrl(pingUrl, { bytes: String(size) }), { ...REQUEST, signal: both });
    // An endpoint that refuses sizes answers an error: it does not serve payloads.
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return { requestedBytes: size, bytes: 0, ms: 0, cutOff: false };
    }
    const firstByte = performance.now();
    let lastByte = firstByte;
    let bytes = 0;
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        lastByte = performance.now();
        onBytes(bytes);
      }
    } catch (error) {
      if (!stop.signal.aborted || signal.aborted) throw error;
      return { requestedBytes: size, bytes, ms: lastByte - firstByte, cutOff: true };
    }
    return { requestedBytes: size, bytes, ms: lastByte - firstByte, cutOff: false };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the whole check: the round trips, then the payloads. Throws `CheckFailed` when too few
 * round trips came back to judge; an AbortError when `signal` stops it (the visitor left).
 */
export async function runConnectionCheck(
  pingUrl: string,
  options: { signal: AbortSignal; onProgress: (progress: CheckProgress) => void },
): Promise<CheckResult> {
  const { signal, onProgress } = options;
  // Our entries must not be dropped by a buffer full of the page's own (250 by default).
  performance.clearResourceTimings();
  const attempts: RttAttempt[] = [];
  onProgress({ phase: 'rtt', done: 0, total: RTT_REQUESTS });
  for (let i = 0; i < RTT_REQUESTS && rttRunCanSucceed(attempts); i++) {
    attempts.push(await roundTrip(pingUrl, signal));
    onProgress({ phase: 'rtt', done: i + 1, total: RTT_REQUESTS });
  }
  const rtt = summariseRtt(attempts);
  if (!rtt) throw new CheckFailed(attempts.slice(1).filter((a) => a !== null).length);

  const transfers: Transfer[] = [];
  let speedProblem: CheckResult['speedProblem'] = null;
  for (let size = nextDownloadBytes(transfers); size !== null; size = nextDownloadBytes(transfers)) {
    const at = {
      phase: 'download',
      payloadBytes: size,
      step: transfers.length,
      steps: DOWNLOAD_SIZES.length,
    };
    onProgress({ ...at, phase: 'download', bytes: 0 });
    try {
      transfers.push(
        await download(pingUrl, size, signal, (bytes) => onProgress({ ...at, phase: 'download', bytes })),
      );
    } catch (error) {
      if (signal.aborted) throw error;
      // The round trips got through, so the line works: the speed alone is unknown this time.
      console.warn('connection check: a download failed', error);
      speedProblem = 'failed';
      break;
    }
  }
  const mbps = speedProblem ? null : throughputMbps(transfers);
  if (mbps === null && !speedProblem) speedProblem = 'unsized';
  return { rtt, mbps, speedProblem };
}
