import { useEffect, useRef } from 'react';
import { PARTICLE_COUNT } from '../../../core/domain/constants.ts';
import { whenIdle } from './motion.ts';
import type { FieldState } from './particleStart.ts';

/**
 * The landing page's animated background (spec §2: 250 particles), drawn on a canvas. Nothing
 * is drawn until the browser is first idle, so the page paints, hydrates and answers input
 * first ('waiting'). Then it runs only while it can be seen: it stops while the tab is hidden,
 * while scrolled out of view and while `paused`; under prefers-reduced-motion it draws one
 * still frame. The current state is on `data-state` for tests and curious people.
 */
export function ParticleField({
  paused = false,
  count = PARTICLE_COUNT,
}: {
  paused?: boolean;
  count?: number;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const pausedRef = useRef(paused);
  const updateRef = useRef<() => void>(() => {});

  useEffect(() => {
    pausedRef.current = paused;
    updateRef.current();
  }, [paused]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    canvas.dataset.state = 'waiting' satisfies FieldState;
    let stop = () => {};
    let stopped = false;
    // What sets the field going (the worker's loader, its observers) is fetched then too: the
    // landing page's first load carries only this component.
    const cancel = whenIdle(() => {
      import('./particleStart.ts')
        .then(({ startField }) => {
          if (!stopped) stop = startField(canvas, count, pausedRef, updateRef);
        })
        // A decoration that fails is reported, never in the customer's way.
        .catch((error: unknown) => console.error('particle field:', error));
    });
    return () => {
      stopped = true;
      cancel();
      stop();
    };
  }, [count]);

  return <canvas ref={canvasRef} className="particle-field" aria-hidden="true" data-count={count} />;
}
