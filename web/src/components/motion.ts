import { useEffect, useState } from 'react';

/** True while the tab is hidden: timers and animations have nothing to show then. */
export function useDocumentHidden(): boolean {
  const [hidden, setHidden] = useState(() => document.hidden);
  useEffect(() => {
    const update = () => setHidden(document.hidden);
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return hidden;
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
