import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { SANDBOX_GOOGLE_CLIENT_ID } from '../../core/config/config.ts';
import { findUserByEmail } from '../../core/db/users.ts';
import { sandboxGoogleSub } from '../../sandbox/google/index.ts';
import { startTestStack } from '../support/stack.ts';
import {
  createUser,
  GOOD_PASSWORD,
  logIn,
  newClient,
  uniqueEmail,
  type Client,
} from '../support/accounts.ts';

const stack = await startTestStack({ worker: false });

/** Goes through the sandbox's Google page the way the browser does and answers the ID token. */
async function sandboxIdToken(
  client: Client,
  claims: { email: string; name?: string; verified?: boolean; clientId?: string; nonce?: string },
): Promise<string> {
  const form = new URLSearchParams({
    client_id: claims.clientId ?? SANDBOX_GOOGLE_CLIENT_ID,
    redirect_uri: `${stack.url}/auth/google/callback`,
    state: 'state-123',
    nonce: claims.nonce ?? '',
    name: claims.name ?? 'Google Person',
    email: claims.email,
    ...(claims.verified === false ? {} : { email_verified: 'true' }),
  });
  const reply = await client.call('/sandbox/google/authorize', {
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(reply.status).toBe(302);
  const location = new URL(reply.headers.get('location')!);
  expect(location.pathname).toBe('/auth/google/callback');
  const fragment = new URLSearchParams(location.hash.slice(1));
  expect(fragment.get('state')).toBe('state-123');
  return fragment.get('id_token')!;
}

async function nonce(client: Client): Promise<string> {
  const reply = await client.call('/api/auth/google/nonce', { method: 'POST' });
  expect(reply.status).toBe(200);
  return reply.body.nonce;
}

async function signInWithGoogle(client: Client, claims: Parameters<typeof sandboxIdToken>[1]) {
  const token = await sandboxIdToken(client, { ...claims, nonce: claims.nonce ?? (await nonce(client)) });
  return client.call('/api/auth/google', { body: { credential: token } });
}

describe('Google sign-in through the sandbox', () => {
  it("names the sandbox's authorization endpoint, as it would name Google's", async () => {
    const reply = await newClient(stack).call('/api/auth/google/config');
    expect(reply.body).toEqual({
      mode: 'oidc',
      clientId: SANDBOX_GOOGLE_CLIENT_ID,
      authorizeUrl: `${stack.config.publicUrl}/sandbox/google/authorize`,
    });
  });

  it('serves a JWKS and a page to pick the account', async () => {
    const jwks = await newClient(stack).call('/sandbox/google/jwks');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const page = await newClient(stack).call(
      `/sandbox/google/authorize?client_id=x&redirect_uri=${encodeURIComponent(`${stack.url}/auth/google/callback`)}&state=s`,
    );
    expect(page.status).toBe(200);
    expect(page.body).toContain('name="email"');
    const foreign = await newClient(stack).call(
      '/sandbox/google/authorize?client_id=x&redirect_uri=https://evil.example/cb',
    );
    expect(foreign.status).toBe(400);
  });

  it('creates an account for a new verified Google email and logs in', async () => {
    const client = newClient(stack);
    const email = uniqueEmail('google');
    const reply = await signInWithGoogle(client, { email: email.toUpperCase(), name: 'Priya Shah' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ email, name: 'Priya Shah', phone: null, hasPlan: false });
    expect((await client.call('/api/auth/login')).body.email).toBe(email);
    const user = await findUserByEmail(stack.services.db, email);
    expect(user).toMatchObject({ google_sub: sandboxGoogleSub(email), password_hash: null });
    expect(user?.email_verified_at).toBeInstanceOf(Date);

    // Signing in again finds the same account.
    const again = newClient(stack);
    expect((await signInWithGoogle(again, { email })).status).toBe(200);
  });

  it('links to the existing account with that email; the password still works', async () => {
    const user = await createUser(stack, { name: 'Existing' });
    const client = newClient(stack);
    const reply = await signInWithGoogle(client, { email: user.email, name: 'Other Name' });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe('Existing');
    expect((await findUserByEmail(stack.services.db, user.email))?.google_sub).toBe(
      sandboxGoogleSub(user.email),
    );
    await logIn(newClient(stack), user.email, GOOD_PASSWORD);
  });

  it('refuses an unverified email', async () => {
    const email = uniqueEmail();
    const reply = await signInWithGoogle(newClient(stack), { email, verified: false });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ message: 'Google sign-in failed. Please try again.' });
    expect(await findUserByEmail(stack.services.db, email)).toBeNull();
  });

  it('refuses a token for another audience', async () => {
    const reply = await signInWithGoogle(newClient(stack), {
      email: uniqueEmail(),
      clientId: 'someone-else.apps.googleusercontent.com',
    });
    expect(reply.status).toBe(401);
  });

  it('refuses a token signed by another key, even one naming the sandbox key id', async () => {
    const client = newClient(stack);
    const n = await nonce(client);
    const jwks = await client.call('/sandbox/google/jwks');
    const { privateKey } = await generateKeyPair('RS256');
    for (const kid of ['forged', jwks.body.keys[0].kid as string]) {
      const forged = await new SignJWT({
        email: uniqueEmail(),
        email_verified: true,
        name: 'Mallory',
        nonce: n,
      })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer('https://accounts.google.com')
        .setAudience(SANDBOX_GOOGLE_CLIENT_ID)
        .setSubject('1234')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      const reply = await client.call('/api/auth/google', { body: { credential: forged } });
      expect(reply.status).toBe(401);
    }
  });

  it('refuses "alg: none" and garbage (expiry and issuer: core/providers/googleSignIn.test.ts)', async () => {
    const client = newClient(stack);
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"email":"a@b.co"}').toString('base64url')}.`;
    for (const credential of [unsigned, 'not-a-jwt', 'a.b.c']) {
      const reply = await client.call('/api/auth/google', { body: { credential } });
      expect(reply.status).toBe(401);
    }
    const missing = await client.call('/api/auth/google', { body: {} });
    expect(missing.status).toBe(400);
  });

  it('refuses a token without this browser’s nonce (replayed or injected)', async () => {
    const victim = newClient(stack);
    const attacker = newClient(stack);
    const attackerNonce = await nonce(attacker);
    const token = await sandboxIdToken(attacker, { email: uniqueEmail(), nonce: attackerNonce });
    await nonce(victim);
    expect((await victim.call('/api/auth/google', { body: { credential: token } })).status).toBe(401);
    const noNonce = newClient(stack);
    const plain = await sandboxIdToken(noNonce, { email: uniqueEmail() });
    await nonce(noNonce);
    expect((await noNonce.call('/api/auth/google', { body: { credential: plain } })).status).toBe(401);
    // A nonce is good once: the cookie is cleared after an attempt.
    const once = newClient(stack);
    const n = await nonce(once);
    const good = await sandboxIdToken(once, { email: uniqueEmail(), nonce: n });
    expect((await once.call('/api/auth/google', { body: { credential: good } })).status).toBe(200);
    expect((await once.call('/api/auth/google', { body: { credential: good } })).status).toBe(401);
  });

  it('asks for the second factor when the account has it on', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const setup = await client.call('/api/user/two-factor/setup', { method: 'POST' });
    const { generate } = await import('otplib');
    await client.call('/api/user/two-factor/enable', {
      body: { code: await generate({ secret: setup.body.secret }) },
    });
    const google = newClient(stack);
    const reply = await signInWithGoogle(google, { email: user.email });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ twoFactorRequired: true, message: expect.any(String) });
    expect(google.cookies.has('legend_session')).toBe(false);
  });
});
