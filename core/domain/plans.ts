/**
 * The plan catalogue: the one source of plan names, hardware, storage and prices (spec §1,
 * §9). What is charged always comes from here, never from a number a client sent.
 */
import { daysInMonth, dayNumber, DAY_MS, indiaDate, toEpochMs, type Instant } from './time.ts';

// Kept importable from here: callers that show prices should not need to know money.ts exists.
export { formatRupees } from './money.ts';

/** The hour bundles a plan is sold in (spec §9). */
export const DURATIONS = [30, 45, 65, 90] as const;
export type DurationHours = (typeof DURATIONS)[number];

export const PLAN_IDS = ['legend', 'pro-legend', 'ultra-legend', 'editor-low', 'editor-high'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  /** Stable slug for URLs, rows and configuration keys. */
  id: PlanId;
  /** As the spec writes it and as the select-vm payload sends it: "PRO LEGEND". */
  displayName: string;
  /** For running text: "Pro Legend". */
  name: string;
  description: string;
  ramGb: number;
  /** Storage included per month; also the size of the VM's disk. */
  storageGb: number;
  instanceType: string;
  gpu: string;
  /** Only the three LEGEND plans are shown as cards on /select-vm; the editor plans are price-table only. */
  offeredInCards: boolean;
  /** Monthly price in paise for each duration. */
  pricesPaise: Readonly<Record<DurationHours, number>>;
}

function rupees(prices: Record<DurationHours, number>): Readonly<Record<DurationHours, number>> {
  return { 30: prices[30] * 100, 45: prices[45] * 100, 65: prices[65] * 100, 90: prices[90] * 100 };
}

export const PLANS: readonly Plan[] = [
  {
    id: 'legend',
    displayName: 'LEGEND',
    name: 'Legend',
    description:
      'A 16 GB RAM Windows PC with an NVIDIA T4 GPU for everyday high-level work: browsing, office work, study and lighter games.',
    ramGb: 16,
    storageGb: 115,
    instanceType: 'g4dn.xlarge',
    gpu: 'NVIDIA T4 (16 GB)',
    offeredInCards: true,
    pricesPaise: rupees({ 30: 1450, 45: 1830, 65: 2685, 90: 3500 }),
  },
  {
    id: 'pro-legend',
    displayName: 'PRO LEGEND',
    name: 'Pro Legend',
    description:
      'A 32 GB RAM Windows PC with an NVIDIA T4 GPU for editing and development: video and photo editing, coding, builds and multitasking.',
    ramGb: 32,
    storageGb: 225,
    instanceType: 'g4dn.2xlarge',
    gpu: 'NVIDIA T4 (16 GB)',
    offeredInCards: true,
    pricesPaise: rupees({ 30: 1899, 45: 2699, 65: 3699, 90: 4899 }),
  },
  {
    id: 'ultra-legend',
    displayName: 'ULTRA LEGEND',
    name: 'Ultra Legend',
    description:
      'A 16 GB RAM Windows PC with an NVIDIA A10G GPU for demanding games and GPU-heavy work such as AI and machine learning, Unreal Engine, Revit and 3D rendering.',
    ramGb: 16,
    storageGb: 225,
    instanceType: 'g5.xlarge',
    gpu: 'NVIDIA A10G (24 GB)',
    offeredInCards: true,
    pricesPaise: rupees({ 30: 2299, 45: 2799, 65: 3299, 90: 4299 }),
  },
  // The spec gives the editor plans prices and storage but no hardware. Their prices sit well
  // above PRO LEGEND and ULTRA LEGEND, so they get bigger A10G machines rather than a copy of
  // PRO LEGEND's g4dn.2xlarge: g5.2xlarge (8 vCPU, 32 GB) and g5.4xlarge (16 vCPU, 64 GB).
  {
    id: 'editor-low',
    displayName: 'EDITOR LOW',
    name: 'Editor Low',
    description:
      'A 32 GB RAM Windows PC with an NVIDIA A10G GPU and 225 GB of storage for professional video editing and colour work.',
    ramGb: 32,
    storageGb: 225,
    instanceType: 'g5.2xlarge',
    gpu: 'NVIDIA A10G (24 GB)',
    offeredInCards: false,
    pricesPaise: rupees({ 30: 3199, 45: 4000, 65: 4999, 90: 5999 }),
  },
  {
    id: 'editor-high',
    displayName: 'EDITOR HIGH',
    name: 'Editor High',
    description:
      'A 64 GB RAM Windows PC with an NVIDIA A10G GPU and 450 GB of storage for 4K editing, large projects and heavy renders.',
    ramGb: 64,
    storageGb: 450,
    instanceType: 'g5.4xlarge',
    gpu: 'NVIDIA A10G (24 GB)',
    offeredInCards: false,
    pricesPaise: rupees({ 30: 4199, 45: 5199, 65: 7899, 90: 10999 }),
  },
];

/** The plans shown as cards on /select-vm, in card order. */
export const CARD_PLANS: readonly Plan[] = PLANS.filter((plan) => plan.offeredInCards);

export function isDuration(value: unknown): value is DurationHours {
  return (DURATIONS as readonly unknown[]).includes(value);
}

export function isPlanId(value: unknown): value is PlanId {
  return (PLAN_IDS as readonly unknown[]).includes(value);
}

export function getPlan(id: PlanId): Plan {
  const plan = PLANS.find((candidate) => candidate.id === id);
  if (!plan) throw new Error(`Plan ${id} is missing from the catalogue`);
  return plan;
}

/**
 * Finds a plan by id or by name, leniently: the spec's payloads send the display name
 * ("PRO LEGEND"), older clients and people send "Pro Legend", "pro-legend" or "pro_legend".
 * Case, surrounding spaces and space/hyphen/underscore separators do not matter.
 */
export function findPlan(idOrName: string): Plan | undefined {
  const slug = idOrName
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-');
  return PLANS.find((plan) => plan.id === slug);
}

/**
 * Monthly price in paise of a plan (id or name, as findPlan) for a number of hours, or
 * `null` when there is none: the spec's "No price configured for that combination.".
 */
export function priceFor(plan: string, hours: number): number | null {
  const found = findPlan(plan);
  if (!found || !isDuration(hours)) return null;
  return found.pricesPaise[hours];
}

/** How long any plan lasts, whatever hours were bought (spec §1). */
export const PLAN_VALIDITY_LABEL = 'one month';

/**
 * The same time of day one calendar month later, the calendar being India's. A day that
 * the next month lacks is clamped to its last day: 31 January → 28 (or 29) February,
 * 31 March → 30 April. India keeps no daylight saving, so a calendar day is always 24 hours.
 */
export function addOneMonth(at: Instant): Date {
  const start = toEpochMs(at);
  const from = indiaDate(start);
  const nextYear = from.month === 12 ? from.year + 1 : from.year;
  const nextMonth = from.month === 12 ? 1 : from.month + 1;
  const to = { year: nextYear, month: nextMonth, day: Math.min(from.day, daysInMonth(nextYear, nextMonth)) };
  return new Date(start + (dayNumber(to) - dayNumber(from)) * DAY_MS);
}

/** When a plan bought at that moment expires. */
export function planExpiry(purchasedAt: Instant): Date {
  return addOneMonth(purchasedAt);
}

/** The machine image a plan launches from (the default plan's for an unknown plan id). */
export function imageForPlan(planId: string, amiByPlan: Record<PlanId, string>): string {
  return isPlanId(planId) ? amiByPlan[planId] : amiByPlan.legend;
}
