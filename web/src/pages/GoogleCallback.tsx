import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { needsTwoFactor, rememberLogin, type LoginReply } from '../api/auth.ts';
import { api, errorMessage } from '../api/fetcher.ts';
import type { SessionUser } from '../api/session.ts';
import { GOOGLE_STATE_KEY } from '../components/GoogleSignIn.tsx';
import { TwoFactorStep } from '../components/TwoFactorStep.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { takeReturnTo } from '../returnTo.ts';

/**
 * Where Google (in development, the sandbox playing it) sends the browser back:
 * /auth/google/callback#id_token=…&state=….
 * The fragment is read once and wiped from the address bar (and history) straight away.
 */

type Fragment = { idToken: string; state: string } | null;
let captured: Fragment | undefined;

function takeFragment(): Fragment {
  if (captured !== undefined) return captured;
  const params = new URLSearchParams(window.location.hash.slice(1));
  window.history.replaceState(null, '', window.location.pathname);
  const idToken = params.get('id_token');
  const state = params.get('state');
  captured = idToken && state ? { idToken, state } : null;
  return captured;
}

function expectedState(): string | null {
  try {
    const state = sessionStorage.getItem(GOOGLE_STATE_KEY);
    sessionStorage.removeItem(GOOGLE_STATE_KEY);
    return state;
  } catch {
    return null;
  }
}

export default function GoogleCallback() {
  usePageTitle('Signing in with Google');
  const [, navigate] = useLocation();
  const [fragment] = useState(takeFragment);
  const [problem, setProblem] = useState<string | null>(null);
  const [twoFactor, setTwoFactor] = useState(false);
  const started = useRef(false);

  async function finish(user: SessionUser) {
    captured = undefined;
    await rememberLogin(user);
    navigate(takeReturnTo('/'), { replace: true });
  }

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const state = expectedState();
    // A response we did not ask for (or asked for in another tab) is refused: login CSRF.
    if (!fragment || !state || fragment.state !== state) {
      captured = undefined;
      setProblem('Google sign-in failed. Please try again.');
      return;
    }
    api<LoginReply>('/auth/google', { body: { credential: fragment.idToken } })
      .then((reply) => (needsTwoFactor(reply) ? setTwoFactor(true) : finish(reply)))
      .catch((error: unknown) => {
        captured = undefined;
        setProblem(errorMessage(error, 'Google sign-in failed. Please try again.'));
      });
  }, []);

  return (
    <div className="container page auth-page">
      <div className="card auth-card">
        <h1>Continue with Google</h1>
        {problem ? (
          <>
            <p className="notice error" role="alert">
              {problem}
            </p>
            <p className="auth-switch">
              <Link href="/login">Back to Login</Link>
            </p>
          </>
        ) : twoFactor ? (
          <TwoFactorStep
            onDone={finish}
            onExpired={() => setProblem('Your sign-in has expired. Please log in again.')}
          />
        ) : (
          <p className="loading">Signing you in…</p>
        )}
      </div>
    </div>
  );
}
