import { mutate } from 'swr';
import { useApi } from './swr.ts';
import { api } from './fetcher.ts';
import { isOpenPayment } from '../../../core/domain/payments.ts';
import type { PaymentAttemptRecord } from '../../../core/domain/planRecords.ts';
import type { RefundPolicyBody } from '../../../core/domain/refund.ts';

/** Payment attempts, refunds and the refund policy (GET /api/payments, /api/refund-policy). */

export type PaymentAttempt = PaymentAttemptRecord;

const PAYMENTS_KEY = '/payments';

/** A checkout started in the last quarter hour may still be paid; an older open one only changes slowly. */
const RECENT_MS = 15 * 60_000;

function stillMoving(list: PaymentAttempt[]): boolean {
  const now = Date.now();
  return list.some(
    (p) =>
      (isOpenPayment(p.status) && now - Date.parse(p.createdAt) < RECENT_MS) ||
      p.refunds.some((r) => r.status === 'requested' || r.status === 'accepted'),
  );
}

/** Every attempt of the signed-in customer; polled while one is still open or a refund is under way. */
export function usePayments(enabled = true) {
  return useApi<{ payments: PaymentAttempt[] }>(enabled ? PAYMENTS_KEY : null, {
    shouldRetryOnError: false,
    refreshInterval: (latest) => (latest && stillMoving(latest.payments) ? 5000 : 0),
  });
}

export function usePaymentAttempt(txnid: string | null) {
  return useApi<PaymentAttempt>(txnid ? `/payments/${encodeURIComponent(txnid)}` : null, {
    shouldRetryOnError: false,
    revalidateOnFocus: false,
    // Until PayU's answer is in (the callback's check takes a moment).
    refreshInterval: (latest) => (!latest || isOpenPayment(latest.status) ? 2000 : 0),
  });
}

/** Asks for the refund the customer saw; the server refuses (409) if today's quote differs. */
export async function requestRefund(txnid: string, confirmAmountPaise: number): Promise<PaymentAttempt> {
  const attempt = await api<PaymentAttempt>(`/payments/${encodeURIComponent(txnid)}/refund`, {
    body: { confirmAmountPaise },
  });
  await mutate(PAYMENTS_KEY);
  return attempt;
}

export function useRefundPolicy() {
  return useApi<RefundPolicyBody>('/refund-policy', {
    revalidateOnFocus: false,
    shouldRetryOnError: false,
  });
}
