import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { hydrateRouteAfterFrame } from './hydration.ts';

/**
 * Starts the app in #root: hydrates a prerendered page (React takes over the HTML already on
 * screen), renders the others from the empty shell.
 */
export function boot(root: HTMLElement, prerendered: boolean): void {
  const app = (
    <StrictMode>
      <App />
    </StrictMode>
  );
  if (!prerendered) {
    createRoot(root).render(app);
    return;
  }
  hydrateRouteAfterFrame();
  hydrateRoot(root, app, {
    // A mismatch between the HTML and the first render is recovered from by rendering again, but
    // it is a defect (the page flashed and did its work twice): it is logged as an error, which
    // the browser tests fail on.
    onRecoverableError: (error, info) => console.error('hydration:', error, info.componentStack ?? ''),
  });
}
