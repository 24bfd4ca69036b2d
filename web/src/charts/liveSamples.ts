import { LIVE_CHART_POINTS } from '../../../core/domain/constants.ts';

/** One point of the live session chart, taken every second while the machine runs. */
export type LiveSample = {
  /** Epoch seconds (uPlot's time unit). */
  t: number;
  /** Seconds of the running session so far. */
  sessionSeconds: number;
  /** The newest CPU sample CloudWatch has for the machine (percent), or null. */
  cpu: number | null;
  /** Likewise the GPU (our Windows poller's metric), or null. */
  gpu: number | null;
};

/** The list with `sample` added, keeping the newest `max` (spec §9: the live chart shows 60). */
export function appendLiveSample(
  samples: readonly LiveSample[],
  sample: LiveSample,
  max: number = LIVE_CHART_POINTS,
): LiveSample[] {
  const next = [...samples, sample];
  return next.length > max ? next.slice(next.length - max) : next;
}

/** The session's running seconds at `nowMs`: whole seconds since the machine last started. */
export function sessionSeconds(lastStateChange: string | null, nowMs: number): number {
  const since = lastStateChange ? Date.parse(lastStateChange) : Number.NaN;
  if (!Number.isFinite(since)) return 0;
  return Math.max(0, Math.floor((nowMs - since) / 1000));
}

/** The newest value of a sample series, or null when there is none. */
export function latestValue(series: ReadonlyArray<{ value: number }>): number | null {
  const last = series[series.length - 1];
  return last ? last.value : null;
}
