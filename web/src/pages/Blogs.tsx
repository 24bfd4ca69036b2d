import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, errorMessage } from '../api/fetcher.ts';
import { Icon } from '../components/Icon.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { BLOG_POSTS, BLOGS_INTRO } from '../../../core/domain/content/blog.ts';
import { emailProblem } from '../../../core/domain/email.ts';
import { NEWSLETTER_MESSAGES } from '../../../core/domain/publicSite.ts';
import { formatLongDate } from '../../../core/domain/time.ts';

/** Spec §2 "Blogs": four featured posts, the trial link and the subscribe form (no invented testimonials). */
export default function Blogs() {
  usePageTitle('Blogs');
  return (
    <div className="blogs">
      <section className="page-hero" aria-labelledby="blogs-title">
        <div className="container">
          <p className="section-eyebrow">The Legend Cloud blog</p>
          <h1 id="blogs-title">{BLOGS_INTRO.title}</h1>
          <p className="lead">{BLOGS_INTRO.lead}</p>
        </div>
      </section>

      <section className="section" aria-labelledby="featured-title">
        <div className="container">
          <h2 id="featured-title" className="visually-hidden">
            Featured posts
          </h2>
          <ul className="post-grid">
            {BLOG_POSTS.map((post, i) => (
              <li key={post.id} className="post-card">
                <div className={`post-art post-art-${(i % 4) + 1}`} aria-hidden="true">
                  <span>{post.tag}</span>
                </div>
                <div className="post-body">
                  <p className="post-meta muted">
                    <span className="chip">{post.tag}</span>
                    <span>
                      <time dateTime={post.publishedOn}>
                        {formatLongDate(`${post.publishedOn}T00:00:00+05:30`)}
                      </time>{' '}
                      · {post.readMinutes} min read
                    </span>
                  </p>
                  <h3>
                    <Link href={`/BlogPostPage/${post.id}`} className="post-link">
                      {post.title}
                    </Link>
                  </h3>
                  <p className="muted">{post.excerpt}</p>
                  <span className="post-more" aria-hidden="true">
                    Read article <Icon name="arrow" size={16} />
                  </span>
                </div>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section section-tight" aria-labelledby="trial-title">
        <div className="container">
          <div className="trial-banner">
            <div>
              <h2 id="trial-title">{BLOGS_INTRO.trialCta}</h2>
              <p className="muted">{BLOGS_INTRO.trialText}</p>
            </div>
            <Link href="/trial" className="button primary large">
              Start your trial <Icon name="arrow" size={18} />
            </Link>
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="subscribe-title">
        <div className="container">
          <SubscribeForm />
        </div>
      </section>
    </div>
  );
}

type Status = { kind: 'success' | 'error'; text: string } | null;

/** The subscribe form, made real: double opt-in through `POST /api/subscribe`. */
function SubscribeForm() {
  const [email, setEmail] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = email.trim();
    const problem = value ? emailProblem(value) : NEWSLETTER_MESSAGES.invalidEmail;
    if (problem) {
      setInvalid(true);
      setStatus({ kind: 'error', text: problem });
      return;
    }
    setBusy(true);
    setStatus(null);
    try {
      const answer = await api<{ message: string }>('/subscribe', { body: { email: value } });
      setEmail('');
      setInvalid(false);
      setStatus({ kind: 'success', text: answer.message || NEWSLETTER_MESSAGES.checkInbox });
    } catch (error) {
      setStatus({ kind: 'error', text: errorMessage(error, NEWSLETTER_MESSAGES.failureFallback) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="subscribe">
      <div>
        <h2 id="subscribe-title">Get new posts by email</h2>
        <p className="muted">
          One email when we publish, nothing else. We ask you to confirm first, and every email has an
          unsubscribe link.
        </p>
      </div>
      <form className="subscribe-form" onSubmit={submit} noValidate aria-labelledby="subscribe-title">
        <label className="field">
          <span className="visually-hidden">Email address</span>
          <input
            type="email"
            name="email"
            autoComplete="email"
            placeholder="you@example.com"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              setInvalid(false);
            }}
            aria-invalid={invalid || undefined}
            aria-describedby="subscribe-status"
            required
          />
        </label>
        {/* Sent before the app has taken the page over, it is held for the app, never the
            browser's own post (scripts/build.ts, web/src/earlyInput.ts). */}
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Subscribing…' : 'Subscribe'}
        </button>
        <div id="subscribe-status" role="status" aria-live="polite" className="form-status subscribe-status">
          {status && <p className={`notice ${status.kind}`}>{status.text}</p>}
        </div>
      </form>
    </div>
  );
}
