/**
 * SIMULATION, not a measurement and not a site claim: the hours a month of typical use saves
 * with idle auto-stop, running the real rule (core/domain/idle.ts) minute by minute over
 * made-up CloudWatch series. Baseline in the same run: the same month with auto-stop off.
 *
 * Assumptions (a deterministic pseudo-random month, seed fixed):
 * - 30 days, one sitting a day of 1–4 h connected (sessions 1, CPU/GPU busy).
 * - After 35 % of sittings a render runs 1–3 h with nobody connected (GPU 90 %), then idles.
 * - After 40 % of sittings the customer forgets to press STOP; a forgotten machine idles until
 *   they notice, 2–10 h later (CPU 3 %, GPU 0 %, 2 kB/s out). Otherwise they STOP at once.
 * - Metrics arrive every minute; 1 % of minutes have a missing point (never stops a machine).
 *
 * Run: node scripts/bench/idleSim.ts
 */
import { idleDecision, withNotice, type IdlePeriod, type IdleStopMinutes } from '../../core/domain/idle.ts';

const MIN = 60_000;
let seed = 17;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
const between = (a: number, b: number) => a + random() * (b - a);

type Day = { connected: number; render: number; forgottenIdle: number };
const days: Day[] = [];
for (let d = 0; d < 30; d++) {
  days.push({
    connected: Math.round(between(60, 240)),
    render: random() < 0.35 ? Math.round(between(60, 180)) : 0,
    forgottenIdle: random() < 0.4 ? Math.round(between(120, 600)) : 0,
  });
}

function simulate(minutes: IdleStopMinutes | null) {
  let billed = 0;
  let renderMinutesLost = 0;
  let stops = 0;
  for (const day of days) {
    const length = day.connected + day.render + day.forgottenIdle;
    const periods: IdlePeriod[] = [];
    let warnedAt: number | null = null;
    let ran = 0;
    for (let m = 0; m < length; m++) {
      const at = m * MIN;
      const connected = m < day.connected;
      const rendering = !connected && m < day.connected + day.render;
      const missing = random() < 0.01;
      periods.push({
        at,
        cpu: missing ? undefined : connected ? 35 : rendering ? 40 : 3,
        gpu: connected ? 30 : rendering ? 90 : 0,
        sessions: connected ? 1 : 0,
        networkOutBytes: connected ? 60 * 400_000 : 60 * 2_000,
      });
      ran = m + 1;
      const now = at + MIN;
      const decision = withNotice(
        idleDecision({ minutes, periodSeconds: 60, periods, runningSince: 0, keptAt: null, now }),
        warnedAt,
        now,
      );
      if (decision.kind === 'warn' && warnedAt === null) warnedAt = now;
      if (decision.kind === 'keep' && decision.reason === 'busy') warnedAt = null;
      if (decision.kind === 'stop') {
        stops += 1;
        if (rendering) renderMinutesLost += day.connected + day.render - ran;
        break;
      }
    }
    billed += ran;
  }
  return { hours: billed / 60, renderMinutesLost, stops };
}

const baseline = simulate(null);
console.log('SIMULATION (assumptions in scripts/bench/idleSim.ts), 30 days of made-up typical use');
console.log(`  auto-stop off (baseline): ${baseline.hours.toFixed(1)} h billed`);
for (const minutes of [15, 30, 60] as const) {
  const run = simulate(minutes);
  const saved = baseline.hours - run.hours;
  console.log(
    `  auto-stop ${minutes} min: ${run.hours.toFixed(1)} h billed, ${saved.toFixed(1)} h saved ` +
      `(${((saved / baseline.hours) * 100).toFixed(0)} % of baseline, ratio ${(run.hours / baseline.hours).toFixed(2)}), ` +
      `${run.stops} auto-stops, render minutes cut short: ${run.renderMinutesLost}`,
  );
}
