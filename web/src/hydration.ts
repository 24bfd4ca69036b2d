import { use, useEffect, useSyncExternalStore, type ReactNode } from 'react';
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

/** Resolved a task after the page's frame began hydrating; null when nothing was prerendered. */
let routeAfterFrame: Promise<void> | null = null;

/**
 * Called just before a prerendered page is hydrated (web/src/boot.tsx): its routed page then
 * hydrates in a task after the frame's (header and footer), not with it. React hydrates a root in
 * one task; a part that waits hydrates afterwards in slices that leave the browser room to answer
 * between them. The page's code is already there (preloaded with the app's), so without this the
 * whole page was one long task, which Lighthouse counted as blocking time.
 */
export function hydrateRouteAfterFrame(): void {
  routeAfterFrame = new Promise((resolve) => setTimeout(resolve, 0));
}

/** Around the routed page, inside its Suspense boundary: holds it back as `hydrateRouteAfterFrame` says. */
export function RouteAfterFrame({ children }: { children: ReactNode }): ReactNode {
  if (routeAfterFrame) use(routeAfterFrame);
  return children;
}
