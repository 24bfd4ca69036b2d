import { useEffect, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/fetcher.ts';
import { useSession } from '../api/session.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { Page } from '../components/Layout.tsx';
import { StatusMessage, type Status } from '../components/StatusMessage.tsx';
import { PhoneField, TextField } from '../components/TextField.tsx';
import { PHONE_MESSAGE, phoneDigits } from '../../../core/domain/phone.ts';
import {
  DEFAULT_SEVERITY,
  REPORT_LIMITS,
  REPORT_MESSAGES,
  SEVERITIES,
  type Severity,
} from '../../../core/domain/problemReport.ts';

const EMPTY = { title: '', description: '', severity: DEFAULT_SEVERITY as Severity, phoneNumber: '' };

/** The page the person was on before opening the report form, when it was one of ours. */
function reportedPage(): string {
  try {
    const referrer = document.referrer ? new URL(document.referrer) : null;
    if (referrer && referrer.origin === window.location.origin) return referrer.pathname + referrer.search;
  } catch {
    // an unparsable referrer: fall through
  }
  return window.location.pathname;
}

/** Spec §2 "Report form", §5 and §8. */
export default function ReportProblem() {
  usePageTitle('Report a Problem');
  const session = useSession();
  const [form, setForm] = useState(EMPTY);
  // A signed-in customer's phone number is filled in (the report is linked to them anyway).
  const phone = session.user?.phone ?? '';
  useEffect(() => {
    if (phone) setForm((f) => (f.phoneNumber ? f : { ...f, phoneNumber: phone }));
  }, [phone]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  const set = (field: keyof typeof EMPTY) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const title = form.title.trim();
    const description = form.description.trim();
    if (!title || !description || !form.phoneNumber.trim()) {
      setStatus({ kind: 'error', text: REPORT_MESSAGES.required });
      return;
    }
    const phoneNumber = phoneDigits(form.phoneNumber);
    if (phoneNumber === null) {
      setStatus({ kind: 'error', text: PHONE_MESSAGE });
      return;
    }
    setBusy(true);
    setStatus(null);
    try {
      await api<{ id: string }>('/report-problem', {
        body: { title, description, severity: form.severity, phoneNumber, pageUrl: reportedPage() },
      });
      setForm({ ...EMPTY, phoneNumber: phone });
      setStatus({ kind: 'success', text: REPORT_MESSAGES.success });
    } catch (error) {
      setStatus({
        kind: 'error',
        text: REPORT_MESSAGES.failurePrefix + errorMessage(error, 'Could not send the report.'),
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Page title="Report a Problem" lead="Tell us what went wrong. Our support team replies within 12 hours.">
      <form className="card form" onSubmit={submit} noValidate>
        <TextField
          label="Issue Title"
          name="title"
          value={form.title}
          maxLength={REPORT_LIMITS.title}
          onChange={set('title')}
          required
        />
        <label className="field">
          <span>Description</span>
          <textarea
            name="description"
            rows={5}
            value={form.description}
            maxLength={REPORT_LIMITS.description}
            onChange={(e) => set('description')(e.target.value)}
            required
          />
        </label>
        <label className="field">
          <span>Severity</span>
          <select name="severity" value={form.severity} onChange={(e) => set('severity')(e.target.value)}>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {s[0]?.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </label>
        <PhoneField
          label="Phone Number"
          name="phoneNumber"
          value={form.phoneNumber}
          onChange={set('phoneNumber')}
        />
        <StatusMessage status={status} />
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Submitting…' : 'Submit Report'}
        </button>
      </form>
    </Page>
  );
}
