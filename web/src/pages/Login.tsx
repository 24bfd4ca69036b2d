import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { needsTwoFactor, rememberLogin, type LoginReply } from '../api/auth.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import { useSession, type SessionUser } from '../api/session.ts';
import { GoogleSignIn } from '../components/GoogleSignIn.tsx';
import { PasswordField } from '../components/PasswordField.tsx';
import { StatusMessage, statusFrom, type Status } from '../components/StatusMessage.tsx';
import { EmailField } from '../components/TextField.tsx';
import { TwoFactorStep } from '../components/TwoFactorStep.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { forgetReturnTo, rememberReturnTo, safeReturnPath, takeReturnTo } from '../returnTo.ts';
import { ACCOUNT_MESSAGES as M, normaliseEmail } from '../../../core/domain/account.ts';
import { PLAN_CHOICE_MESSAGES } from '../../../core/domain/subscription.ts';
import { TRIAL_MESSAGES } from '../../../core/domain/trial.ts';
import { useSessionEndReason } from '../api/sessionEnded.ts';

/** Spec §2 Login, §4 Login, §8 Login. */
export default function Login() {
  usePageTitle('Login');
  const session = useSession();
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [step, setStep] = useState<'password' | 'two-factor'>('password');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);
  const leaving = useRef(false);
  // Where the customer was going (?next=, a path on this site); kept for Register and Google too.
  const next = safeReturnPath(new URLSearchParams(useSearch()).get('next'));
  const [reason] = useState(() => loginReason(next));
  // Signed out from elsewhere by a password change: said here too, where the new password goes.
  const endReason = useSessionEndReason();
  useEffect(() => {
    if (next) rememberReturnTo(next);
    else forgetReturnTo();
  }, [next]);

  // Spec: "Redirects to /dashboard if the session check returns an email" (not while we log in);
  // to where they were going, when they were going somewhere.
  useEffect(() => {
    if (session.status === 'user' && !leaving.current)
      navigate(takeReturnTo('/dashboard'), { replace: true });
  }, [session.status, navigate]);

  async function finish(user: SessionUser) {
    leaving.current = true;
    await rememberLogin(user);
    navigate(takeReturnTo('/'));
  }

  async function handleReply(reply: LoginReply) {
    if (needsTwoFactor(reply)) {
      setStatus(null);
      setStep('two-factor');
      return;
    }
    await finish(reply);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!email.trim() || !password) {
      setStatus(statusFrom(M.loginRequired));
      return;
    }
    setBusy(true);
    setStatus(null);
    try {
      await handleReply(
        await api<LoginReply>('/auth/login', { body: { email: normaliseEmail(email), password } }),
      );
    } catch (error) {
      setStatus(statusFrom(errorMessage(error, M.loginFailed)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="container page auth-page">
      <div className="card auth-card">
        <h1>Login</h1>
        {step === 'two-factor' ? (
          <TwoFactorStep
            onDone={finish}
            onExpired={() => {
              setStep('password');
              setStatus(statusFrom('Your sign-in has expired. Please log in again.'));
            }}
          />
        ) : (
          <>
            {endReason === 'password-changed' ? (
              <p className="notice warning auth-lead" role="status">
                {M.signedOutPasswordChanged}
              </p>
            ) : reason ? (
              <p className="notice info auth-lead" role="status">
                {reason}
              </p>
            ) : (
              <p className="muted auth-lead">Welcome back. Log in to reach your cloud PC.</p>
            )}
            <form className="auth-form" onSubmit={submit} noValidate>
              <EmailField value={email} onChange={setEmail} />
              <PasswordField
                label="Password"
                value={password}
                onChange={setPassword}
                autoComplete="current-password"
              />
              <p className="auth-aside">
                <Link href="/forgot-password">Forgot password?</Link>
              </p>
              <StatusMessage status={status} />
              <button type="submit" className="button primary" disabled={busy}>
                {busy ? 'Logging in…' : 'Login'}
              </button>
            </form>
            <GoogleSignIn onError={(message) => setStatus(statusFrom(message))} />
            <p className="auth-switch">
              New to Legend Cloud?{' '}
              <Link href={next ? `/register?next=${encodeURIComponent(next)}` : '/register'}>Register</Link>
            </p>
          </>
        )}
      </div>
    </div>
  );
}

/** Why the customer is asked to log in, when they came from somewhere (no native alert). */
function loginReason(next: string | null): string | null {
  if (!next) return null;
  const path = next.split(/[?#]/)[0];
  if (path === '/trial') return `${TRIAL_MESSAGES.loginRequired}. Your trial choice is kept for you.`;
  if (path === '/select-vm') return `${PLAN_CHOICE_MESSAGES.loginRequired} Your plan choice is kept for you.`;
  return 'Please login first. You will go straight back to where you were.';
}
