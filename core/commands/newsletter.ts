import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Tokens of the blog subscription's links.
 *
 * Confirm links carry a random single-use token; only its SHA-256 is stored, so a leaked
 * database cannot confirm anyone. Unsubscribe links must keep working in every mail we ever
 * send, so they are not stored at all: the token is the subscriber id signed with an HMAC
 * under APP_SECRET, which any later mail can recompute and nobody can forge.
 */

export function newConfirmToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashConfirmToken(token) };
}

export function hashConfirmToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function signature(secret: string, subscriberId: string): string {
  return createHmac('sha256', secret).update(`blog-unsubscribe:${subscriberId}`).digest('base64url');
}

export function unsubscribeToken(secret: string, subscriberId: string): string {
  return `${subscriberId}.${signature(secret, subscriberId)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The subscriber id an unsubscribe token was made for, or null when it was not made by us. */
export function readUnsubscribeToken(secret: string, token: string): string | null {
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  const id = token.slice(0, dot);
  if (!UUID.test(id)) return null;
  const given = Buffer.from(token.slice(dot + 1), 'utf8');
  const expected = Buffer.from(signature(secret, id), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
}

/** The SPA pages the mails link to; they ask before acting, so link scanners change nothing. */
export function confirmUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/subscribe/confirm?token=${encodeURIComponent(token)}`;
}

export function unsubscribeUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/subscribe/unsubscribe?token=${encodeURIComponent(token)}`;
}
