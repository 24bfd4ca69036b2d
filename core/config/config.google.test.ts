import { describe, expect, it } from 'vitest';
import { loadConfig, SANDBOX_GOOGLE_CLIENT_ID } from './config.ts';

/** Google sign-in: one protocol; only who plays Google (its endpoint, keys, issuer) differs. */
describe('Google sign-in configuration', () => {
  const base = { NODE_ENV: 'test', PORT: '4100', PUBLIC_URL: 'https://dev.example.in' };

  it("with a client id, names Google's own authorization endpoint, JWKS and issuers", () => {
    const config = loadConfig({ ...base, GOOGLE_CLIENT_ID: 'client-123.apps.googleusercontent.com' });
    expect(config.google).toEqual({
      mode: 'google',
      clientId: 'client-123.apps.googleusercontent.com',
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
      issuers: ['accounts.google.com', 'https://accounts.google.com'],
    });
  });

  it("without one in development, the sandbox's endpoint on the site's origin and its JWKS", () => {
    expect(loadConfig(base).google).toMatchObject({
      mode: 'sandbox',
      clientId: SANDBOX_GOOGLE_CLIENT_ID,
      authorizeUrl: 'https://dev.example.in/sandbox/google/authorize',
      jwksUrl: 'http://127.0.0.1:4100/sandbox/google/jwks',
    });
  });
});
