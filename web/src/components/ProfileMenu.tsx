import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { forgetLogin, logOut } from '../api/auth.ts';
import { DeleteAccountDialog } from './DeleteAccountDialog.tsx';
import { api, errorMessage } from '../api/fetcher.ts';
import { updateSessionUser, useSession, type SessionUser } from '../api/session.ts';
import { writeStored } from '../storage.ts';
import { PhoneEditor } from './PhoneEditor.tsx';
import { ACCOUNT_MESSAGES as M, NAME_MAX_LENGTH } from '../../../core/domain/account.ts';

/**
 * The profile dropdown of spec §2: name and email, edit the name (save or cancel; cancel
 * restores), Log Out, Delete Account, Feedback and Report a Problem; plus Security (two-factor
 * sign-in). Rendered by the header for logged-in users as "My Profile".
 */

type Profile = { name: string; email: string; phone: string | null };

export function ProfileMenu() {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const [location] = useLocation();
  const root = useRef<HTMLDivElement>(null);
  const panelId = useId();

  // A navigation, a click elsewhere or Escape closes it.
  useEffect(() => setOpen(false), [location]);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  if (session.status !== 'user') return null;
  return (
    <div className="profile-menu" ref={root}>
      <button
        type="button"
        className="profile-toggle"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((v) => !v)}
      >
        My Profile
        <span aria-hidden="true" className="caret" />
      </button>
      {open && (
        <div id={panelId} className="profile-panel" role="region" aria-label="Profile">
          <ProfilePanel user={session.user} />
        </div>
      )}
    </div>
  );
}

function ProfilePanel({ user }: { user: SessionUser }) {
  const [, navigate] = useLocation();
  const [profile, setProfile] = useState<Profile>({ name: user.name, email: user.email, phone: user.phone });
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(user.name);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  // The spec's profile call (GET /user/profile), identified by the session rather than an
  // email in the address; the session's values show meanwhile.
  useEffect(() => {
    let live = true;
    api<Profile>('/user/profile')
      .then((p) => {
        if (!live) return;
        setProfile(p);
        setName((current) => (editing ? current : p.name));
      })
      .catch((error: unknown) => {
        // The session's copy stays on screen; the failure is logged, as other reads' are (spec §8).
        console.warn('profile fetch failed', error);
      });
    return () => {
      live = false;
    };
    // Once per opening of the dropdown: `editing` is read only to keep what is being typed.
  }, [user.email]);

  function startEditing() {
    setName(profile.name);
    setMessage(null);
    setEditing(true);
  }

  function cancel() {
    // Spec: "cancel restores the name".
    setName(profile.name);
    setMessage(null);
    setEditing(false);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setMessage({ kind: 'error', text: M.nameEmpty });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const saved = await api<Profile>('/user/profile', {
        method: 'PUT',
        body: { email: profile.email.toLowerCase(), name: trimmed },
      });
      setProfile(saved);
      setName(saved.name);
      setEditing(false);
      writeStored({ name: saved.name });
      await updateSessionUser({ ...user, name: saved.name });
    } catch (error) {
      setMessage({ kind: 'error', text: errorMessage(error, M.unknownError) });
    } finally {
      setBusy(false);
    }
  }

  async function doLogOut() {
    setBusy(true);
    setMessage(null);
    try {
      await logOut();
      navigate('/');
    } catch {
      setMessage({ kind: 'error', text: M.logoutFailed });
    } finally {
      setBusy(false);
    }
  }

  const [deleting, setDeleting] = useState(false);

  async function deleted() {
    await forgetLogin({ everything: true });
    navigate('/');
  }

  return (
    <>
      {editing ? (
        <form className="profile-edit" onSubmit={save} noValidate>
          <label className="field">
            <span>Name</span>
            <input
              name="name"
              value={name}
              maxLength={NAME_MAX_LENGTH}
              onChange={(e) => {
                setName(e.target.value);
                setMessage(null);
              }}
              autoComplete="name"
              autoFocus
            />
          </label>
          <div className="button-row">
            <button type="submit" className="button primary small" disabled={busy}>
              Save
            </button>
            <button type="button" className="button small" onClick={cancel} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="profile-identity">
          <p className="profile-name" data-testid="profile-name">
            {profile.name}
          </p>
          <button type="button" className="link-button" onClick={startEditing}>
            Edit name
          </button>
        </div>
      )}
      <p className="profile-email muted" data-testid="profile-email">
        {profile.email}
      </p>
      <PhoneEditor user={user} label="Phone (for PayU)" />
      {message && (
        <p className={`notice ${message.kind}`} role="alert">
          {message.text}
        </p>
      )}
      <ul className="profile-links">
        <li>
          <Link href="/dashboard">Dashboard</Link>
        </li>
        <li>
          <Link href="/history">Invoices &amp; plan history</Link>
        </li>
        <li>
          <Link href="/account/security">Security</Link>
        </li>
        <li>
          <Link href="/contact-us">Feedback</Link>
        </li>
        <li>
          <Link href="/report-problem">Report a Problem</Link>
        </li>
      </ul>
      <div className="profile-actions">
        <button type="button" className="button small" onClick={doLogOut} disabled={busy}>
          Log Out
        </button>
        <button
          type="button"
          className="button danger small"
          onClick={() => setDeleting(true)}
          disabled={busy}
        >
          Delete Account
        </button>
      </div>
      <DeleteAccountDialog
        open={deleting}
        email={profile.email}
        onClose={() => setDeleting(false)}
        onDeleted={deleted}
      />
    </>
  );
}
