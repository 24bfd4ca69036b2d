import { createHash } from 'node:crypto';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { escape, page } from '../html.ts';

/**
 * A stand-in for Google sign-in. It signs OpenID Connect ID tokens with its own RSA key and
 * publishes the public half as a JWKS, exactly as Google does at
 * https://www.googleapis.com/oauth2/v3/certs, so the app verifies them with the same code.
 *
 * - `GET  /sandbox/google/jwks`: the key set.
 * - `GET  /sandbox/google/authorize?client_id&redirect_uri&state&nonce`: a page to pick a
 *   name and email (and whether Google has verified it).
 * - `POST /sandbox/google/authorize`: signs the ID token (aud = client_id) and redirects to
 *   `redirect_uri#id_token=…&state=…` (the OAuth implicit "fragment" response: the token never
 *   reaches a server log). redirect_uri must be on the page's own origin, as a registered
 *   redirect URI would be.
 */

const ISSUER = 'https://accounts.google.com';
const TOKEN_SECONDS = 3600;

type Signer = { kid: string; privateKey: CryptoKey; jwk: JWK };

export type SandboxGoogle = { router: Router; signIdToken: (claims: IdTokenClaims) => Promise<string> };

export type IdTokenClaims = {
  clientId: string;
  email: string;
  name: string;
  emailVerified: boolean;
  nonce?: string;
};

/** Google's `sub` is a stable numeric string per account; derive one from the email. */
export function sandboxGoogleSub(email: string): string {
  const digest = createHash('sha256').update(email.trim().toLowerCase()).digest();
  return `1${digest.readBigUInt64BE(0).toString().padStart(20, '0')}`;
}

export function createSandboxGoogle(): SandboxGoogle {
  let signer: Promise<Signer> | undefined;
  const keys = () =>
    (signer ??= (async () => {
      const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
      const kid = `sandbox-${Date.now().toString(36)}`;
      const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
      return { kid, privateKey, jwk };
    })());

  async function signIdToken(claims: IdTokenClaims): Promise<string> {
    const { kid, privateKey } = await keys();
    const email = claims.email.trim();
    return new SignJWT({
      email,
      email_verified: claims.emailVerified,
      name: claims.name,
      given_name: claims.name.split(' ')[0],
      azp: claims.clientId,
      ...(claims.nonce ? { nonce: claims.nonce } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(claims.clientId)
      .setSubject(sandboxGoogleSub(email))
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_SECONDS}s`)
      .sign(privateKey);
  }

  const router = new Router();

  router.get('/jwks', async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = { keys: [(await keys()).jwk] };
  });

  router.get('/authorize', (ctx) => {
    const q = (name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : '');
    const problem = checkRequest(`${ctx.protocol}://${ctx.host}`, q('client_id'), q('redirect_uri'));
    if (problem) {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page('Sign in with Google', `<p><strong>${escape(problem)}</strong></p>`);
      return;
    }
    const hidden = ['client_id', 'redirect_uri', 'state', 'nonce']
      .map((name) => `<input type="hidden" name="${name}" value="${escape(q(name))}">`)
      .join('\n');
    ctx.type = 'html';
    ctx.body = page(
      'Sign in with Google',
      `<p>Choose the Google account to continue to the app with. Any name and email will do.</p>
<form method="post" action="/sandbox/google/authorize" class="google-form">
${hidden}
<label>Name <input name="name" required maxlength="100" value="Sandbox User" autocomplete="off"></label>
<label>Email <input name="email" type="email" required maxlength="254" autocomplete="off"></label>
<label><input type="checkbox" name="email_verified" value="true" checked> Google has verified this email</label>
<p><button type="submit" class="primary">Continue</button></p>
</form>`,
    );
  });

  router.post('/authorize', koaBody({ urlencoded: true, json: true, formLimit: '16kb' }), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const problem =
      checkRequest(`${ctx.protocol}://${ctx.host}`, field('client_id'), field('redirect_uri')) ??
      (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(field('email').trim()) ? 'Enter an email address.' : undefined);
    if (problem) {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page('Sign in with Google', `<p><strong>${escape(problem)}</strong></p>`);
      return;
    }
    const idToken = await signIdToken({
      clientId: field('client_id'),
      email: field('email'),
      name: field('name').trim() || 'Sandbox User',
      emailVerified: field('email_verified') === 'true',
      nonce: field('nonce') || undefined,
    });
    const fragment = new URLSearchParams({ id_token: idToken, state: field('state') });
    ctx.redirect(`${field('redirect_uri')}#${fragment.toString()}`);
  });

  return { router, signIdToken };
}

function checkRequest(origin: string, clientId: string, redirectUri: string): string | undefined {
  if (!clientId) return 'client_id is missing.';
  let target: URL;
  try {
    target = new URL(redirectUri);
  } catch {
    return 'redirect_uri is missing or not a URL.';
  }
  if (target.origin !== origin) return 'redirect_uri is not registered for this client.';
  return undefined;
}
