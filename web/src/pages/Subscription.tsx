import { useEffect, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, errorMessage } from '../api/fetcher.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { NEWSLETTER_MESSAGES } from '../../../core/domain/publicSite.ts';

type View =
  | { kind: 'checking' }
  | { kind: 'ready' }
  | { kind: 'busy' }
  | { kind: 'done'; text: string }
  | { kind: 'error'; text: string };

/**
 * `/subscribe/confirm?token=` and `/subscribe/unsubscribe?token=`, the pages the blog mails
 * link to. They act only when the person presses the button: mail scanners open links, and
 * must neither subscribe nor unsubscribe anyone.
 */
export default function Subscription() {
  const [location] = useLocation();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const confirming = location.endsWith('/confirm');
  usePageTitle(confirming ? 'Confirm subscription' : 'Unsubscribe');
  const invalid = confirming ? NEWSLETTER_MESSAGES.confirmInvalid : NEWSLETTER_MESSAGES.unsubscribeInvalid;
  const [view, setView] = useState<View>(() =>
    !token ? { kind: 'error', text: invalid } : confirming ? { kind: 'checking' } : { kind: 'ready' },
  );

  // A confirm link is checked up front so an expired one says so before anyone presses anything.
  useEffect(() => {
    if (!confirming || !token) return;
    const controller = new AbortController();
    api(`/subscribe/confirm?token=${encodeURIComponent(token)}`, { signal: controller.signal })
      .then(() => setView({ kind: 'ready' }))
      .catch((error: unknown) => {
        if ((error as Error).name !== 'AbortError')
          setView({ kind: 'error', text: errorMessage(error, invalid) });
      });
    return () => controller.abort();
  }, [confirming, token, invalid]);

  async function act() {
    setView({ kind: 'busy' });
    try {
      const answer = await api<{ message: string }>(
        confirming ? '/subscribe/confirm' : '/subscribe/unsubscribe',
        {
          body: { token },
        },
      );
      setView({ kind: 'done', text: answer.message });
    } catch (error) {
      setView({ kind: 'error', text: errorMessage(error, NEWSLETTER_MESSAGES.failureFallback) });
    }
  }

  return (
    <div className="container page subscription-page">
      <div className="card subscription-card">
        <h1>{confirming ? 'Confirm your subscription' : 'Unsubscribe from blog emails'}</h1>
        {view.kind === 'checking' && <p className="muted">Checking your link…</p>}
        {(view.kind === 'ready' || view.kind === 'busy') && (
          <>
            <p className="muted">
              {confirming
                ? 'Press the button to start getting Legend Cloud blog posts by email. You can unsubscribe from any email.'
                : 'Press the button and we will stop sending you Legend Cloud blog emails.'}
            </p>
            <button type="button" className="button primary" onClick={act} disabled={view.kind === 'busy'}>
              {view.kind === 'busy' ? 'Please wait…' : confirming ? 'Confirm subscription' : 'Unsubscribe'}
            </button>
          </>
        )}
        <div role="status" aria-live="polite" className="form-status">
          {view.kind === 'done' && <p className="notice success">{view.text}</p>}
          {view.kind === 'error' && <p className="notice error">{view.text}</p>}
        </div>
        <p>
          <Link href="/blogs">Go to the blog</Link>
        </p>
      </div>
    </div>
  );
}
