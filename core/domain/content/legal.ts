/** What the privacy policy and the terms print from core/domain (spec §2 static pages). */
import { DEFAULT_REFUND_POLICY, type RefundPolicy } from '../refund.ts';

export interface RefundRow {
  /** "Days 1–2", "Day 3", "Day 9 onwards". */
  days: string;
  percent: number;
}

/**
 * The refund policy as the terms print it: consecutive days with the same percent merged,
 * then the day from which nothing is refunded.
 */
export function refundSchedule(policy: RefundPolicy = DEFAULT_REFUND_POLICY): RefundRow[] {
  const rows: RefundRow[] = [];
  const percents = policy.percentByDay;
  let start = 0;
  for (let day = 1; day <= percents.length; day++) {
    if (day === percents.length || percents[day] !== percents[start]) {
      const label = day - start === 1 ? `Day ${start + 1}` : `Days ${start + 1}–${day}`;
      rows.push({ days: label, percent: percents[start] ?? 0 });
      start = day;
    }
  }
  rows.push({ days: `Day ${percents.length + 1} onwards`, percent: 0 });
  return rows;
}

/** When the privacy policy and the terms last changed (shown on both). */
export const LEGAL_UPDATED_ON = '2026-11-22';
