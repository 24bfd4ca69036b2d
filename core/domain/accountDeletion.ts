/**
 * What deleting an account does, in one place: the dialog (web), the confirmation mail and the
 * server's minimising of the records it keeps all say and do the same.
 *
 * What we rely on for keeping invoices: section 36 of the CGST Act, 2017 has a registered
 * person keep books and records, tax invoices included, until 72 months after the due date
 * of the annual return for the year they belong to (the return is due by 31 December after
 * the financial year), which is the "8 years" commonly cited and what we promise. Rule 46(e)
 * of the CGST Rules asks for the recipient's name and address on an invoice to an unregistered
 * customer only when its taxable value is ₹50,000 or more; every plan costs less, so a kept
 * invoice needs no name, email or phone, and they are removed. An invoice at or above that
 * value (none today) would keep the name the law asks for.
 */

import { findPlan } from './plans.ts';
import { isTrialPlanName } from './trial.ts';
import { displayStateOf, type VmDisplayState } from './vm.ts';

/** Years invoices and payment records are kept after an account is deleted. */
export const INVOICE_RETENTION_YEARS = 8;

/** Rule 46(e): from this taxable value an invoice to an unregistered customer must name them. */
export const RECIPIENT_NAME_REQUIRED_FROM_PAISE = 50_000_00;

/** The name and email a kept invoice shows once its customer deleted their account. */
export const MINIMISED_CUSTOMER_NAME = 'Deleted customer';
export function minimisedCustomerEmail(userId: string): string {
  return `deleted-${userId}@deleted.invalid`;
}

/**
 * Fields of PayU's `verify_payment` answer (kept on the payment for the record) that describe
 * the person rather than the payment: removed at deletion. The amounts, status, PayU's ids
 * and the mode of payment stay.
 */
export const PAYU_PERSONAL_FIELDS = [
  'firstname',
  'lastname',
  'email',
  'phone',
  'address1',
  'address2',
  'city',
  'state',
  'country',
  'zipcode',
  'name_on_card',
  'card_no',
  'cardnum',
  'cardhash',
  'card_token',
] as const;

export const DELETION_WORDING = {
  machine: 'Your cloud PC is shut down and terminated: nothing of yours keeps running or is billed.',
  disk: 'Its disk is deleted, with every file on it.',
  snapshots: 'Any snapshot of its disk we keep after a plan ends is deleted.',
  noMachine: 'You have no cloud PC, so there is no machine or disk to delete.',
  personal: 'Your sign-in, name and phone number are erased, and every session is signed out.',
  trialPhone: 'A phone number a trial was bought with is kept, only so that each number gets one trial.',
  invoicesKept: `Your invoices and payment records are kept for ${INVOICE_RETENTION_YEARS} years, as India's GST law requires (CGST Act, section 36).`,
  invoicesMinimised:
    'Your name, email address and phone number are removed from them; they keep only the invoice number, dates, plan, amounts, GST and the state of supply.',
} as const;

/**
 * A machine the deletion terminates, as the dialog names it: the plan it was made for (its own
 * kind, so it is named after a refund or expiry too, when no plan is in force) and whether that
 * was a trial, with its state in a word.
 */
/**
 * What the delete-account dialog lists before the customer confirms (`GET /api/user/deletion`):
 * the same facts the deletion reads and mails (core/commands/accountDeletion.ts), worded here.
 */
export type DeletionPreview = {
  /** "Terminates your cloud PC (LEGEND, stopped)." or the no-machine sentence. */
  machine: string;
  hasMachine: boolean;
  plan: { name: string; hoursLeft: string; expiresAt: string | null } | null;
  invoices: number;
  trialPhoneKept: boolean;
};

export type DeletedMachine = { planId: string; isTrial: boolean; state: string };

const STATE_WORDS: Record<VmDisplayState, string> = {
  none: 'not set up yet',
  provisioning: 'being set up',
  starting: 'starting',
  running: 'running',
  stopping: 'stopping',
  stopped: 'stopped',
  error: 'not working',
  terminated: 'deleted',
};

/** "LEGEND" for a plan, "PRO LEGEND trial" for a trial on that machine; the id itself if unknown. */
export function planLabel(plan: { planId: string; isTrial: boolean; planName?: string }): string {
  const name = findPlan(plan.planId)?.displayName ?? plan.planName ?? plan.planId;
  return plan.isTrial || isTrialPlanName(name) ? `${name} trial` : name;
}

/** "LEGEND, running". */
export function machineLabel(machine: DeletedMachine): string {
  return `${planLabel(machine)}, ${STATE_WORDS[displayStateOf(machine.state)]}`;
}

/** The dialog's first line: "Terminates your cloud PC (LEGEND, running)." (or each of several). */
export function machinesSentence(machines: readonly DeletedMachine[]): string {
  if (machines.length === 0) return DELETION_WORDING.noMachine;
  const labels = machines.map(machineLabel).join('; ');
  return machines.length === 1
    ? `Terminates your cloud PC (${labels}).`
    : `Terminates your ${machines.length} cloud PCs (${labels}).`;
}
