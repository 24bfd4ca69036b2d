import { useId, useRef, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/fetcher.ts';
import { StatusMessage, type Status } from './StatusMessage.tsx';
import { EmailField, PhoneField, TextField } from './TextField.tsx';
import { isValidPhone, PHONE_MESSAGE } from '../../../core/domain/phone.ts';
import {
  FEEDBACK_FIELDS,
  FEEDBACK_LIMITS,
  FEEDBACK_MESSAGES,
  isEmailAddress,
} from '../../../core/domain/publicSite.ts';

type Values = {
  firstName: string;
  lastName: string;
  field: string;
  contactNumber: string;
  email: string;
  message: string;
};
type Name = keyof Values;

const EMPTY: Values = { firstName: '', lastName: '', field: '', contactNumber: '', email: '', message: '' };
const ORDER: Name[] = ['firstName', 'lastName', 'field', 'contactNumber', 'email', 'message'];

/** The first problem with the form, naming the field to send the person to. */
function findProblem(values: Values): { field: Name; message: string } | null {
  const missing = ORDER.find((name) => values[name].trim() === '');
  if (missing) return { field: missing, message: FEEDBACK_MESSAGES.required };
  if (!isValidPhone(values.contactNumber)) return { field: 'contactNumber', message: PHONE_MESSAGE };
  if (!isEmailAddress(values.email.trim()))
    return { field: 'email', message: FEEDBACK_MESSAGES.invalidEmail };
  return null;
}

/**
 * The contact/feedback form (spec §2 landing "Get in Touch", §3, §5, §8): six required
 * fields, `POST /api/feedback`. A problem is shown once, in the status line, and the field
 * it concerns is marked invalid and focused.
 */
export function ContactForm({ autoFocus = false }: { autoFocus?: boolean }) {
  const [values, setValues] = useState<Values>(EMPTY);
  const [invalid, setInvalid] = useState<Name | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const statusId = `${id}-status`;

  const set = (name: Name) => (value: string) => {
    setValues((v) => ({ ...v, [name]: value }));
    if (invalid === name) setInvalid(null);
  };

  const focus = (name: Name) => formRef.current?.querySelector<HTMLElement>(`[name="${name}"]`)?.focus();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = findProblem(values);
    if (problem) {
      setInvalid(problem.field);
      setStatus({ kind: 'error', text: problem.message });
      focus(problem.field);
      return;
    }
    setBusy(true);
    setStatus(null);
    try {
      const body = {
        firstName: values.firstName.trim(),
        lastName: values.lastName.trim(),
        field: values.field,
        contactNumber: values.contactNumber,
        email: values.email.trim(),
        message: values.message.trim(),
      };
      await api<{ id: string }>('/feedback', { body });
      setValues(EMPTY);
      setInvalid(null);
      setStatus({ kind: 'success', text: FEEDBACK_MESSAGES.success });
    } catch (error) {
      setStatus({ kind: 'error', text: errorMessage(error, FEEDBACK_MESSAGES.failureFallback) });
    } finally {
      setBusy(false);
    }
  }

  const describe = (name: Name) =>
    invalid === name ? { 'aria-invalid': true as const, 'aria-describedby': statusId } : {};

  return (
    <form ref={formRef} className="form contact-form" onSubmit={submit} noValidate aria-label="Contact form">
      <div className="form-row">
        <TextField
          label="First Name"
          name="firstName"
          autoComplete="given-name"
          value={values.firstName}
          maxLength={FEEDBACK_LIMITS.name}
          onChange={set('firstName')}
          required
          autoFocus={autoFocus}
          {...describe('firstName')}
        />
        <TextField
          label="Last Name"
          name="lastName"
          autoComplete="family-name"
          value={values.lastName}
          maxLength={FEEDBACK_LIMITS.name}
          onChange={set('lastName')}
          required
          {...describe('lastName')}
        />
      </div>
      <label className="field">
        <span>Your field</span>
        <select
          name="field"
          value={values.field}
          onChange={(e) => set('field')(e.target.value)}
          required
          {...describe('field')}
        >
          <option value="" disabled>
            Choose what you do
          </option>
          {FEEDBACK_FIELDS.map((field) => (
            <option key={field} value={field}>
              {field}
            </option>
          ))}
        </select>
      </label>
      <div className="form-row">
        <PhoneField
          label="Contact Number"
          name="contactNumber"
          placeholder="10-digit mobile"
          value={values.contactNumber}
          onChange={set('contactNumber')}
          {...describe('contactNumber')}
        />
        <EmailField
          value={values.email}
          maxLength={FEEDBACK_LIMITS.email}
          onChange={set('email')}
          {...describe('email')}
        />
      </div>
      <label className="field">
        <span>Message</span>
        <textarea
          name="message"
          rows={5}
          value={values.message}
          maxLength={FEEDBACK_LIMITS.message}
          onChange={(e) => set('message')(e.target.value)}
          required
          {...describe('message')}
        />
      </label>
      <StatusMessage status={status} id={statusId} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Sending…' : 'Send Message'}
      </button>
    </form>
  );
}
