import { useSyncExternalStore } from 'react';
import { swrFetcher } from './fetcher.ts';

/**
 * An API answer that the frame of every page reads (who is signed in, the site's settings),
 * kept once for the whole app without swr: a visitor's first page (the landing page above all)
 * then loads no data-fetching library at all; the pages that need more load swr with their code.
 *
 * It behaves as swr does for these two: asked when first used and again when a new reader
 * appears (at most once per DEDUPE_MS), when the tab comes back into view or the browser back
 * online (the focus at most once per FOCUS_THROTTLE_MS); a failed answer keeps the last data and
 * says why; a value set here (a login) wins over an answer asked for before it was set.
 */
export type ResourceState<T> = { data: T | undefined; error: unknown; isLoading: boolean };

/** swr's deduping interval and focus throttle, its defaults. */
const DEDUPE_MS = 2_000;
const FOCUS_THROTTLE_MS = 5_000;

export type Resource<T> = {
  /** The answer as React reads it; before hydration (and on the server), still loading. */
  use: () => ResourceState<T>;
  /** Sets the answer without asking the server (it was just learned otherwise). */
  set: (data: T) => void;
  /** Asks the server again. */
  revalidate: () => Promise<void>;
};

export function resource<T>(
  path: string,
  options: { revalidateOnFocus: boolean; onSuccess?: (data: T) => void },
): Resource<T> {
  const loading: ResourceState<T> = { data: undefined, error: undefined, isLoading: true };
  let state = loading;
  let askedAt = Number.NEGATIVE_INFINITY;
  let focusedAt = Number.NEGATIVE_INFINITY;
  let asking: Promise<void> | null = null;
  // Bumped by every `set`: an answer to a question asked before it is out of date.
  let version = 0;
  const readers = new Set<() => void>();

  const update = (next: ResourceState<T>) => {
    state = next;
    for (const reader of readers) reader();
  };

  function revalidate(): Promise<void> {
    if (asking) return asking;
    askedAt = Date.now();
    const asked = version;
    asking = swrFetcher<T>(path).then(
      (data) => {
        asking = null;
        if (asked !== version) return;
        update({ data, error: undefined, isLoading: false });
        options.onSuccess?.(data);
      },
      (error: unknown) => {
        asking = null;
        if (asked !== version) return;
        update({ data: state.data, error, isLoading: false });
      },
    );
    return asking;
  }

  const onFocus = () => {
    if (document.visibilityState === 'hidden' || Date.now() - focusedAt < FOCUS_THROTTLE_MS) return;
    focusedAt = Date.now();
    void revalidate();
  };
  const onOnline = () => void revalidate();

  function subscribe(reader: () => void): () => void {
    readers.add(reader);
    if (readers.size === 1) {
      if (options.revalidateOnFocus) {
        window.addEventListener('focus', onFocus);
        document.addEventListener('visibilitychange', onFocus);
      }
      window.addEventListener('online', onOnline);
    }
    if (Date.now() - askedAt > DEDUPE_MS) void revalidate();
    return () => {
      readers.delete(reader);
      if (readers.size > 0) return;
      window.removeEventListener('focus', onFocus);
      document.removeEventListener('visibilitychange', onFocus);
      window.removeEventListener('online', onOnline);
    };
  }

  return {
    use: () =>
      useSyncExternalStore(
        subscribe,
        () => state,
        () => loading,
      ),
    set(data) {
      version++;
      askedAt = Date.now();
      update({ data, error: undefined, isLoading: false });
    },
    revalidate,
  };
}
