import { mutate } from 'swr';
import { api } from './fetcher.ts';
import { CHECKOUT_KEY } from './plans.ts';
import { DASHBOARD_KEY, type DashboardRecord } from './vm.ts';
import type { AutoRenewRecord } from '../../../core/domain/autopay.ts';

/** Automatic renewal (AutoPay) of the signed-in customer's plan: `/api/vm/autopay/*`. */

export type { AutoRenewRecord };

type Answer = { autoRenew: AutoRenewRecord | null };

/** Puts the fresh `autoRenew` into the dashboard record the page shows, then asks again. */
async function apply(answer: Answer): Promise<AutoRenewRecord | null> {
  await mutate<DashboardRecord>(
    DASHBOARD_KEY,
    (record) => (record ? { ...record, autoRenew: answer.autoRenew } : record),
    { revalidate: true },
  );
  return answer.autoRenew;
}

export async function cancelAutoRenew() {
  return apply(await api<Answer>('/vm/autopay/cancel', { body: {} }));
}

export async function pauseAutoRenew() {
  return apply(await api<Answer>('/vm/autopay/pause', { body: {} }));
}

export async function resumeAutoRenew() {
  return apply(await api<Answer>('/vm/autopay/resume', { body: {} }));
}

/** "Pay now": the renewal becomes the plan waiting for payment; /payment confirms it. */
export async function payRenewalNow(): Promise<void> {
  await api<{ subscriptionId: string }>('/vm/autopay/pay-now', { body: {} });
  await mutate(CHECKOUT_KEY);
}
