import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleVerifier, GoogleTokenError, type GoogleVerifier } from './googleSignIn.ts';

const CLIENT_ID = 'test-client.apps.googleusercontent.com';
let server: Server;
let verify: GoogleVerifier;
let key: CryptoKey;
let jwksUrl = '';
/** What the key endpoint answers: Google's key set, unless a test plays an outage. */
let outage: { status: number; body: string } | null = null;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  key = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    if (outage) res.statusCode = outage.status;
    res.end(outage ? outage.body : JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  jwksUrl = `http://127.0.0.1:${port}/certs`;
  verify = newVerifier();
});

function newVerifier(): GoogleVerifier {
  return createGoogleVerifier({
    mode: 'google',
    clientId: CLIENT_ID,
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    jwksUrl,
    issuers: ['accounts.google.com', 'https://accounts.google.com'],
  });
}

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function token(
  claims: Record<string, unknown> = {},
  options: { iss?: string; aud?: string; exp?: string | number } = {},
) {
  return new SignJWT({
    email: 'Person@Example.com',
    email_verified: true,
    name: 'A Person',
    nonce: 'n1',
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(options.iss ?? 'accounts.google.com')
    .setAudience(options.aud ?? CLIENT_ID)
    .setSubject('10769150350006150715113082367')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '1h')
    .sign(key);
}

describe('Google ID token verification', () => {
  it('accepts a good token from either issuer spelling and lower-cases the email', async () => {
    for (const iss of ['accounts.google.com', 'https://accounts.google.com']) {
      await expect(verify(await token({}, { iss }))).resolves.toEqual({
        sub: '10769150350006150715113082367',
        email: 'person@example.com',
        name: 'A Person',
        nonce: 'n1',
      });
    }
  });

  it('falls back to the mailbox name when the token has no name', async () => {
    const identity = await verify(await token({ name: undefined }));
    expect(identity.name).toBe('person');
  });

  it.each([
    ['another issuer', {}, { iss: 'https://evil.example' }],
    ['another audience', {}, { aud: 'other-client' }],
    ['an expired token', {}, { exp: Math.floor(Date.now() / 1000) - 120 }],
    ['an unverified email', { email_verified: false }, {}],
    ['no email_verified claim', { email_verified: undefined }, {}],
    ['no email', { email: undefined }, {}],
  ])('refuses %s', async (_what, claims, options) => {
    await expect(verify(await token(claims, options))).rejects.toBeInstanceOf(GoogleTokenError);
  });

  it('refuses garbage', async () => {
    await expect(verify('a.b.c')).rejects.toBeInstanceOf(GoogleTokenError);
  });

  // Google's keys not arriving is our outage (a 5xx, logged as an error), not the customer's
  // refused token (a 401 logged at info): every Google sign-in would fail unseen.
  it.each([
    ['a 503', { status: 503, body: 'unavailable' }],
    ['a body that is not JSON', { status: 200, body: '<html>' }],
    ['JSON that is not a key set', { status: 200, body: '{"hello":1}' }],
  ])('treats the key endpoint answering %s as an outage, not a refused token', async (_what, failing) => {
    const idToken = await token();
    outage = failing;
    try {
      // A verifier that has not fetched the keys yet (jose keeps a key set it fetched).
      const error = await newVerifier()(idToken).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(GoogleTokenError);
    } finally {
      outage = null;
    }
  });
});
