import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { rememberLogin } from '../api/auth.ts';
import { ApiError, api, errorMessage } from '../api/fetcher.ts';
import { postWithProof, puzzleProgressText } from '../api/proofOfWork.ts';
import type { SessionUser } from '../api/session.ts';
import { GoogleSignIn } from '../components/GoogleSignIn.tsx';
import { PasswordChecklist } from '../components/PasswordChecklist.tsx';
import { PasswordField } from '../components/PasswordField.tsx';
import { StatusMessage, statusFrom, type Status } from '../components/StatusMessage.tsx';
import { CodeField, EmailField, PhoneField, TextField } from '../components/TextField.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { forgetReturnTo, rememberReturnTo, safeReturnPath, takeReturnTo } from '../returnTo.ts';
import { ACCOUNT_MESSAGES as M, NAME_MAX_LENGTH } from '../../../core/domain/account.ts';
import { checkEmail } from '../../../core/domain/email.ts';
import { isValidPassword, passwordProblem } from '../../../core/domain/password.ts';
import { PHONE_MESSAGE, phoneDigits } from '../../../core/domain/phone.ts';

/**
 * Spec §2 Register: the sign-up form at /register, then the code step at /register/otp (the
 * same screen). The form lives outside the component so the browser's back button from the
 * code step finds it filled in; name, email and phone (never the password) are also kept in
 * this tab's sessionStorage, so a reload of either step keeps them.
 */

type Draft = { name: string; email: string; phone: string; password: string };
const EMPTY: Draft = { name: '', email: '', phone: '', password: '' };
const DRAFT_KEY = 'registerDraft';
let draft: Draft = loadDraft();
let attemptedOnce = false;

function loadDraft(): Draft {
  try {
    const raw = typeof window === 'undefined' ? null : sessionStorage.getItem(DRAFT_KEY);
    if (!raw) return EMPTY;
    const saved = JSON.parse(raw) as Partial<Draft>;
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return { name: text(saved.name), email: text(saved.email), phone: text(saved.phone), password: '' };
  } catch {
    return EMPTY;
  }
}

function saveDraft(next: Draft | null): void {
  try {
    if (next) {
      const { name, email, phone } = next;
      sessionStorage.setItem(DRAFT_KEY, JSON.stringify({ name, email, phone }));
    } else sessionStorage.removeItem(DRAFT_KEY);
  } catch {
    // without storage the in-memory draft still serves this page's life
  }
}

export default function Register() {
  const [location] = useLocation();
  usePageTitle(location === '/register/otp' ? 'Confirm your email' : 'Register');
  return (
    <div className="container page auth-page">
      <div className="card auth-card">
        <h1>Register</h1>
        {location === '/register/otp' ? <CodeStep /> : <SignUpForm />}
      </div>
    </div>
  );
}

function SignUpForm() {
  const [, navigate] = useLocation();
  const [form, setForm] = useState<Draft>(draft);
  const [attempted, setAttempted] = useState(attemptedOnce);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);
  const next = safeReturnPath(new URLSearchParams(useSearch()).get('next'));

  // Where the customer was going before signing up, if anywhere (a stale one is dropped).
  useEffect(() => {
    if (next) rememberReturnTo(next);
    else if (!draft.email) forgetReturnTo();
  }, [next]);

  // Spec: "The first browser history entry is rewritten to the landing page", so back from a
  // sign-up opened by a link goes to our home page, not out of the site.
  useEffect(() => {
    if (window.history.length === 1) {
      const here = window.location.pathname + window.location.search;
      window.history.replaceState(null, '', '/');
      window.history.pushState(null, '', here);
    }
  }, []);

  const set = (field: keyof Draft) => (value: string) =>
    setForm((f) => {
      const updated = { ...f, [field]: value };
      draft = updated;
      saveDraft(updated);
      return updated;
    });

  async function submit(event: FormEvent) {
    event.preventDefault();
    attemptedOnce = true;
    setAttempted(true);
    const name = form.name.trim();
    if (!name || !form.email.trim() || !form.phone.trim() || !form.password)
      return setStatus(statusFrom('Please fill in all the fields.'));
    const checked = checkEmail(form.email);
    if (!checked.ok) return setStatus(statusFrom(checked.message));
    const email = checked.email;
    const phone = phoneDigits(form.phone);
    if (phone === null) return setStatus(statusFrom(PHONE_MESSAGE));
    const passwordIssue = passwordProblem(form.password);
    if (passwordIssue) return setStatus(statusFrom(passwordIssue));
    setBusy(true);
    setStatus(null);
    try {
      await postWithProof('/auth/register', { name, email, phone, password: form.password }, (fraction) =>
        setStatus(statusFrom(puzzleProgressText(fraction), 'info')),
      );
      draft = { ...form, name, email, phone };
      saveDraft(draft);
      navigate('/register/otp');
    } catch (error) {
      const fallback = error instanceof ApiError && error.status > 0 ? M.somethingWrong : M.serverUnreachable;
      setStatus(
        statusFrom(
          error instanceof ApiError && error.status === 409 ? M.userExists : errorMessage(error, fallback),
        ),
      );
      setBusy(false);
    }
  }

  return (
    <>
      <p className="muted auth-lead">Create your account. We will email you a code to confirm it.</p>
      <form className="auth-form" onSubmit={submit} noValidate>
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          maxLength={NAME_MAX_LENGTH}
          value={form.name}
          onChange={set('name')}
          required
        />
        <EmailField value={form.email} onChange={set('email')} />
        <PhoneField label="Phone" name="phone" value={form.phone} onChange={set('phone')} />
        <PasswordField
          label="Password"
          value={form.password}
          onChange={set('password')}
          autoComplete="new-password"
          describedBy={attempted || form.password !== '' ? 'password-rules' : undefined}
          invalid={attempted && !isValidPassword(form.password)}
        />
        {/* The rules show as the customer types (the spec shows them after a failed submit). */}
        {(attempted || form.password !== '') && (
          <PasswordChecklist password={form.password} id="password-rules" />
        )}
        <StatusMessage status={status} />
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Sending code…' : 'Register'}
        </button>
      </form>
      <GoogleSignIn onError={(message) => setStatus(statusFrom(message))} />
      <p className="auth-switch">
        Already have an account? <Link href="/login">Login</Link>
      </p>
    </>
  );
}

function CodeStep() {
  const [, navigate] = useLocation();
  const email = draft.email;
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  useEffect(() => {
    if (!email) navigate('/register', { replace: true });
  }, [email, navigate]);

  async function verify(event: FormEvent) {
    event.preventDefault();
    if (!otp.trim()) return setStatus(statusFrom(M.otpRequired));
    setBusy(true);
    setStatus(null);
    try {
      // The spec's payload, minus the password: the server kept its hash at sign-up.
      const user = await api<SessionUser>('/auth/verify-otp', {
        body: { name: draft.name, email, phone: draft.phone, otp: otp.trim() },
      });
      draft = EMPTY;
      attemptedOnce = false;
      saveDraft(null);
      await rememberLogin(user);
      navigate(takeReturnTo('/'), { replace: true });
    } catch (error) {
      setStatus(statusFrom(errorMessage(error, M.verifyFailed)));
      setBusy(false);
    }
  }

  async function resend() {
    setStatus(null);
    try {
      await postWithProof('/auth/resend-otp', { email }, (fraction) =>
        setStatus(statusFrom(puzzleProgressText(fraction), 'info')),
      );
      setStatus(statusFrom(M.resendSuccess, 'success'));
    } catch (error) {
      setStatus(statusFrom(errorMessage(error, M.resendFailed)));
    }
  }

  return (
    <>
      <p className="auth-lead">
        We sent a 6-digit code to <strong>{email}</strong>. Enter it to finish signing up. It works for 10
        minutes.
      </p>
      <p className="muted">
        Asked for another code? Any code we sent you works until it expires or one of them is used.
      </p>
      <form className="auth-form" onSubmit={verify} noValidate>
        <CodeField label="OTP" pattern="[0-9]*" value={otp} onChange={setOtp} autoFocus required />
        <StatusMessage status={status} />
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Verifying…' : 'Verify'}
        </button>
      </form>
      <p className="auth-switch">
        Did not get it?{' '}
        <button type="button" className="link-button" onClick={resend}>
          Resend OTP
        </button>
      </p>
      <p className="auth-switch">
        <Link href="/register">Change my details</Link>
      </p>
    </>
  );
}
