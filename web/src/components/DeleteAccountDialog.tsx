import { useState, type FormEvent } from 'react';
import { useDeletionPreview } from '../api/account.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import { Dialog } from './Dialog.tsx';
import { ACCOUNT_MESSAGES as M, normaliseEmail } from '../../../core/domain/account.ts';
import { formatLongDate } from '../../../core/domain/time.ts';
import { DELETION_WORDING as W } from '../../../core/domain/accountDeletion.ts';

/**
 * Account deletion (spec §4 "Delete account"), in the product's own dialog: what is destroyed
 * (the machine terminated, its disk and snapshots deleted, the plan's remaining hours) and what
 * is kept (invoices, minimised: core/domain/accountDeletion.ts says why and how), and the
 * customer types their email to confirm. The server refuses any other email (403) and mails a
 * confirmation. What it lists comes from `GET /api/user/deletion`: the facts the deletion itself
 * reads, the machine named by the plan it was made for in any state (after a refund too).
 * However long the list, the confirmation buttons stay in view at the dialog's foot.
 */

export function DeleteAccountDialog({
  open,
  email,
  onClose,
  onDeleted,
}: {
  open: boolean;
  email: string;
  onClose: () => void;
  onDeleted: () => void | Promise<void>;
}) {
  return (
    <Dialog open={open} title="Delete your account?" onClose={onClose} className="delete-account">
      <DeleteAccountForm email={email} onClose={onClose} onDeleted={onDeleted} />
    </Dialog>
  );
}

function DeleteAccountForm({
  email,
  onClose,
  onDeleted,
}: {
  email: string;
  onClose: () => void;
  onDeleted: () => void | Promise<void>;
}) {
  const { data: facts, error } = useDeletionPreview();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const matches = normaliseEmail(typed) === normaliseEmail(email);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!matches) {
      setProblem('Type your email address exactly as shown to confirm.');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await api('/user', { method: 'DELETE', body: { email: normaliseEmail(typed) } });
      await onDeleted();
    } catch (error) {
      setProblem(errorMessage(error, M.deleteFailed));
      setBusy(false);
    }
  }

  return (
    <form className="modal-form" onSubmit={submit} noValidate>
      <p>This cannot be undone. Deleting your account:</p>
      <ul data-testid="deletion-destroys">
        {!facts ? (
          <li>{error ? errorMessage(error, 'Could not check your cloud PC.') : 'Checking your cloud PC…'}</li>
        ) : facts.hasMachine ? (
          <>
            <li data-item="machine">
              <strong>{facts.machine}</strong> Nothing of yours keeps running or is billed.
            </li>
            <li data-item="disk">
              <strong>Deletes its disk</strong>, with every file on it.
            </li>
          </>
        ) : (
          <li data-item="machine">{W.noMachine}</li>
        )}
        <li data-item="snapshots">
          <strong>Deletes any snapshot of its disk</strong> we keep after a plan ends.
        </li>
        {facts?.plan && (
          <li data-item="plan">
            <strong>Gives up your {facts.plan.name} plan</strong> and the {facts.plan.hoursLeft} left on it
            {facts.plan.expiresAt && <> (valid until {formatLongDate(facts.plan.expiresAt)})</>}. Nothing is
            refunded.
          </li>
        )}
        <li data-item="personal">
          <strong>Erases your sign-in, name and phone number</strong> and signs you out everywhere.
        </li>
      </ul>
      <p>Kept:</p>
      <ul data-testid="deletion-keeps">
        <li data-item="invoices" className="kept">
          <strong>{W.invoicesKept}</strong> {W.invoicesMinimised}
        </li>
        {facts?.trialPhoneKept && (
          <li data-item="trial-phone" className="kept">
            {W.trialPhone}
          </li>
        )}
      </ul>
      <p>We will email a confirmation to {email}.</p>
      <label className="field">
        <span>
          Type <strong>{email}</strong> to confirm
        </span>
        <input
          name="confirm-email"
          type="email"
          value={typed}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => {
            setTyped(e.target.value);
            setProblem(null);
          }}
          aria-invalid={problem ? true : undefined}
        />
      </label>
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
      <div className="modal-actions">
        <button type="button" className="button" onClick={onClose} disabled={busy}>
          Keep my account
        </button>
        <button type="submit" className="button danger" disabled={busy || !matches}>
          {busy ? 'Deleting…' : 'Delete my account'}
        </button>
      </div>
    </form>
  );
}
