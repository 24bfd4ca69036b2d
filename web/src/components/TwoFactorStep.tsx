import { useState, type FormEvent } from 'react';
import { sendSecondFactor } from '../api/auth.ts';
import { ApiError, errorMessage } from '../api/fetcher.ts';
import type { SessionUser } from '../api/session.ts';
import { ACCOUNT_MESSAGES } from '../../../core/domain/account.ts';
import { StatusMessage, statusFrom, type Status } from './StatusMessage.tsx';

/**
 * The second step of any login when two-factor is on: a code from the authenticator app or a
 * recovery code. `onExpired` runs when the server says the first step must be done again.
 */
export function TwoFactorStep({
  onDone,
  onExpired,
}: {
  onDone: (user: SessionUser) => void | Promise<void>;
  onExpired: () => void;
}) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!code.trim()) {
      setStatus(statusFrom('Please enter the code.'));
      return;
    }
    setBusy(true);
    setStatus(null);
    try {
      await onDone(await sendSecondFactor(code.trim()));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        onExpired();
        return;
      }
      setStatus(statusFrom(errorMessage(error, ACCOUNT_MESSAGES.loginFailed)));
      setBusy(false);
    }
  }

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h2 className="auth-step-title">Two-factor sign-in</h2>
      <p className="muted">{ACCOUNT_MESSAGES.twoFactorPrompt}</p>
      <label className="field">
        <span>Authentication code</span>
        <input
          name="code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          autoComplete="one-time-code"
          inputMode="text"
          maxLength={40}
          autoFocus
          required
        />
      </label>
      <StatusMessage status={status} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Verifying…' : 'Verify'}
      </button>
    </form>
  );
}
