import { formatRupees } from '../../../core/domain/money.ts';
import { formatLongDate } from '../../../core/domain/time.ts';

/** Spec §3 Invoice: the total as INR with two decimals (0.00 when it is not a number). */
export function formatInvoiceTotal(total: unknown): string {
  const rupees = typeof total === 'number' ? total : typeof total === 'string' ? Number(total) : Number.NaN;
  return formatRupees(Number.isFinite(rupees) ? Math.round(rupees * 100) : 0);
}

/** Spec §3 Invoice: a long en-IN date, or a dash when missing or unreadable. */
export function formatInvoiceDate(value: string | null | undefined): string {
  if (!value || !Number.isFinite(Date.parse(value))) return '—';
  return formatLongDate(value);
}
