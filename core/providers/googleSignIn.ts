import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config/config.ts';

/**
 * Verifies Google ID tokens (INTEGRATIONS "Google sign-in"): signature against the JWKS at a
 * configurable URL (Google's, or the sandbox's stand-in), issuer, audience = our client id,
 * expiry, and `email_verified`. The SPA obtains the token; only this decides whether to trust it.
 */

export type GoogleIdentity = { sub: string; email: string; name: string; nonce: string | undefined };

export class GoogleTokenError extends Error {
  override name = 'GoogleTokenError';
}

export type GoogleVerifier = (idToken: string) => Promise<GoogleIdentity>;

export function createGoogleVerifier(google: Config['google']): GoogleVerifier {
  // jose caches the key set and refetches it when a token names an unknown key (rotation).
  const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(google.jwksUrl), {
    timeoutDuration: 5000,
    cooldownDuration: 30_000,
    cacheMaxAge: 3_600_000,
  });
  return async (idToken) => {
    let payload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: google.issuers,
        audience: google.clientId,
        algorithms: ['RS256'],
        clockTolerance: 30,
        requiredClaims: ['sub', 'email', 'exp', 'iat'],
      }));
    } catch (error) {
      // Google's keys unreachable (a timeout, an answer other than 200, one that is not a key
      // set) is an outage, not a bad token: it becomes a 5xx and is logged as an error.
      if (error instanceof errors.JOSEError && !keysUnavailable(error)) {
        throw new GoogleTokenError(error.code);
      }
      throw error;
    }
    if (payload.email_verified !== true && payload.email_verified !== 'true') {
      throw new GoogleTokenError('email not verified');
    }
    if (typeof payload.email !== 'string' || typeof payload.sub !== 'string') {
      throw new GoogleTokenError('claims missing');
    }
    const email = payload.email.trim().toLowerCase();
    const name =
      typeof payload.name === 'string' && payload.name.trim() ? payload.name.trim() : email.split('@')[0];
    return {
      sub: payload.sub,
      email,
      name: (name ?? 'Google user').slice(0, 100),
      nonce: typeof payload.nonce === 'string' ? payload.nonce : undefined,
    };
  };
}

/**
 * jose reports a failed JWKS fetch as JWKSTimeout, JWKSInvalid, or its base JOSEError (a status
 * other than 200, a body that is not JSON); every fault of the token itself has its own subclass.
 */
function keysUnavailable(error: InstanceType<typeof errors.JOSEError>): boolean {
  return (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === errors.JOSEError.code
  );
}
