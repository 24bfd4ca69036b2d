/**
 * What a GST credit note says about why it was issued (CGST Act s.34: the value of a supply we
 * invoiced was reduced by a refund). Pure: shared by the worker that issues it and its tests.
 */

export type RefundSourceName = 'auto' | 'customer' | 'operator';

/** The reason printed on the credit note, from who asked for the refund and the policy's quote. */
export function creditNoteReason(source: RefundSourceName, quote: unknown): string {
  const q = (quote && typeof quote === 'object' ? quote : {}) as Record<string, unknown>;
  const day = typeof q.day === 'number' ? q.day : null;
  const percent = typeof q.percent === 'number' ? q.percent : null;
  switch (source) {
    case 'customer':
      return day !== null && percent !== null
        ? `Plan cancelled by the customer on day ${day}: ${percent}% of the price refunded, less the cancellation charge`
        : 'Plan cancelled by the customer: refunded under the refund policy';
    case 'auto':
      return 'Payment refunded in full: the plan it was for did not start';
    case 'operator':
      return 'Refund issued by support';
  }
}
