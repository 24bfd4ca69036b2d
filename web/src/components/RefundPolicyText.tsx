import { Link } from 'wouter';
import { useSite } from '../api/site.ts';
import { useRefundPolicy } from '../api/payments.ts';
import { MailLink } from './LegalPage.tsx';
import { rupeesShort } from '../../../core/domain/content/facts.ts';

/**
 * The refund policy's words and table, one text for the Terms (§ Cancellation and refunds) and
 * the refund policy page. The figures are the ones the server applies (GET /api/refund-policy,
 * configuration over core/domain), never a copy.
 */
export function RefundPolicyText() {
  const site = useSite();
  const { data: policy } = useRefundPolicy();
  const charge = policy ? rupeesShort(policy.cancellationChargePaise) : '…';
  return (
    <>
      <p>
        You may cancel a paid plan from your <Link href="/history">plan history</Link> (it shows the amount
        before you confirm) or by writing to <MailLink address={site?.contactEmail} />. The refund is a share
        of the price you paid, depending on the day of the plan on which you cancel (the day of purchase is
        day 1, and days change at midnight India time):
      </p>
      <table className="refund-table">
        <caption className="visually-hidden">Refund by day of the plan</caption>
        <thead>
          <tr>
            <th scope="col">Cancelled on</th>
            <th scope="col">Refund</th>
          </tr>
        </thead>
        <tbody>
          {(policy?.rows ?? []).map((row) => (
            <tr key={row.days}>
              <th scope="row">{row.days}</th>
              <td>{row.percent > 0 ? `${row.percent}% of the price` : 'No refund'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        A cancellation charge of {charge} is deducted from every refund (a refund is never less than zero).
        Refunds go back to the original payment method through PayU, usually within 5–7 working days of
        approval. Your cloud PC stops and the plan ends when a cancellation is processed.
      </p>
    </>
  );
}
