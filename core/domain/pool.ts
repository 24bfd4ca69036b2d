/**
 * The spare pool as decisions: how many spares a plan should have launched next, and which
 * spare (if any) a new machine takes. Pure: `pool-replenish` and the machine lifecycle gather
 * the counts and rows, ask here, and carry the answer out; `npm run bench -- pool-sim` asks the
 * same functions on a simulated clock, so what it reports is what production does.
 *
 * Two kinds of spare, both launched ahead and through Windows' first boot, password captured:
 * a warm one is then stopped (costs only its disk while it waits; a purchase needs a start),
 * a hot one is kept running (costs its full hourly price while it waits; a purchase needs only
 * our tags and a Remote Desktop check).
 */
import { HOUR_MS, toEpochMsOrNull, type Instant } from './time.ts';

const MINUTE_MS = 60_000;

/**
 * How long a new hot spare takes to be claimable: a launch and Windows' first boot until its
 * password is ready (at least 4 minutes in AWS's documentation; 4–6 in the sandbox's `aws`
 * profile), plus the worker's re-check.
 */
export const HOT_SPARE_LEAD_MS = 6 * MINUTE_MS;
/** A warm spare is also stopped after its first boot (30–60 s more). */
export const WARM_SPARE_LEAD_MS = 7 * MINUTE_MS;
/** The share of purchases that should find a spare waiting: the p95 target of paid → connectable. */
export const SPARE_SERVICE_LEVEL = 0.95;

/** The smallest k with P(N ≤ k) ≥ p for N Poisson-distributed with that mean. */
export function poissonQuantile(mean: number, p: number): number {
  if (!(mean > 0)) return 0;
  // Summed in log space: e^-mean underflows for a large mean, the terms near k ≈ mean do not.
  const last = Math.ceil(mean + 12 * Math.sqrt(mean) + 12);
  let logTerm = -mean;
  let cdf = Math.exp(logTerm);
  let k = 0;
  while (cdf < p && k < last) {
    k += 1;
    logTerm += Math.log(mean) - Math.log(k);
    cdf += Math.exp(logTerm);
  }
  return k;
}

/**
 * Spares that let SPARE_SERVICE_LEVEL of purchases find one waiting, when every claim is
 * replaced at once and a replacement takes `leadMs` (base-stock sizing): a purchase finds none
 * only when as many purchases as there are spares came within one lead time. Purchases are
 * taken to come at the last hour's rate. With no recent claim: one.
 */
function sparesForDemand(claimsLastHour: number, leadMs: number): number {
  return 1 + poissonQuantile((Math.max(0, claimsLastHour) * leadMs) / HOUR_MS, SPARE_SERVICE_LEVEL);
}

/** Hot spares wanted for a plan: enough for the purchases a launch's lead time may bring, within POOL_HOT. */
export function hotSparesWanted(hotMax: number, claimsLastHour: number): number {
  return Math.max(0, Math.min(hotMax, sparesForDemand(claimsLastHour, HOT_SPARE_LEAD_MS)));
}

/** Warm spares wanted: at least WARM_POOL_SIZE, more while purchases come faster; none when it is 0. */
export function warmSparesWanted(warmSize: number, claimsLastHour: number): number {
  if (warmSize <= 0) return 0;
  return Math.max(warmSize, sparesForDemand(claimsLastHour, WARM_SPARE_LEAD_MS));
}

/** What `pool-replenish` knows about one plan when it decides. */
export type PoolTopUpInput = {
  /** WARM_POOL_SIZE for the plan: the fewest stopped spares to keep. */
  warmSize: number;
  /** POOL_HOT for the plan: the most running spares to keep. */
  hotMax: number;
  /** The plan's spares claimed in the last hour: the demand both kinds follow. */
  claimsLastHour: number;
  /**
   * Instances of the plan's type that may still be made: its CAPACITY_LIMITS less the machines
   * in use and the spares of that type that exist.
   */
  capacityRoom: number;
  /** The plan's stopped-kind spares launching, stopping or ready. */
  warmFilling: number;
  /** The plan's running-kind spares launching or ready. */
  hotFilling: number;
};

/** How many spares of each kind to create (and launch) now, and why. */
export type PoolTopUp = { warm: number; hot: number; reason: string };

/**
 * The top-up for one plan. Spares are never removed here: a spare launched for a busy hour
 * waits for the next purchase. The warm pool is refilled to WARM_POOL_SIZE whatever the
 * capacity (a stopped spare holds no capacity a customer could be refused for until it is
 * claimed); warm spares beyond it, for demand, and hot spares stay within the type's capacity
 * room, which the warm spares of the same top-up use first.
 */
export function decidePoolTopUp(input: PoolTopUpInput): PoolTopUp {
  const warmWanted = warmSparesWanted(input.warmSize, input.claimsLastHour);
  const hotWanted = hotSparesWanted(input.hotMax, input.claimsLastHour);
  const warmFloor = Math.max(0, input.warmSize - input.warmFilling);
  const warmForDemand = Math.max(
    0,
    Math.min(warmWanted - input.warmFilling - warmFloor, input.capacityRoom - warmFloor),
  );
  const warm = warmFloor + warmForDemand;
  const room = input.capacityRoom - warm;
  const hot = Math.max(0, Math.min(hotWanted - input.hotFilling, room));
  const short = (wanted: number, filling: number, made: number) =>
    made > 0 ? `: ${made} to launch` : wanted > filling ? `: no capacity room (${room})` : '';
  return {
    warm,
    hot,
    reason:
      `${input.claimsLastHour} claimed in the last hour; ` +
      `warm ${input.warmFilling} of ${warmWanted} wanted (WARM_POOL_SIZE ${input.warmSize})${short(warmWanted, input.warmFilling, warm)}; ` +
      `hot ${input.hotFilling} of ${hotWanted} wanted (POOL_HOT ${input.hotMax})${short(hotWanted, input.hotFilling, hot)}`,
  };
}

/** A spare as the claim sees it. */
export type SpareFacts = {
  id: string;
  planId: string;
  instanceType: string;
  storageGb: number;
  /** Only `ready` spares (first boot done, password captured) can be claimed. */
  state: string;
  hot: boolean;
  readyAt: Instant | null;
};

/**
 * The order spares are claimed in: a hot (running) one first, it needs no start; then the one
 * ready longest; the id breaks ties so two claimers agree. `claimPoolInstance` builds its SQL
 * ORDER BY from this list, so the simulation's choice and production's are one rule.
 */
export const SPARE_CLAIM_ORDER = [
  { by: 'hot', descending: true },
  { by: 'readyAt', descending: false },
  { by: 'id', descending: false },
] as const satisfies ReadonlyArray<{ by: 'hot' | 'readyAt' | 'id'; descending: boolean }>;

function claimKey(spare: SpareFacts, by: (typeof SPARE_CLAIM_ORDER)[number]['by']): number | string {
  if (by === 'hot') return spare.hot ? 1 : 0;
  if (by === 'readyAt') return toEpochMsOrNull(spare.readyAt) ?? Number.POSITIVE_INFINITY;
  return spare.id;
}

/** Negative when `a` is claimed before `b`. */
export function compareSparesForClaim(a: SpareFacts, b: SpareFacts): number {
  for (const { by, descending } of SPARE_CLAIM_ORDER) {
    const x = claimKey(a, by);
    const y = claimKey(b, by);
    if (x === y) continue;
    return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return 0;
}

/** A machine that brings back a kept disk is launched from it: it never takes a spare. */
export function mayClaimSpare(machine: { restoring: boolean }): boolean {
  return !machine.restoring;
}

/** A spare fits a machine of the same plan, instance type and disk size, once it is ready. */
function spareFits(
  spare: SpareFacts,
  machine: { planId: string; instanceType: string; storageGb: number },
): boolean {
  return (
    spare.state === 'ready' &&
    spare.planId === machine.planId &&
    spare.instanceType === machine.instanceType &&
    spare.storageGb === machine.storageGb
  );
}

export type SpareChoice<S extends SpareFacts = SpareFacts> =
  { kind: 'hot' | 'warm'; spare: S; reason: string } | { kind: 'launch'; reason: string };

/**
 * Where a new machine comes from: a hot spare (only tags and a Remote Desktop check), else a
 * warm one (a start), else a launch of its own (Windows' first boot, minutes).
 */
export function chooseSpare<S extends SpareFacts>(
  machine: { planId: string; instanceType: string; storageGb: number; restoring: boolean },
  spares: readonly S[],
): SpareChoice<S> {
  if (!mayClaimSpare(machine))
    return { kind: 'launch', reason: "launched from the customer's kept disk, never a spare" };
  const [first] = spares.filter((spare) => spareFits(spare, machine)).sort(compareSparesForClaim);
  if (!first) return { kind: 'launch', reason: 'no ready spare of this plan' };
  return first.hot
    ? { kind: 'hot', spare: first, reason: 'a running spare: tags and a Remote Desktop check' }
    : { kind: 'warm', spare: first, reason: 'a stopped spare: it is started' };
}
