import { useCurrentPlan } from '../api/plans.ts';
import { canBuyPlanNow } from '../../../core/domain/subscription.ts';
import { NavItem, PLAN_ITEM } from './NavItem.tsx';

/**
 * The header's plan link for a customer who has bought one (spec §2): "Renew Plan" when a plan
 * can be bought now (it has ended, or it is a trial); while one is in force, and while that is
 * not known yet, "My plan" (it leads to the same page) rather than a promise that may not hold;
 * during a trial's hour, "My trial" (the trial is the customer's plan for now, not a renewal).
 * Loaded lazily by the header (web/src/components/Header.tsx).
 */
export default function PlanNavItem({ location }: { location: string }) {
  const current = useCurrentPlan(true).data?.plan;
  const renewable =
    current !== undefined &&
    canBuyPlanNow(
      current && {
        plan: current.selectedPlan,
        hours: current.selectedDuration,
        expiresAt: current.expiryDate,
        isTrial: current.isTrial,
      },
      Date.now(),
    );
  const inTrial =
    current?.isTrial === true &&
    current.status === 'active' &&
    current.expiryDate !== null &&
    Date.parse(current.expiryDate) > Date.now();
  return (
    <NavItem
      label={inTrial ? 'My trial' : renewable ? 'Renew Plan' : PLAN_ITEM.label}
      href={PLAN_ITEM.href}
      location={location}
    />
  );
}
