import { useEffect, useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { forgetLogin } from '../api/auth.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import { PasswordChecklist } from '../components/PasswordChecklist.tsx';
import { PasswordField } from '../components/PasswordField.tsx';
import { StatusMessage, statusFrom, type Status } from '../components/StatusMessage.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { ACCOUNT_MESSAGES as M } from '../../../core/domain/account.ts';

/** After a successful reset, the login page follows (spec §4, §9: 2 seconds). */
const REDIRECT_MS = 2000;

/** Spec §2 Reset password, §5, §8: /reset-password?token=…&email=… */
export default function ResetPassword() {
  usePageTitle('Reset password');
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const token = params.get('token') ?? '';
  const email = params.get('email') ?? '';
  const [password, setPassword] = useState('');
  const [attempted, setAttempted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [status, setStatus] = useState<Status>(token && email ? null : statusFrom(M.resetMissing));

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => navigate('/login'), REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    if (!token || !email) return setStatus(statusFrom(M.resetMissing));
    if (!password) return setStatus(statusFrom(M.resetEmpty));
    setBusy(true);
    setStatus(null);
    try {
      const reply = await api<{ message: string }>('/auth/reset-password', {
        body: { email, token, newPassword: password },
      });
      // Every session of the account ended on the server; forget this browser's too.
      await forgetLogin();
      setStatus(statusFrom(reply.message, 'success'));
      setDone(true);
    } catch (error) {
      setStatus(statusFrom(errorMessage(error, M.resetFailed)));
      setBusy(false);
    }
  }

  return (
    <div className="container page auth-page">
      <div className="card auth-card">
        <h1>Reset password</h1>
        {email && <p className="muted auth-lead">Choose a new password for {email}.</p>}
        <form className="auth-form" onSubmit={submit} noValidate>
          <PasswordField
            label="New password"
            name="newPassword"
            value={password}
            onChange={setPassword}
            autoComplete="new-password"
            describedBy={attempted || password !== '' ? 'password-rules' : undefined}
          />
          {(attempted || password !== '') && !done && (
            <PasswordChecklist password={password} id="password-rules" />
          )}
          <StatusMessage status={status} />
          <button type="submit" className="button primary" disabled={busy || done}>
            {busy ? 'Saving…' : 'Set New Password'}
          </button>
        </form>
      </div>
    </div>
  );
}
