import { useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/fetcher.ts';
import { updateSessionUser, type SessionUser } from '../api/session.ts';
import { PhoneField } from './TextField.tsx';
import { writeStored } from '../storage.ts';
import { PHONE_MESSAGE, phoneDigits } from '../../../core/domain/phone.ts';

/**
 * The account's mobile number (PayU asks for one at checkout): added before the first payment
 * by a customer who signed up with Google, edited from the profile by anyone.
 */
export function PhoneEditor({
  user,
  label = 'Mobile number',
  submitLabel = 'Update phone',
  onSaved,
}: {
  user: SessionUser;
  label?: string;
  submitLabel?: string;
  onSaved?: (phone: string) => void;
}) {
  const [phone, setPhone] = useState(user.phone ?? '');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  async function save(event: FormEvent) {
    event.preventDefault();
    const digits = phoneDigits(phone);
    if (digits === null) {
      setMessage({ kind: 'error', text: PHONE_MESSAGE });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const saved = await api<{ phone: string | null }>('/user/profile', {
        method: 'PUT',
        body: { email: user.email.toLowerCase(), phone: digits },
      });
      const stored = saved.phone ?? digits;
      setPhone(stored);
      writeStored({ phone: stored });
      await updateSessionUser({ ...user, phone: stored });
      setMessage({ kind: 'success', text: 'Phone number saved.' });
      onSaved?.(stored);
    } catch (error) {
      setMessage({ kind: 'error', text: errorMessage(error, 'Could not save the phone number.') });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="phone-editor" onSubmit={save} noValidate>
      <PhoneField
        label={label}
        name="phone"
        value={phone}
        onChange={setPhone}
        placeholder="e.g. 98765 43210"
      />
      {message && (
        <p className={`notice ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      <button type="submit" className="button primary" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
