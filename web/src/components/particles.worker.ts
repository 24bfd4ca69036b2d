import {
  createParticleDrawing,
  type FrameScheduler,
  type ParticleDrawing,
  type ParticleMessage,
} from './particles.ts';

/**
 * Draws the landing page's particle field on the canvas the page handed over (an
 * OffscreenCanvas), off the page's main thread: its frames never delay a tap, a scroll or the
 * page's own scripts. The page says when to run (ParticleField.tsx).
 */
const frames: FrameScheduler =
  typeof requestAnimationFrame === 'function'
    ? { request: (step) => requestAnimationFrame(step), cancel: (id) => cancelAnimationFrame(id) }
    : // A worker without animation frames (older Safari) draws on a timer at about the same pace.
      {
        request: (step) => setTimeout(() => step(performance.now()), 16) as unknown as number,
        cancel: (id) => clearTimeout(id),
      };

let field: ParticleDrawing | undefined;

self.onmessage = (event: MessageEvent<ParticleMessage>) => {
  const message = event.data;
  if (message.type === 'start') {
    const context = message.canvas.getContext('2d');
    if (!context) throw new Error('the particle canvas has no 2D context');
    field = createParticleDrawing(context, message.count, frames);
  } else if (message.type === 'resize') {
    field?.resize(message.width, message.height, message.ratio);
  } else {
    field?.setRunning(message.running);
  }
};
