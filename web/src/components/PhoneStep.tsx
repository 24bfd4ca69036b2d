import type { SessionUser } from '../api/session.ts';
import { PhoneEditor } from './PhoneEditor.tsx';

/**
 * The inline step that asks an account without a phone number (one made with Google) for one,
 * where a purchase needs it: PayU asks for a mobile number with every payment, and a trial is
 * one per number. Saving updates the session, so the page goes on by itself (`onSaved` may
 * carry the customer further, as "Save and continue" promises).
 */
export function PhoneStep({
  user,
  why,
  onSaved,
}: {
  user: SessionUser;
  why: string;
  onSaved?: (phone: string) => void;
}) {
  return (
    <section className="card checkout-card phone-step" aria-label="Add your phone number">
      <h2>One more detail before you pay</h2>
      <p>{why} Add yours to continue; you can change it later from your profile.</p>
      <PhoneEditor user={user} submitLabel="Save and continue" onSaved={onSaved} />
    </section>
  );
}
