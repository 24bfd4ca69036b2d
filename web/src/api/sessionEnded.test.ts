import { describe, expect, it } from 'vitest';
import {
  isSessionEnded,
  onSessionEndedChange,
  sessionBegan,
  sessionLeft,
  sessionLost,
} from './sessionEnded.ts';

describe('the ended-session state', () => {
  it('is not entered by a visitor who never signed in', () => {
    expect(sessionLost()).toBe(false);
    expect(isSessionEnded()).toBe(false);
  });

  it('is entered once when a signed-in tab is told nobody is signed in, and left by a login', () => {
    const changes: boolean[] = [];
    const stop = onSessionEndedChange(() => changes.push(isSessionEnded()));
    sessionBegan();
    expect(sessionLost()).toBe(true);
    // Every later 401 still reads as the ended session, without another change.
    expect(sessionLost()).toBe(true);
    expect(isSessionEnded()).toBe(true);
    sessionBegan();
    expect(isSessionEnded()).toBe(false);
    stop();
    expect(changes).toEqual([true, false]);
  });

  it('is not entered by a deliberate logout', () => {
    sessionBegan();
    sessionLeft();
    expect(sessionLost()).toBe(false);
    expect(isSessionEnded()).toBe(false);
  });
});
