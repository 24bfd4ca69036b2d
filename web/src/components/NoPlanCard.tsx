import { Link } from 'wouter';
import { usePayments, type PaymentAttempt } from '../api/payments.ts';
import { refundEndsPlan, refundLine } from '../../../core/domain/refund.ts';
import { TRIAL_LABEL } from '../../../core/domain/trial.ts';
import { VM_MESSAGES } from '../../../core/domain/vm.ts';

/**
 * The dashboard with no plan to show. When the customer's latest plan ended with a refund, it
 * says so (which plan, the refund and where it is) instead of "You have no plan yet", and offers
 * to choose a plan either way.
 */
export function NoPlanCard() {
  const { data } = usePayments();
  const refunded = latestRefundedPlan(data?.payments ?? []);
  if (!refunded) {
    return (
      <div className="card dashboard-empty">
        <p>{VM_MESSAGES.noPlan}</p>
        <Link href="/select-vm" className="button primary">
          Choose a plan
        </Link>
      </div>
    );
  }
  const { attempt, refund } = refunded;
  const plan = attempt.isTrial
    ? `${attempt.planName} (${TRIAL_LABEL})`
    : `${attempt.planName} plan (${attempt.hours} hours)`;
  return (
    <div className="card dashboard-empty plan-refunded" role="status">
      <h2>Your {plan} was refunded and has ended.</h2>
      <p>
        {refundLine(refund)}. Your cloud PC stops with the plan. The refund and its credit note are in your{' '}
        <Link href="/history">plan history</Link>.
      </p>
      <Link href="/select-vm" className="button primary">
        Choose a plan
      </Link>
    </div>
  );
}

/** The newest payment that started a plan, when a refund PayU took on has ended that plan. */
function latestRefundedPlan(
  payments: PaymentAttempt[],
): { attempt: PaymentAttempt; refund: PaymentAttempt['refunds'][number] } | null {
  const latest = payments.find((p) => p.status === 'success' && p.notActivated === null);
  const refund = latest?.refunds.find(refundEndsPlan);
  return latest && refund ? { attempt: latest, refund } : null;
}
