import { describe, expect, it } from 'vitest';
import {
  codeSendStep,
  INBOX_BURST,
  INBOX_INTERVAL_SECONDS,
  inboxAfterOneMore,
  inboxRetryAfterSeconds,
} from './codeLimits.ts';

/** Mails allowed when asked every `everySeconds` for `seconds`, by the rule alone. */
function allowedOver(seconds: number, everySeconds: number): number {
  let tat: number | null = null;
  let allowed = 0;
  for (let t = 0; t < seconds; t += everySeconds) {
    const next = inboxAfterOneMore(tat, t * 1000);
    if (next.allowed) {
      tat = next.tatMs;
      allowed++;
    }
  }
  return allowed;
}

describe('an inbox budget', () => {
  it('lets at most 15 code mails through in an hour however fast they are asked for', () => {
    // The burst, then one per interval.
    expect(INBOX_BURST + 3600 / INBOX_INTERVAL_SECONDS).toBe(15);
    expect(allowedOver(3600, 1)).toBeLessThanOrEqual(15);
    expect(allowedOver(3600, 1)).toBeGreaterThanOrEqual(14);
  });

  it('lets a burst through, then tells the next asker to wait at most one interval', () => {
    let tat: number | null = null;
    for (let i = 0; i < INBOX_BURST; i++) {
      const next = inboxAfterOneMore(tat, 0);
      expect(next.allowed).toBe(true);
      tat = next.tatMs;
    }
    expect(inboxAfterOneMore(tat, 0).allowed).toBe(false);
    expect(inboxRetryAfterSeconds(tat!, 0)).toBe(INBOX_INTERVAL_SECONDS);
    expect(inboxRetryAfterSeconds(tat!, 60_000)).toBe(INBOX_INTERVAL_SECONDS - 60);
    expect(inboxAfterOneMore(tat, INBOX_INTERVAL_SECONDS * 1000).allowed).toBe(true);
  });
});

describe('the steps of a code request', () => {
  it('never refuses a known browser, gates new ones behind work only under attack', () => {
    expect(codeSendStep({ knownBrowser: true, underAttack: true, provedWork: false })).toBe('send-known');
    expect(codeSendStep({ knownBrowser: false, underAttack: false, provedWork: false })).toBe('spend-inbox');
    expect(codeSendStep({ knownBrowser: false, underAttack: true, provedWork: false })).toBe('prove-work');
    expect(codeSendStep({ knownBrowser: false, underAttack: true, provedWork: true })).toBe('spend-inbox');
  });
});
