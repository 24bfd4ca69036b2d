/**
 * The moment between paying for a plan and the machine serving it. A plan bought while a trial
 * runs replaces the trial on the same machine (and a plan bought after one expired renews the
 * kept machine), but the machine moves onto the new plan only when the worker's `vm-provision`
 * hands it over (`attachSubscription`: the new plan's hours start at zero; a machine of another
 * kind is then stopped, changed and started with a new address).
 *
 * Until then the machine still belongs to the earlier subscription. Shown as it was, the new
 * plan's dashboard ran the trial's clock (its minutes counted against the new plan) and offered
 * the trial's address and files for a machine about to change. Instead it is "Upgrading…": no
 * address, no files, no clock, no buttons, a sentence saying what happens, polled like any
 * transition.
 */
import { isLive } from './machineStates.ts';

export type Handover = 'from-trial' | 'renewal';

export const HANDOVER_MESSAGES = {
  upgrading: 'Upgrading…',
  renewing: 'Getting ready for your new plan…',
  fromTrial:
    "Upgrading your PC to your new plan, with all your files. Your trial ended with this purchase: its unused minutes end now, and your plan's hours start only once your PC is ready on it. This page updates by itself.",
  renewal:
    'Getting your PC ready for your new plan, with all your files. Your hours start only once it is ready. This page updates by itself.',
} as const;

/**
 * Whether a plan in force waits for the customer's live machine to be handed over to it, and
 * from what: the machine still serves an earlier subscription (`earlierWasTrial`: a trial this
 * purchase replaced). Null when there is nothing to hand over.
 */
export function pendingHandover(
  plan: { inForce: boolean; subscriptionId: string | null },
  vm: { subscriptionId: string; state: string } | null,
  earlierWasTrial: boolean,
): Handover | null {
  if (!plan.inForce || plan.subscriptionId === null || vm === null) return null;
  if (vm.subscriptionId === plan.subscriptionId) return null;
  if (!isLive(vm.state)) return null;
  return earlierWasTrial ? 'from-trial' : 'renewal';
}

/** What the status line says during a handover. */
export function handoverStatus(handover: Handover): string {
  return handover === 'from-trial' ? HANDOVER_MESSAGES.upgrading : HANDOVER_MESSAGES.renewing;
}

export function handoverNotice(handover: Handover): string {
  return handover === 'from-trial' ? HANDOVER_MESSAGES.fromTrial : HANDOVER_MESSAGES.renewal;
}
