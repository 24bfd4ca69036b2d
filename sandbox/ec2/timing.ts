/**
 * How long the simulated machines take, as [min, max] milliseconds sampled per transition.
 * `fast` keeps tests and the demo in seconds; `aws` follows what AWS documents and what we
 * measured (a Windows launch until the password is ready about 4–6 minutes, a start from
 * stopped 40–90 s, a stop 30–60 s).
 */

export type Range = readonly [number, number];

export type Timings = {
  /** pending → running after RunInstances. */
  launch: Range;
  /** Running time after the first boot until GetPasswordData has data (Windows sysprep). */
  password: Range;
  /** pending → running after StartInstances. */
  start: Range;
  /** stopping → stopped. */
  stop: Range;
  /** shutting-down → terminated. */
  terminate: Range;
  /** A snapshot of a root volume: pending → completed. */
  snapshot: Range;
};

export type ProfileName = 'fast' | 'aws';

export const PROFILES: Record<ProfileName, Timings> = {
  fast: {
    launch: [1_000, 2_000],
    password: [2_000, 3_000],
    start: [1_000, 2_000],
    stop: [800, 1_200],
    terminate: [800, 1_200],
    snapshot: [1_000, 2_000],
  },
  aws: {
    // 20–40 s pending plus 220–320 s of first boot: 4–6 minutes from launch to password.
    launch: [20_000, 40_000],
    password: [220_000, 320_000],
    start: [40_000, 90_000],
    stop: [30_000, 60_000],
    terminate: [30_000, 60_000],
    // A first, full snapshot of a used Windows volume: minutes, growing with the data written.
    snapshot: [300_000, 1_200_000],
  },
};

export function sample(range: Range, random: () => number): number {
  const [min, max] = range;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(min + (max - min) * r);
}
