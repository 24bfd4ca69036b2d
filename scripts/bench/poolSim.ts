/**
 * SIMULATION, not a measurement: a month of purchases replayed, on a simulated clock, against
 * the real pool rules (core/domain/pool.ts: `decidePoolTopUp`, which `pool-replenish` runs, and
 * `chooseSpare`, the order `claimPoolInstance` claims in) and the sandbox EC2's `aws` timing
 * model (sandbox/ec2/timing.ts). For each WARM_POOL_SIZE / POOL_HOT setting it reports paid →
 * connectable p50/p95 and what the spares cost while they wait. `npm run bench -- pool-sim`;
 * POOL_SIM_SEED picks another (reproducible) month.
 *
 * Demand: no sales data exists yet, so the rates below are assumptions, stated here with why.
 * Only purchases that need a new machine are simulated: a renewal keeps the customer's machine
 * and never touches the pool. Session lengths do not matter here: once claimed, a machine is
 * the customer's for the plan's month, and the pool never sees it again.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { getPlan, type PlanId } from '../../core/domain/plans.ts';
import { chooseSpare, decidePoolTopUp, type SpareFacts } from '../../core/domain/pool.ts';
import { DAY_MS, HOUR_MS } from '../../core/domain/time.ts';
import { PROFILES, sample, type Timings } from '../../sandbox/ec2/timing.ts';
import { heading, percentile, record } from './lib.ts';

const MINUTE_MS = 60_000;

/**
 * Arrivals of purchases needing a new machine: an inhomogeneous Poisson process, rate =
 * base rate of the plan × the hour's multiplier (India time) × the weekend multiplier.
 */
export const DEMAND = {
  /**
   * Per hour on a weekday outside the peak and the night. With the multipliers below this is
   * about 12 LEGEND, 4.8 PRO LEGEND and 2.4 ULTRA LEGEND new machines a day (~580 a month): a
   * young service's scale. Ordered by price: the cheapest card plan sells most. The editor plans
   * are left out: price-table only, rarely bought, and WARM_POOL_SIZE / POOL_HOT default to 0
   * for them.
   */
  baseRatePerHour: { legend: 0.4, 'pro-legend': 0.16, 'ultra-legend': 0.08 } as Record<string, number>,
  /** The Indian evening, after work and school, when people game: three times the base. */
  peak: { fromHour: 19, toHour: 23, multiplier: 3 },
  /** Nobody much buys a gaming PC at 3 a.m.: a fifth of the base, 01:00–08:00. */
  night: { fromHour: 1, toHour: 8, multiplier: 0.2 },
  /** Saturday and Sunday: half as many again (free time), every hour. */
  weekendMultiplier: 1.5,
};
export type Demand = typeof DEMAND;

/**
 * What our own worker adds to EC2's times (production's settings): a job is picked up within
 * pg-boss's 2 s polling (uniform); a machine in transition is re-checked every VM_POLL_SECONDS
 * (10 s), and is connectable at the first re-check after EC2 has it ready (tags, password and
 * Remote Desktop check done then). Spares are topped up by the five-minute cron and after every
 * claim. The first look at a machine is one re-check after its job, as in the time-to-desktop
 * bench: on the hot path that gives its measured ~12 s (the claim job itself may finish the
 * machine sooner; 12 s is the conservative reading).
 */
export const WORKER = { pickupMaxMs: 2_000, pollMs: 10_000, replenishEveryMs: 5 * MINUTE_MS };
export type Worker = typeof WORKER;

/**
 * On-demand prices, ap-south-1, Windows, as the README gives them (a third-party mirror of AWS's
 * list prices, not verified: re-check before quoting). The disk of a stopped spare: gp3 at an
 * assumed US$0.09 per GB-month (not verified). Rupees at ₹88 to the dollar, the rate the
 * README's "₹1,600–2,900 a day per spare" implies.
 */
export const PRICES = {
  usdPerHour: { legend: 0.76, 'pro-legend': 1.2, 'ultra-legend': 1.39 } as Record<string, number>,
  diskUsdPerGbMonth: 0.09,
  hoursPerMonth: 730,
  rupeesPerUsd: 88,
};

/** A reproducible stream of uniform numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  const generator = xoroshiro128plus(seed);
  return () => uniformFloat64(generator);
}

/** Simulated time 0 is a Monday, 00:00 India time; ms since then. */
export function demandMultiplier(demand: Demand, atMs: number): number {
  const day = Math.floor(atMs / DAY_MS);
  const weekday = ((day % 7) + 7) % 7; // 0 = Monday
  const hour = Math.floor((atMs - day * DAY_MS) / HOUR_MS);
  const inHours = (range: { fromHour: number; toHour: number }) =>
    hour >= range.fromHour && hour < range.toHour;
  const hourly = inHours(demand.peak)
    ? demand.peak.multiplier
    : inHours(demand.night)
      ? demand.night.multiplier
      : 1;
  return hourly * (weekday >= 5 ? demand.weekendMultiplier : 1);
}

export type Arrival = { atMs: number; planId: PlanId };

/**
 * Purchases in [fromMs, toMs), by thinning (Lewis and Shedler): candidates at the highest rate,
 * each kept with probability rate(t) ÷ highest rate.
 */
export function generateArrivals(
  demand: Demand,
  fromMs: number,
  toMs: number,
  random: () => number,
): Arrival[] {
  const highest = Math.max(demand.peak.multiplier, demand.night.multiplier, 1) * demand.weekendMultiplier;
  const out: Arrival[] = [];
  for (const [planId, base] of Object.entries(demand.baseRatePerHour)) {
    const maxPerMs = (base * highest) / HOUR_MS;
    if (maxPerMs <= 0) continue;
    for (let t = fromMs; ;) {
      t += -Math.log(1 - random()) / maxPerMs;
      if (t >= toMs) break;
      if (random() * highest < demandMultiplier(demand, t)) out.push({ atMs: t, planId: planId as PlanId });
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** The pool settings per plan, as WARM_POOL_SIZE and POOL_HOT give them. */
export type PoolSetting = { warm: Record<string, number>; hot: Record<string, number> };

export type Path = 'hot' | 'warm' | 'cold';

/** Our worker's waits: a job's pickup, and re-checks one VM_POLL_SECONDS apart. */
export function workerClock(random: () => number, worker: Worker = WORKER) {
  const pickup = () => random() * worker.pickupMaxMs;
  return {
    pickup,
    /** The first re-check after `fromMs` (at least one) that finds EC2 done, done at `readyMs`. */
    seenAt(fromMs: number, readyMs: number): number {
      let t = fromMs;
      do t += worker.pollMs + pickup();
      while (t < readyMs);
      return t;
    },
  };
}

/**
 * When a machine whose vm-provision job ran at `provisionMs` is connectable: at once for a hot
 * spare (our tags and Remote Desktop check, seen at the first re-check), after a start for a warm
 * one, after a launch and Windows' first boot for a cold one.
 */
export function connectableAt(
  path: Path,
  provisionMs: number,
  random: () => number,
  timings: Timings = PROFILES.aws,
  worker: Worker = WORKER,
): number {
  const ec2Ms =
    path === 'hot'
      ? 0
      : path === 'warm'
        ? sample(timings.start, random)
        : sample(timings.launch, random) + sample(timings.password, random);
  return workerClock(random, worker).seenAt(provisionMs, provisionMs + ec2Ms);
}

type Spare = SpareFacts & {
  launchedAtMs: number;
  /** When EC2 stopped it (a warm spare after its first boot): its hourly price ends there. */
  stoppedAtMs: number | null;
};

type Event =
  | { atMs: number; seq: number; kind: 'purchase'; planId: PlanId }
  | { atMs: number; seq: number; kind: 'provision'; planId: PlanId; paidAtMs: number }
  | { atMs: number; seq: number; kind: 'replenish' }
  | { atMs: number; seq: number; kind: 'ready'; spare: Spare }
  | { atMs: number; seq: number; kind: 'first-boot'; spare: Spare };

/** A binary min-heap of events by time, then by the order they were scheduled. */
class EventQueue {
  private items: Event[] = [];
  private seq = 0;
  push(event: DistributiveOmit<Event, 'seq'>): void {
    const item = { ...event, seq: this.seq++ } as Event;
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }
  pop(): Event | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
const before = (a: Event, b: Event) => a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);

export type PlanResult = {
  purchases: number;
  served: Record<Path, number>;
  connectMs: number[];
  /** Hours spares of this plan ran unclaimed (first boots, stops, hot spares waiting). */
  runningHours: number;
  /** Hours warm spares of this plan waited stopped. */
  stoppedHours: number;
  idleRupees: number;
};

export type SimResult = PlanResult & { byPlan: Record<string, PlanResult> };

export type SimInput = {
  arrivals: readonly Arrival[];
  setting: PoolSetting;
  /** What is counted: purchases paid, and spare time, within [fromMs, toMs). Before: warm-up. */
  fromMs: number;
  toMs: number;
  /** Where the simulation starts (the pool empty, as after a deploy); at most fromMs. */
  startMs: number;
  random: () => number;
  timings?: Timings;
  worker?: Worker;
};

function emptyResult(): PlanResult {
  return {
    purchases: 0,
    served: { hot: 0, warm: 0, cold: 0 },
    connectMs: [],
    runningHours: 0,
    stoppedHours: 0,
    idleRupees: 0,
  };
}

/** One run of the pool over the arrivals: every decision is production's. */
export function simulatePool(input: SimInput): SimResult {
  const timings = input.timings ?? PROFILES.aws;
  const worker = input.worker ?? WORKER;
  const { random, setting, fromMs, toMs } = input;
  const { pickup, seenAt } = workerClock(random, worker);
  const overlapHours = (a: number, b: number) =>
    Math.max(0, Math.min(b, toMs) - Math.max(a, fromMs)) / HOUR_MS;

  const planIds = [...new Set([...Object.keys(setting.warm), ...Object.keys(setting.hot)])];
  const results: Record<string, PlanResult> = {};
  const resultOf = (planId: string) => (results[planId] ??= emptyResult());
  const spares = new Map<string, Spare[]>();
  /** Claim times per plan, oldest first; those past the hour the rule looks at are dropped. */
  const claims = new Map<string, number[]>();
  const claimsOf = (planId: string) => claims.get(planId) ?? claims.set(planId, []).get(planId)!;
  let spareNo = 0;
  const queue = new EventQueue();

  for (const arrival of input.arrivals) {
    if (arrival.atMs >= input.startMs && arrival.atMs < toMs)
      queue.push({ atMs: arrival.atMs, kind: 'purchase', planId: arrival.planId });
  }
  for (let t = input.startMs; t < toMs; t += worker.replenishEveryMs)
    queue.push({ atMs: t + pickup(), kind: 'replenish' });

  /** A spare's cost from its launch until `endMs` (claimed, or the end of the run). */
  const chargeSpare = (spare: Spare, endMs: number) => {
    const result = resultOf(spare.planId);
    const running = overlapHours(spare.launchedAtMs, spare.stoppedAtMs ?? endMs);
    const stopped = spare.stoppedAtMs === null ? 0 : overlapHours(spare.stoppedAtMs, endMs);
    result.runningHours += running;
    result.stoppedHours += stopped;
    const plan = getPlan(spare.planId as PlanId);
    const diskUsdPerHour = (plan.storageGb * PRICES.diskUsdPerGbMonth) / PRICES.hoursPerMonth;
    result.idleRupees +=
      (running * (PRICES.usdPerHour[spare.planId] ?? 0) + stopped * diskUsdPerHour) * PRICES.rupeesPerUsd;
  };

  const replenish = (nowMs: number) => {
    for (const planId of planIds) {
      const warmSize = setting.warm[planId] ?? 0;
      const hotMax = setting.hot[planId] ?? 0;
      if (!warmSize && !hotMax) continue;
      const mine = spares.get(planId) ?? [];
      const recent = claimsOf(planId);
      while (recent.length > 0 && recent[0]! < nowMs - HOUR_MS) recent.shift();
      const topUp = decidePoolTopUp({
        warmSize,
        hotMax,
        claimsLastHour: recent.length,
        // The capacity limit is assumed not to bind (CAPACITY_LIMITS set to the account's quota).
        capacityRoom: Number.POSITIVE_INFINITY,
        warmFilling: mine.filter((s) => !s.hot).length,
        hotFilling: mine.filter((s) => s.hot).length,
      });
      const plan = getPlan(planId as PlanId);
      for (const hot of [
        ...Array<boolean>(topUp.warm).fill(false),
        ...Array<boolean>(topUp.hot).fill(true),
      ]) {
        const spare: Spare = {
          id: `spare-${String(spareNo++).padStart(8, '0')}`,
          planId,
          instanceType: plan.instanceType,
          storageGb: plan.storageGb,
          state: 'launching',
          hot,
          readyAt: null,
          launchedAtMs: nowMs,
          stoppedAtMs: null,
        };
        mine.push(spare);
        const bootedMs = nowMs + sample(timings.launch, random) + sample(timings.password, random);
        queue.push({ atMs: seenAt(nowMs, bootedMs), kind: 'first-boot', spare });
      }
      spares.set(planId, mine);
    }
  };

  for (let event = queue.pop(); event; event = queue.pop()) {
    const now = event.atMs;
    switch (event.kind) {
      case 'purchase':
        queue.push({ atMs: now + pickup(), kind: 'provision', planId: event.planId, paidAtMs: now });
        break;
      case 'replenish':
        replenish(now);
        break;
      case 'first-boot': {
        const spare = event.spare;
        if (spare.hot) {
          spare.state = 'ready';
          spare.readyAt = now;
        } else {
          // The stop is sent at this check; the spare is ready once a re-check sees it stopped.
          spare.state = 'stopping';
          spare.stoppedAtMs = now + sample(timings.stop, random);
          queue.push({ atMs: seenAt(now, spare.stoppedAtMs), kind: 'ready', spare });
        }
        break;
      }
      case 'ready':
        event.spare.state = 'ready';
        event.spare.readyAt = now;
        break;
      case 'provision': {
        const plan = getPlan(event.planId);
        const mine = spares.get(plan.id) ?? [];
        const choice = chooseSpare(
          { planId: plan.id, instanceType: plan.instanceType, storageGb: plan.storageGb, restoring: false },
          mine,
        );
        const path: Path = choice.kind === 'launch' ? 'cold' : choice.kind;
        if (choice.kind !== 'launch') {
          spares.set(
            plan.id,
            mine.filter((s) => s !== choice.spare),
          );
          chargeSpare(choice.spare, now);
          claimsOf(plan.id).push(now);
          // The claim enqueues a top-up in the same transaction.
          queue.push({ atMs: now + pickup(), kind: 'replenish' });
        }
        const connectedMs = connectableAt(path, now, random, timings, worker);
        if (event.paidAtMs >= fromMs && event.paidAtMs < toMs) {
          const result = resultOf(plan.id);
          result.purchases += 1;
          result.served[path] += 1;
          result.connectMs.push(connectedMs - event.paidAtMs);
        }
        break;
      }
    }
  }
  for (const mine of spares.values()) for (const spare of mine) chargeSpare(spare, toMs);

  const total = emptyResult();
  for (const result of Object.values(results)) {
    total.purchases += result.purchases;
    for (const path of ['hot', 'warm', 'cold'] as const) total.served[path] += result.served[path];
    total.connectMs.push(...result.connectMs);
    total.runningHours += result.runningHours;
    total.stoppedHours += result.stoppedHours;
    total.idleRupees += result.idleRupees;
  }
  return { ...total, byPlan: results };
}

const PLANS_SIMULATED = Object.keys(DEMAND.baseRatePerHour);
const everyPlan = (n: number) => Object.fromEntries(PLANS_SIMULATED.map((id) => [id, n]));
const MONTH_MS = 30 * DAY_MS;
const WEEK_HOURS = 7 * 24;
/** A day before the month, starting with no spares (as after a deploy), is not counted. */
const WARM_UP_MS = DAY_MS;

/** The demand with every plan's rate multiplied by `factor`. */
export function scaledDemand(demand: Demand, factor: number): Demand {
  const rates = Object.entries(demand.baseRatePerHour).map(([id, rate]) => [id, rate * factor]);
  return { ...demand, baseRatePerHour: Object.fromEntries(rates) };
}

/** Purchases a week brings, all plans: the integral of the rate. */
export function purchasesPerWeek(demand: Demand): number {
  let perWeek = 0;
  for (let hour = 0; hour < WEEK_HOURS; hour++)
    for (const rate of Object.values(demand.baseRatePerHour))
      perWeek += rate * demandMultiplier(demand, hour * HOUR_MS);
  return perWeek;
}

/**
 * The least running spare-hours per purchase any controller can spend so that `share` of
 * purchases find a hot spare, when it knows the hourly rates but not when each purchase comes
 * (a Poisson purchase sees a spare with the probability one is there at that moment). Best
 * case: one spare per plan in the busiest plan-hours until they hold `share` of the purchases.
 */
export function hotCoverageLowerBound(demand: Demand, share: number): number {
  const cells: number[] = [];
  for (let hour = 0; hour < WEEK_HOURS; hour++)
    for (const rate of Object.values(demand.baseRatePerHour))
      cells.push(rate * demandMultiplier(demand, hour * HOUR_MS));
  cells.sort((a, b) => b - a);
  const total = cells.reduce((sum, rate) => sum + rate, 0);
  let covered = 0;
  let hours = 0;
  for (const rate of cells) {
    if (covered >= share * total) break;
    covered += rate;
    hours += 1;
  }
  return hours / total;
}

export type Row = { label: string; result: SimResult };

/** One month, same purchases and same timing draws for every setting (common random numbers). */
export function runSettings(
  settings: Array<{ label: string; setting: PoolSetting }>,
  options: { seed: number; demand?: Demand },
): Row[] {
  const arrivals = generateArrivals(
    options.demand ?? DEMAND,
    -WARM_UP_MS,
    MONTH_MS,
    seededRandom(options.seed),
  );
  return settings.map(({ label, setting }) => ({
    label,
    result: simulatePool({
      arrivals,
      setting,
      startMs: -WARM_UP_MS,
      fromMs: 0,
      toMs: MONTH_MS,
      random: seededRandom(options.seed + 1),
    }),
  }));
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
const pct = (n: number, of: number) => `${Math.round((100 * n) / Math.max(1, of))}`;

function printTable(rows: Row[]): void {
  const header = [
    'setting',
    'purchases',
    'hot/warm/cold %',
    'p50',
    'p95',
    'running spare-h/purchase',
    'stopped spare-h/purchase',
    '₹ idle/purchase',
  ];
  const lines = rows.map(({ label, result: r }) => [
    label,
    String(r.purchases),
    `${pct(r.served.hot, r.purchases)}/${pct(r.served.warm, r.purchases)}/${pct(r.served.cold, r.purchases)}`,
    seconds(percentile(r.connectMs, 50)),
    seconds(percentile(r.connectMs, 95)),
    (r.runningHours / r.purchases).toFixed(2),
    (r.stoppedHours / r.purchases).toFixed(1),
    `₹${Math.round(r.idleRupees / r.purchases)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines])
    console.log(
      line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
    );
}

function recordRows(rows: Row[], seed: number, factor: number): void {
  for (const { label, result } of rows)
    record('pool-sim', {
      name: `demand ×${factor}, ${label}: paid → connectable p95 (SIMULATION)`,
      value: percentile(result.connectMs, 95) / 1000,
      unit: 's',
      detail: {
        p50S: percentile(result.connectMs, 50) / 1000,
        purchases: result.purchases,
        served: result.served,
        runningSpareHoursPerPurchase: result.runningHours / result.purchases,
        stoppedSpareHoursPerPurchase: result.stoppedHours / result.purchases,
        idleRupeesPerPurchase: result.idleRupees / result.purchases,
        seed,
      },
    });
}

/** The modelled paid → connectable of each path alone, beside what the sandbox bench measured. */
function printCalibration(seed: number): void {
  const random = seededRandom(seed + 2);
  const measured = { hot: '12 s (p90 13 s)', warm: '57 s (p90 79 s)', cold: '317 s (p90 358 s)' };
  for (const path of ['hot', 'warm', 'cold'] as const) {
    const times: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      const provisionMs = workerClock(random).pickup();
      times.push(connectableAt(path, provisionMs, random));
    }
    console.log(
      `  ${path.padEnd(4)} modelled median ${seconds(percentile(times, 50))}, p90 ${seconds(percentile(times, 90))}; ` +
        `sandbox-measured (docs/performance.md, time-to-desktop, n=10): ${measured[path]}`,
    );
  }
}

export async function benchPoolSim(): Promise<void> {
  const seed = Number(process.env.POOL_SIM_SEED ?? 29);
  const timing = PROFILES.aws;
  const range = (r: readonly [number, number]) => `${r[0] / 1000}–${r[1] / 1000} s`;
  heading(
    `Pool sizing: SIMULATION, not a measurement (assumptions in scripts/bench/poolSim.ts), seed ${seed}`,
  );
  console.log(
    [
      `One month (30 days from a Monday, after a day's warm-up from an empty pool) of purchases needing a new`,
      `machine: ${Math.round(purchasesPerWeek(DEMAND) / 7)} a day on average (${PLANS_SIMULATED.join(', ')}), evening peak ${DEMAND.peak.fromHour}–${DEMAND.peak.toHour} h IST ×${DEMAND.peak.multiplier},`,
      `night ${DEMAND.night.fromHour}–${DEMAND.night.toHour} h ×${DEMAND.night.multiplier}, weekends ×${DEMAND.weekendMultiplier}. Decisions: core/domain/pool.ts (decidePoolTopUp, chooseSpare), as`,
      `pool-replenish and vm-provision run them. EC2 times: sandbox \`aws\` profile (launch ${range(timing.launch)} +`,
      `first boot ${range(timing.password)}; start ${range(timing.start)}; stop ${range(timing.stop)}); our worker: pickup ≤ ${WORKER.pickupMaxMs / 1000} s,`,
      `re-check every ${WORKER.pollMs / 1000} s, top-up every ${WORKER.replenishEveryMs / 60_000} min and after each claim. Running spare-hours: spares running`,
      `unclaimed (first boots, hot spares waiting), billed at the on-demand price; stopped: warm spares (disk only).`,
      `Prices (unverified list prices, README): $${Object.values(PRICES.usdPerHour).join('/')} per hour, disk $${PRICES.diskUsdPerGbMonth}/GB-month (assumed), ₹${PRICES.rupeesPerUsd}/$.`,
    ].join('\n'),
  );
  console.log('\nEach path alone, paid → connectable (model vs the sandbox bench):');
  printCalibration(seed);

  console.log('\nSettings for every card plan, demand as stated:');
  const grid: Array<{ label: string; setting: PoolSetting }> = [];
  for (const warm of [0, 1, 2, 3])
    for (const hot of [0, 1, 2, 4])
      grid.push({
        label: `WARM_POOL_SIZE=${warm} POOL_HOT=${hot}`,
        setting: { warm: everyPlan(warm), hot: everyPlan(hot) },
      });
  const rows = runSettings(grid, { seed });
  printTable(rows);
  recordRows(rows, seed, 1);

  const bound = hotCoverageLowerBound(DEMAND, 0.95);
  console.log(
    `\np95 ≤ 30 s needs ≥ 95 % of purchases to find a hot spare (a warm start alone is ${range(timing.start)}). ` +
      `At this demand no controller that cannot foresee purchases does that under ${bound.toFixed(2)} running spare-hours per purchase ` +
      `(one spare per plan in the busiest hours holding 95 % of purchases); 0.5 is within reach from about ×${Math.ceil(bound / 0.5)} this demand.`,
  );

  console.log('\nThe same at higher demand (every rate multiplied), WARM_POOL_SIZE=2:');
  const scaled = [3, 10, 30].flatMap((factor) => {
    const factorRows = runSettings(
      [0, 1, 4, 16].map((hot) => ({
        label: `×${factor} POOL_HOT=${hot}`,
        setting: { warm: everyPlan(2), hot: everyPlan(hot) },
      })),
      { seed, demand: scaledDemand(DEMAND, factor) },
    );
    recordRows(factorRows, seed, factor);
    return factorRows;
  });
  printTable(scaled);
}
