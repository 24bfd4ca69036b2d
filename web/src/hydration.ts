import { useEffect, useSyncExternalStore } from 'react';
import { releaseEarlyInput } from './earlyInput.ts';

const noSubscription = () => () => {};

/**
 * False while a prerendered page is rendered on the server and while the browser hydrates it,
 * true in every render after that (and from the start on a page rendered only in the browser).
 * What only the browser knows (today's date, storage) waits for it, so the first render in the
 * browser matches the prerendered HTML and hydrates without a mismatch.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * Placed beside the routed page, inside its Suspense boundary, so its effect runs once the page
 * itself (a lazily loaded module) has committed: a prerendered page is then hydrated and its
 * controls answer. The build marks prerendered pages as waiting for this (scripts/build.ts); until
 * then their buttons take no pointer input, so a tap waits rather than being lost, and what was
 * typed, sent or pressed from the keyboard is handed to the app now (web/src/earlyInput.ts).
 */
export function TakenOver(): null {
  useEffect(() => {
    document.getElementById('root')?.classList.remove('awaiting-app');
    releaseEarlyInput();
  }, []);
  return null;
}
