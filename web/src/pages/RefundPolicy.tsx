import { Link } from 'wouter';
import { useRefundPolicy } from '../api/payments.ts';
import { LegalPage, type LegalSection } from '../components/LegalPage.tsx';
import { RefundPolicyText } from '../components/RefundPolicyText.tsx';
import { usePageTitle } from '../components/pageTitle.ts';

/**
 * The refund policy on a page of its own (linked in the footer): the Terms' cancellation section,
 * word for word (RefundPolicyText), then what happens to money in the other cases. Every figure
 * is the server's configuration (GET /api/refund-policy).
 */
export default function RefundPolicy() {
  usePageTitle('Refund Policy');
  const { data: policy } = useRefundPolicy();
  const returnDays = policy ? `${policy.failedDebitReturnDays} days` : '…';
  const autoHours = policy ? `${policy.autoRefundHours} hours` : '…';
  const sections: LegalSection[] = [
    { id: 'cancelling', title: 'Cancelling a plan', body: <RefundPolicyText /> },
    {
      id: 'not-completed',
      title: 'Payments that do not complete',
      body: (
        <p>
          When a payment is not completed (you closed PayU&rsquo;s page, or your bank never confirmed it), no
          money was taken and no plan starts. If your bank shows a debit all the same, it is returned
          automatically within {returnDays}, as the Reserve Bank of India requires of banks for failed
          payments. Your <Link href="/history">plan history</Link> shows every payment attempt and its state.
        </p>
      ),
    },
    {
      id: 'not-started',
      title: 'Payments that start no plan',
      body: (
        <p>
          If PayU took a payment that could not start a plan (for example another plan was already active), we
          tell you, and the full amount goes back to your original payment method within {autoHours} unless
          our team sorts it out with you first. No cancellation charge applies.
        </p>
      ),
    },
    {
      id: 'trial',
      title: 'Trial',
      body: <p>The trial is not refundable once your cloud PC has started.</p>,
    },
    {
      id: 'credit-note',
      title: 'Your credit note',
      body: (
        <p>
          For every refund of a plan we issue a GST credit note against its invoice, for the amount refunded
          and the tax in it. It appears beside the invoice in your <Link href="/history">plan history</Link>,
          ready to print.
        </p>
      ),
    },
  ];
  return (
    <LegalPage
      title="Refund Policy"
      intro="What you get back when you cancel a plan, and what happens to payments that do not complete."
      sections={sections}
    />
  );
}
