import { Link } from 'wouter';
import { usePayments } from '../api/payments.ts';
import { formatRupees } from '../../../core/domain/money.ts';

/**
 * The dashboard's word on money that is not settled: a payment PayU took that started nothing
 * (what happened, what happens next) until its refund is done. Never silent.
 */
export function PaymentNotices() {
  const { data } = usePayments();
  const unsettled = (data?.payments ?? []).filter(
    (p) => p.notActivated && !p.refunds.some((r) => r.status === 'refunded'),
  );
  if (unsettled.length === 0) return null;
  return (
    <div className="payment-notices">
      {unsettled.map((p) => (
        <div key={p.txnid} className="notice warning dashboard-notice" role="status">
          <p>
            <strong>Payment of {formatRupees(p.amountPaise)} received, plan not started.</strong>{' '}
            {p.refunds.length > 0
              ? `Your full refund is under way (${p.refunds[0]?.status === 'failed' ? 'our team is looking into it' : 'accepted by PayU'}).`
              : p.notActivated?.explanation}
          </p>
          <p>
            Reference <code>{p.txnid}</code> · <Link href="/history">Payment history</Link>
          </p>
        </div>
      ))}
    </div>
  );
}
