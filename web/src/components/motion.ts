import { useEffect, useState, useSyncExternalStore } from 'react';

function onVisibilityChange(update: () => void): () => void {
  document.addEventListener('visibilitychange', update);
  return () => document.removeEventListener('visibilitychange', update);
}

/**
 * True while the tab is hidden: timers and animations have nothing to show then. A prerendered
 * page is rendered (and hydrated) as visible.
 */
export function useDocumentHidden(): boolean {
  return useSyncExternalStore(
    onVisibilityChange,
    () => document.hidden,
    () => false,
  );
}

/**
 * An index that advances every `intervalMs` through `length` items, wrapping around, and
 * holds still while `paused`. Used for the hero text (8 s) and tagline (4 s) of spec §9.
 */
export function useRotation(length: number, intervalMs: number, paused: boolean): number {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (paused || length < 2) return;
    const timer = window.setInterval(() => setIndex((i) => (i + 1) % length), intervalMs);
    return () => window.clearInterval(timer);
  }, [length, intervalMs, paused]);
  return index;
}

/**
 * Runs `callback` once the browser is first idle after the page's own work
 * (requestIdleCallback; a browser without it waits for the load event and a moment more).
 * Answers a function that cancels it.
 */
export function whenIdle(callback: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(() => callback());
    return () => window.cancelIdleCallback(handle);
  }
  let timer = 0;
  const soon = () => {
    timer = window.setTimeout(callback, IDLE_FALLBACK_MS);
  };
  if (document.readyState === 'complete') soon();
  else window.addEventListener('load', soon, { once: true });
  return () => {
    window.removeEventListener('load', soon);
    window.clearTimeout(timer);
  };
}

/** Without requestIdleCallback: how long after the load event the page is taken to be idle. */
const IDLE_FALLBACK_MS = 300;
