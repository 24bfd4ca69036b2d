import { useState } from 'react';
import { mintDesktopLink } from '../api/desktop.ts';
import { refreshDashboard } from '../api/vm.ts';
import { ApiError } from '../api/fetcher.ts';
import { DESKTOP_MESSAGES } from '../../../core/domain/desktop.ts';
import { VM_MESSAGES } from '../../../core/domain/vm.ts';

/**
 * "Open in browser": asks for a one-time link to DCV's web client on the machine and opens it
 * in a new tab. The tab is opened at the click (a tab opened after the request would meet the
 * pop-up blocker) and sent to the link once it arrives; if the browser blocked it anyway the link
 * is shown to click, and a failure closes the tab and says why here, never in a native dialog.
 */
export function BrowserDesktop({ available }: { available: boolean }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [blockedLink, setBlockedLink] = useState<string | null>(null);

  async function open() {
    setBusy(true);
    setProblem(null);
    setBlockedLink(null);
    const tab = window.open('', '_blank');
    // The desktop's page must not reach back into ours.
    if (tab) tab.opener = null;
    try {
      const { url } = await mintDesktopLink();
      if (tab && !tab.closed) tab.location.href = url;
      else setBlockedLink(url);
    } catch (error) {
      tab?.close();
      // A refusal usually means the machine changed (it stopped): show what it is now.
      void refreshDashboard();
      setProblem(
        error instanceof ApiError && error.message && error.status >= 400 && error.status < 500
          ? error.message
          : DESKTOP_MESSAGES.failed,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      {available ? (
        <button type="button" className="button primary small" onClick={open} disabled={busy}>
          {busy ? DESKTOP_MESSAGES.opening : DESKTOP_MESSAGES.open}
        </button>
      ) : (
        <span className="download-pending">{VM_MESSAGES.rdpWhenRunning}</span>
      )}
      <p className="muted download-hint">{DESKTOP_MESSAGES.hint}</p>
      {blockedLink && (
        <p className="notice warning" role="status">
          {DESKTOP_MESSAGES.popupBlocked}{' '}
          <a href={blockedLink} target="_blank" rel="noopener noreferrer">
            Open your desktop
          </a>
        </p>
      )}
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
