import { useState, type FormEvent } from 'react';
import { usePasswordStatus } from '../api/account.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import { PasswordChecklist } from './PasswordChecklist.tsx';
import { PasswordField } from './PasswordField.tsx';
import { StatusMessage, statusFrom, type Status } from './StatusMessage.tsx';
import {
  PASSWORD_CHANGE_MESSAGES as M,
  passwordChangeNeedsCurrent,
  passwordProblem,
} from '../../../core/domain/password.ts';

/**
 * The Security page's password card: change the password (the current one first), or, on an
 * account made with Google, set a first one. The server signs out every other device and mails
 * the owner; this browser stays signed in.
 */
export function PasswordChangeCard() {
  const { data, error, mutate } = usePasswordStatus();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  if (error)
    return <p className="notice error">{errorMessage(error, 'Could not load your password settings.')}</p>;
  if (!data) return <p className="loading">Loading…</p>;
  const needsCurrent = passwordChangeNeedsCurrent(data);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (needsCurrent && !current) return setStatus(statusFrom(M.currentRequired));
    if (!next) return setStatus(statusFrom(M.newRequired));
    const problem = passwordProblem(next);
    if (problem) return setStatus(statusFrom(problem));
    setBusy(true);
    setStatus(null);
    try {
      const reply = await api<{ message: string }>('/user/password', {
        body: needsCurrent ? { currentPassword: current, newPassword: next } : { newPassword: next },
      });
      setCurrent('');
      setNext('');
      setStatus(statusFrom(reply.message, 'success'));
      await mutate({ hasPassword: true }, { revalidate: false });
    } catch (failure) {
      setStatus(statusFrom(errorMessage(failure, 'Could not change your password. Please try again.')));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card security-card" aria-labelledby="password-title">
      <h2 id="password-title">{needsCurrent ? 'Change your password' : 'Set a password'}</h2>
      <p>
        {needsCurrent
          ? 'Every other device signed in to your account is signed out when you change it, and we email you.'
          : 'You signed up with Google. Set a password to also log in with your email; every other device is signed out, and we email you.'}
      </p>
      <form className="auth-form" onSubmit={submit} noValidate>
        {needsCurrent && (
          <PasswordField
            label="Current password"
            name="current-password"
            value={current}
            onChange={setCurrent}
            autoComplete="current-password"
          />
        )}
        <PasswordField
          label="New password"
          name="new-password"
          value={next}
          onChange={setNext}
          autoComplete="new-password"
          describedBy={next ? 'new-password-rules' : undefined}
          invalid={next !== '' && passwordProblem(next) !== null}
        />
        {/* The rules tick off as the new password is typed (no row of crosses before that). */}
        {next && <PasswordChecklist password={next} id="new-password-rules" />}
        <StatusMessage status={status} />
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Saving…' : needsCurrent ? 'Change password' : 'Set password'}
        </button>
      </form>
    </section>
  );
}
