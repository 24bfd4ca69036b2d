import { useSyncExternalStore } from 'react';

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
