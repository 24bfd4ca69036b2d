import { describe, expect, it } from 'vitest';
import { hashConfirmToken, newConfirmToken, readUnsubscribeToken, unsubscribeToken } from './newsletter.ts';

const secret = 'test-secret-test-secret-test-secret-000';
const id = '6f1c2a52-3a4e-4c0b-9a55-2f0e8d1b7c11';

describe('subscription tokens', () => {
  it('makes random confirm tokens and stores only their hash', () => {
    const a = newConfirmToken();
    const b = newConfirmToken();
    expect(a.token).not.toBe(b.token);
    expect(a.token.length).toBeGreaterThanOrEqual(43);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).toBe(hashConfirmToken(a.token));
    expect(a.hash).not.toContain(a.token);
  });

  it('reads back the subscriber of an unsubscribe token it signed', () => {
    expect(readUnsubscribeToken(secret, unsubscribeToken(secret, id))).toBe(id);
  });

  it('refuses unsubscribe tokens that were tampered with or signed under another secret', () => {
    const token = unsubscribeToken(secret, id);
    const otherId = '00000000-0000-4000-8000-000000000000';
    expect(readUnsubscribeToken(secret, `${otherId}${token.slice(id.length)}`)).toBeNull();
    expect(readUnsubscribeToken(secret, `${token}x`)).toBeNull();
    expect(readUnsubscribeToken(`${secret}!`, token)).toBeNull();
    expect(readUnsubscribeToken(secret, id)).toBeNull();
    expect(readUnsubscribeToken(secret, '')).toBeNull();
    expect(readUnsubscribeToken(secret, 'not-a-uuid.abc')).toBeNull();
  });
});
