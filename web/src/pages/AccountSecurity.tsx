import { useState, type FormEvent } from 'react';
import { useTwoFactorStatus } from '../api/auth.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import { Page } from '../components/Layout.tsx';
import { PasswordChangeCard } from '../components/PasswordChangeCard.tsx';
import { RequireUser } from '../components/RequireUser.tsx';
import { StatusMessage, statusFrom, type Status } from '../components/StatusMessage.tsx';
import { CodeField } from '../components/TextField.tsx';
import { usePageTitle } from '../components/pageTitle.ts';

/**
 * Two-factor sign-in (beyond the spec): turn it on with an authenticator app (QR code or the
 * key typed in), confirm with a code, keep the ten recovery codes shown once; turn it off with
 * a current code. Reached from the profile dropdown ("Security"), with the password card above.
 */

type Setup = { secret: string; otpauthUrl: string; qrCode: string };

export default function AccountSecurity() {
  usePageTitle('Security');
  return (
    <RequireUser>
      <Page title="Security" lead="Your password, and a second step at sign-in.">
        <div className="security-cards">
          <PasswordChangeCard />
          <TwoFactorPanel />
        </div>
      </Page>
    </RequireUser>
  );
}

function TwoFactorPanel() {
  const { data, error, mutate } = useTwoFactorStatus();
  const [setup, setSetup] = useState<Setup | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  if (error)
    return <p className="notice error">{errorMessage(error, 'Could not load your security settings.')}</p>;
  if (!data) return <p className="loading">Loading…</p>;

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setStatus(null);
    try {
      await action();
    } catch (e) {
      setStatus(statusFrom(errorMessage(e, 'Something went wrong')));
    } finally {
      setBusy(false);
    }
  }

  const start = () =>
    run(async () => {
      setSetup(await api<Setup>('/user/two-factor/setup', { method: 'POST' }));
      setCode('');
    });

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) return setStatus(statusFrom('Please enter the code.'));
    return run(async () => {
      const reply = await api<{ recoveryCodes: string[] }>('/user/two-factor/enable', {
        body: { code: code.trim() },
      });
      setRecoveryCodes(reply.recoveryCodes);
      setSetup(null);
      setCode('');
    });
  };

  const turnOff = (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) return setStatus(statusFrom('Please enter the code.'));
    return run(async () => {
      const reply = await api<{ message: string }>('/user/two-factor/disable', {
        body: { code: code.trim() },
      });
      setCode('');
      await mutate();
      setStatus(statusFrom(reply.message, 'success'));
    });
  };

  if (recoveryCodes) {
    return (
      <section className="card security-card" aria-labelledby="recovery-title">
        <h2 id="recovery-title">Two-factor sign-in is on</h2>
        <p>
          Save these recovery codes somewhere safe. Each one works once if you lose your phone.{' '}
          <strong>They are shown only now.</strong>
        </p>
        <ol className="recovery-codes" aria-label="Recovery codes">
          {recoveryCodes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ol>
        <RecoveryCodeActions codes={recoveryCodes} />
        <button
          type="button"
          className="button primary"
          onClick={async () => {
            setRecoveryCodes(null);
            await mutate();
          }}
        >
          I have saved my recovery codes
        </button>
      </section>
    );
  }

  if (data.enabled) {
    return (
      <section className="card security-card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in is on</h2>
        <p>
          Every login asks for a code from your authenticator app. You have {data.recoveryCodesLeft} unused
          recovery code{data.recoveryCodesLeft === 1 ? '' : 's'}.
        </p>
        <form className="auth-form" onSubmit={turnOff} noValidate>
          <label className="field">
            <span>Code to turn it off</span>
            <input
              name="code"
              autoComplete="one-time-code"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              maxLength={40}
            />
          </label>
          <StatusMessage status={status} />
          <button type="submit" className="button danger" disabled={busy}>
            Turn off two-factor sign-in
          </button>
        </form>
      </section>
    );
  }

  if (setup) {
    return (
      <section className="card security-card" aria-labelledby="setup-title">
        <h2 id="setup-title">Set up your authenticator app</h2>
        <ol className="setup-steps">
          <li>Open an authenticator app (Google Authenticator, Microsoft Authenticator, Authy…).</li>
          <li>Scan this QR code, or type the key below.</li>
          <li>Enter the 6-digit code the app shows.</li>
        </ol>
        <div className="totp-setup">
          <img
            src={setup.qrCode}
            alt="QR code for your authenticator app"
            width={200}
            height={200}
            className="totp-qr"
          />
          <p className="totp-key">
            <span>Key</span>
            <code data-testid="totp-secret">{setup.secret}</code>
          </p>
        </div>
        <form className="auth-form" onSubmit={confirm} noValidate>
          <CodeField label="Code from the app" name="code" value={code} onChange={setCode} />
          <StatusMessage status={status} />
          <div className="button-row">
            <button type="submit" className="button primary" disabled={busy}>
              Confirm
            </button>
            <button type="button" className="button" onClick={() => setSetup(null)}>
              Cancel
            </button>
          </div>
        </form>
      </section>
    );
  }

  return (
    <section className="card security-card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in is off</h2>
      <p>
        Add a second step to every login: a code from an authenticator app on your phone. Someone who learns
        your password still cannot get in.
      </p>
      <StatusMessage status={status} />
      <button type="button" className="button primary" onClick={start} disabled={busy}>
        Turn on two-factor sign-in
      </button>
    </section>
  );
}

/** Copy or download the recovery codes, so saving them takes one step, not ten selections. */
function RecoveryCodeActions({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const text = `Legend Cloud recovery codes (each works once)\n\n${codes.join('\n')}\n`;

  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'legend-cloud-recovery-codes.txt';
    link.click();
    // Let the download start before the address is released.
    window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  async function copy() {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied('copied');
    } catch {
      // No clipboard permission (or an old browser): the download still works; say so.
      setCopied('failed');
    }
  }

  return (
    <div className="button-row recovery-actions">
      <button type="button" className="button small" onClick={copy}>
        Copy codes
      </button>
      <button type="button" className="button small" onClick={download}>
        Download codes
      </button>
      <span role="status" className="muted">
        {copied === 'copied'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Could not copy here: download them instead.'
            : ''}
      </span>
    </div>
  );
}
