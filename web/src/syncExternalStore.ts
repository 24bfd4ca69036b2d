/**
 * `use-sync-external-store/shim`, for the libraries that still import it (swr, wouter): React 19
 * has the hook itself, so the shim's fallback for React 17 is never run and need not be shipped.
 * web/vite.config.ts points the shim's imports here.
 */
export { useSyncExternalStore } from 'react';
