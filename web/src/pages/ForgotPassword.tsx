import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { needsTwoFactor, rememberLogin, type LoginReply } from '../api/auth.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import { postWithProof, puzzleProgressText } from '../api/proofOfWork.ts';
import type { SessionUser } from '../api/session.ts';
import { StatusMessage, statusFrom, type Status } from '../components/StatusMessage.tsx';
import { CodeField, EmailField } from '../components/TextField.tsx';
import { TwoFactorStep } from '../components/TwoFactorStep.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { takeReturnTo } from '../returnTo.ts';
import { ACCOUNT_MESSAGES as M, normaliseEmail } from '../../../core/domain/account.ts';
import { emailProblem } from '../../../core/domain/email.ts';

type Method = 'link' | 'otp';
const METHODS: Array<{ id: Method; label: string }> = [
  { id: 'link', label: 'Reset via Link' },
  { id: 'otp', label: 'Login via OTP' },
];

/** Spec §2 Forgot password, §4 Forgot password, §8 Forgot password. */
export default function ForgotPassword() {
  usePageTitle('Forgot password');
  const [, navigate] = useLocation();
  const [method, setMethod] = useState<Method>('link');
  const [step, setStep] = useState<'request' | 'verify' | 'two-factor'>('request');
  const [email, setEmail] = useState('');
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  function choose(next: Method) {
    // Spec: "Switching method returns to the request step."
    setMethod(next);
    setStep('request');
    setOtp('');
    setStatus(null);
  }

  async function send(event: FormEvent) {
    event.preventDefault();
    const problem = emailProblem(email);
    if (problem) return setStatus(statusFrom(problem));
    setBusy(true);
    setStatus(null);
    try {
      const reply = await postWithProof<{ message: string }>(
        '/auth/forgot-password',
        { email: normaliseEmail(email), method },
        (fraction) => setStatus(statusFrom(puzzleProgressText(fraction), 'info')),
      );
      setStatus(statusFrom(reply.message));
      if (method === 'otp') setStep('verify');
    } catch (error) {
      setStatus(statusFrom(errorMessage(error, M.forgotRequestFailed)));
    } finally {
      setBusy(false);
    }
  }

  async function finish(user: SessionUser) {
    await rememberLogin(user);
    // A code login returns to where the customer was going, like a password login.
    navigate(takeReturnTo('/'));
  }

  async function verify(event: FormEvent) {
    event.preventDefault();
    if (!otp.trim()) return setStatus(statusFrom(M.otpRequired));
    setBusy(true);
    setStatus(null);
    try {
      const reply = await api<LoginReply>('/auth/forgot-password/verify-otp', {
        body: { email: normaliseEmail(email), otp: otp.trim() },
      });
      if (needsTwoFactor(reply)) setStep('two-factor');
      else await finish(reply);
    } catch (error) {
      setStatus(statusFrom(errorMessage(error, M.forgotOtpFailed)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="container page auth-page">
      <div className="card auth-card">
        <h1>Forgot password</h1>
        {step === 'two-factor' ? (
          <TwoFactorStep
            onDone={finish}
            onExpired={() => {
              setStep('request');
              setStatus(statusFrom('Your sign-in has expired. Please start again.'));
            }}
          />
        ) : (
          <>
            <fieldset className="method-choice">
              <legend>How do you want to get back in?</legend>
              {METHODS.map((m) => (
                <label key={m.id} className={method === m.id ? 'selected' : undefined}>
                  <input
                    type="radio"
                    name="method"
                    value={m.id}
                    checked={method === m.id}
                    onChange={() => choose(m.id)}
                  />
                  {m.label}
                </label>
              ))}
            </fieldset>
            {step === 'request' ? (
              <form className="auth-form" onSubmit={send} noValidate>
                <p className="muted">
                  {method === 'link'
                    ? 'We will email you a link to set a new password. It works once, for 30 minutes.'
                    : 'We will email you a 6-digit code to log in with. It works for 10 minutes.'}
                </p>
                <EmailField value={email} onChange={setEmail} />
                <StatusMessage status={status} />
                <button type="submit" className="button primary" disabled={busy}>
                  {busy ? 'Sending…' : 'Send'}
                </button>
              </form>
            ) : (
              <form className="auth-form" onSubmit={verify} noValidate>
                <StatusMessage status={status} />
                <CodeField label="OTP" value={otp} onChange={setOtp} autoFocus required />
                <button type="submit" className="button primary" disabled={busy}>
                  {busy ? 'Verifying…' : 'Verify & Login'}
                </button>
              </form>
            )}
          </>
        )}
        <p className="auth-switch">
          Remembered it? <Link href="/login">Login</Link>
        </p>
      </div>
    </div>
  );
}
