import { useState } from 'react';
import { useGoogleConfig, type GoogleConfig } from '../api/auth.ts';
import { api, errorMessage } from '../api/fetcher.ts';

/**
 * "Continue with Google" (login and register): an OpenID Connect authentication request. The
 * browser goes to the authorization endpoint the server names (Google's; in development the
 * sandbox's, which plays Google's side of the same protocol) with a random `state` and a nonce
 * the server issued to this browser, and comes back to /auth/google/callback with the ID token in
 * the URL fragment (no popup, no third-party script). The server verifies the token.
 */

export const GOOGLE_STATE_KEY = 'googleSignInState';
const GOOGLE_CALLBACK_PATH = '/auth/google/callback';

function randomState(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function newNonce(): Promise<string> {
  return (await api<{ nonce: string }>('/auth/google/nonce', { method: 'POST' })).nonce;
}

export function GoogleSignIn({ onError }: { onError: (message: string) => void }) {
  const { data: config } = useGoogleConfig();
  if (!config || config.mode === 'off' || !config.clientId || !config.authorizeUrl) return null;
  return (
    <div className="google-sign-in">
      <p className="divider">
        <span>or</span>
      </p>
      <GoogleButton config={config} onError={onError} />
    </div>
  );
}

function GoogleButton({ config, onError }: { config: GoogleConfig; onError: (message: string) => void }) {
  const [busy, setBusy] = useState(false);
  async function start() {
    setBusy(true);
    try {
      const nonce = await newNonce();
      const state = randomState();
      sessionStorage.setItem(GOOGLE_STATE_KEY, state);
      const params = new URLSearchParams({
        client_id: config.clientId ?? '',
        redirect_uri: `${window.location.origin}${GOOGLE_CALLBACK_PATH}`,
        response_type: 'id_token',
        scope: 'openid email profile',
        state,
        nonce,
      });
      window.location.assign(`${config.authorizeUrl}?${params.toString()}`);
    } catch (error) {
      onError(errorMessage(error, 'Google sign-in failed. Please try again.'));
      setBusy(false);
    }
  }
  return (
    <button type="button" className="button google-button" onClick={start} disabled={busy}>
      <GoogleMark />
      Continue with Google
    </button>
  );
}

function GoogleMark() {
  return (
    <svg width="18" height="18" viewBox="0 0 48 48" aria-hidden="true" focusable="false">
      <path
        fill="#FFC107"
        d="M43.6 20.5H42V20H24v8h11.3C33.7 32.7 29.2 36 24 36c-6.6 0-12-5.4-12-12s5.4-12 12-12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 12.9 4 4 12.9 4 24s8.9 20 20 20 20-8.9 20-20c0-1.3-.1-2.4-.4-3.5z"
      />
      <path
        fill="#FF3D00"
        d="M6.3 14.7l6.6 4.8C14.7 15.1 19 12 24 12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 16.3 4 9.7 8.3 6.3 14.7z"
      />
      <path
        fill="#4CAF50"
        d="M24 44c5.2 0 9.9-2 13.4-5.2l-6.2-5.2C29.2 35.1 26.7 36 24 36c-5.2 0-9.6-3.3-11.3-8l-6.5 5C9.5 39.6 16.2 44 24 44z"
      />
      <path
        fill="#1976D2"
        d="M43.6 20.5H42V20H24v8h11.3c-.8 2.2-2.2 4.2-4.1 5.6l6.2 5.2C37 39.2 44 34 44 24c0-1.3-.1-2.4-.4-3.5z"
      />
    </svg>
  );
}
