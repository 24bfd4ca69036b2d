import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/fetcher.ts';
import { useSession } from '../api/session.ts';
import { StatusMessage, type Status } from './StatusMessage.tsx';
import { EmailField, FieldError, PhoneField, TextField } from './TextField.tsx';
import { isValidPhone, PHONE_MESSAGE } from '../../../core/domain/phone.ts';
import { emailProblem } from '../../../core/domain/email.ts';
import { FEEDBACK_FIELDS, FEEDBACK_LIMITS, FEEDBACK_MESSAGES } from '../../../core/domain/publicSite.ts';

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

type Problems = Partial<Record<Name, string>>;

/** Every problem with the form at once, field by field, in the form's order. */
function findProblems(values: Values): Problems {
  const problems: Problems = {};
  for (const name of ORDER) if (values[name].trim() === '') problems[name] = 'Required';
  if (!problems.contactNumber && !isValidPhone(values.contactNumber)) problems.contactNumber = PHONE_MESSAGE;
  const emailIssue = problems.email ? null : emailProblem(values.email);
  if (emailIssue) problems.email = emailIssue;
  return problems;
}

/**
 * The contact/feedback form (spec §2 landing "Get in Touch", §3, §5, §8): six required
 * fields, `POST /api/feedback`. Every problem shows at once: each field says what is wrong
 * under it and is marked invalid, the status line sums up, and the first is focused. A
 * signed-in customer finds their name, number and email filled in.
 */
export function ContactForm({ autoFocus = false }: { autoFocus?: boolean }) {
  const session = useSession();
  const [values, setValues] = useState<Values>(EMPTY);
  const [problems, setProblems] = useState<Problems>({});
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const statusId = `${id}-status`;

  // Prefill what we know of a signed-in customer, without overwriting anything typed.
  const user = session.user;
  useEffect(() => {
    if (!user) return;
    const [first = '', ...rest] = user.name.trim().split(/\s+/);
    setValues((v) => ({
      ...v,
      firstName: v.firstName || first,
      lastName: v.lastName || rest.join(' '),
      contactNumber: v.contactNumber || (user.phone ?? ''),
      email: v.email || user.email,
    }));
  }, [user]);

  const set = (name: Name) => (value: string) => {
    setValues((v) => ({ ...v, [name]: value }));
    setProblems((p) => {
      if (!p[name]) return p;
      const rest = { ...p };
      delete rest[name];
      return rest;
    });
  };

  const focus = (name: Name) => formRef.current?.querySelector<HTMLElement>(`[name="${name}"]`)?.focus();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = findProblems(values);
    const first = ORDER.find((name) => found[name]);
    if (first) {
      setProblems(found);
      const count = Object.keys(found).length;
      const missing = ORDER.some((name) => found[name] === 'Required');
      setStatus({
        kind: 'error',
        text: `${missing ? FEEDBACK_MESSAGES.required : 'Please check the form.'} ${count === 1 ? 'One field needs' : `${count} fields need`} attention.`,
      });
      focus(first);
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
      setProblems({});
      setStatus({ kind: 'success', text: FEEDBACK_MESSAGES.success });
    } catch (error) {
      setStatus({ kind: 'error', text: errorMessage(error, FEEDBACK_MESSAGES.failureFallback) });
    } finally {
      setBusy(false);
    }
  }

  const describe = (name: Name) => ({ error: problems[name] ?? null });
  const describeOther = (name: Name) =>
    problems[name] ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-${name}-error` } : {};

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
          {...describeOther('field')}
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
        {problems.field && <FieldError id={`${id}-field-error`} text={problems.field} />}
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
          {...describeOther('message')}
        />
        {problems.message && <FieldError id={`${id}-message-error`} text={problems.message} />}
      </label>
      <StatusMessage status={status} id={statusId} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Sending…' : 'Send Message'}
      </button>
    </form>
  );
}
