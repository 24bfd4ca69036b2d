/**
 * Plausible utilisation of a simulated machine, made up deterministically from its instance
 * id and the time: the same question always gets the same answer (CloudWatch's points do not
 * change once recorded), different machines look different, and nothing needs storing.
 */

/** FNV-1a: a small, stable string hash. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A number in [0, 1) for (key, step). */
function noise(key: string, step: number): number {
  let t = (hash(key) ^ Math.imul(step | 0, 0x9e3779b1)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Smoothly varying noise: a blend of the two neighbouring minutes' values. */
function smooth(key: string, atMs: number): number {
  const minute = atMs / 60_000;
  const step = Math.floor(minute);
  const f = minute - step;
  const w = f * f * (3 - 2 * f);
  return noise(key, step) * (1 - w) + noise(key, step + 1) * w;
}

export type SeriesKind = 'cpu' | 'gpu';

/**
 * Percent utilisation (0–100, one decimal) of `instanceId` at `atMs`. Each machine has its own
 * workload level (an office user idles at 10 %, a gamer's GPU runs at 70 %), a slow swing over
 * the session and minute-to-minute jitter. GPU load follows CPU load loosely, as in games and
 * renders.
 */
export function utilisation(kind: SeriesKind, instanceId: string, atMs: number): number {
  const level = 8 + noise(`${instanceId}:level`, 0) * 55;
  const swing = Math.sin((atMs / 3_600_000) * Math.PI * 2 * (0.5 + noise(`${instanceId}:period`, 0))) * 12;
  const jitter = (smooth(`${instanceId}:${kind}`, atMs) - 0.5) * 18;
  const gpuBoost = kind === 'gpu' ? 10 + noise(`${instanceId}:gpu`, 0) * 20 : 0;
  const value = level + swing + jitter + gpuBoost;
  return Math.round(Math.min(100, Math.max(0, value)) * 10) / 10;
}
