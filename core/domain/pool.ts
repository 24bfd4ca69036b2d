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
import { toEpochMsOrNull, type Instant } from './time.ts';

/** What `pool-replenish` knows about one plan when it decides. */
export type PoolTopUpInput = {
  /** WARM_POOL_SIZE for the plan: stopped spares to keep. */
  warmSize: number;
  /** POOL_HOT for the plan: the most running spares to keep. */
  hotMax: number;
  /** The plan's spares claimed in the last hour: the demand hot spares follow. */
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
 * Hot spares wanted for a plan: one, plus one per claim in the last hour, never past POOL_HOT.
 * Zero when POOL_HOT is zero.
 */
export function hotSparesWanted(hotMax: number, claimsLastHour: number): number {
  return Math.max(0, Math.min(hotMax, 1 + claimsLastHour));
}

/**
 * The top-up for one plan. The warm pool is refilled to WARM_POOL_SIZE whatever the capacity
 * (a stopped spare uses no capacity a customer could be refused for until it is claimed); hot
 * spares follow demand within POOL_HOT and never past the type's capacity room, which the warm
 * spares created in the same top-up use first.
 */
export function decidePoolTopUp(input: PoolTopUpInput): PoolTopUp {
  const warm = Math.max(0, input.warmSize - input.warmFilling);
  const wanted = hotSparesWanted(input.hotMax, input.claimsLastHour);
  const room = input.capacityRoom - warm;
  const hot = Math.max(0, Math.min(wanted - input.hotFilling, room));
  const parts = [
    `warm ${input.warmFilling} of ${input.warmSize}${warm > 0 ? `: ${warm} to launch` : ''}`,
    `hot ${input.hotFilling} of ${wanted} wanted (1 + ${input.claimsLastHour} claimed in the last hour, POOL_HOT ${input.hotMax})` +
      (hot > 0 ? `: ${hot} to launch` : wanted > input.hotFilling ? `: no capacity room (${room})` : ''),
  ];
  return { warm, hot, reason: parts.join('; ') };
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
export function spareFits(
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
