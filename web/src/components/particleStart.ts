/**
 * What sets the landing page's particle field going once the browser is idle: loaded only then
 * (web/src/components/ParticleField.tsx), with the worker's loader and the page's own fallback.
 */
import type { ParticleDrawing, ParticleMessage } from './particles.ts';

/** The field's state, on its canvas's `data-state` (web/src/components/ParticleField.tsx). */
export type FieldState = 'waiting' | 'running' | 'paused' | 'static';
type State = FieldState;

/**
 * Sets the field going on `canvas`; answers what stops it. It is drawn by a worker on an
 * OffscreenCanvas where the browser can, else here on the main thread.
 */
export function startField(
  canvas: HTMLCanvasElement,
  count: number,
  pausedRef: { current: boolean },
  updateRef: { current: () => void },
): () => void {
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const field = drawer(canvas, count);
  let visible = true;

  function resize() {
    const rect = canvas.getBoundingClientRect();
    field.resize(rect.width, rect.height, Math.min(window.devicePixelRatio || 1, 2));
  }

  function state(): State {
    if (reducedMotion.matches) return 'static';
    if (document.hidden || !visible || pausedRef.current) return 'paused';
    return 'running';
  }

  function update() {
    const next = state();
    canvas.dataset.state = next;
    field.setRunning(next === 'running');
  }
  updateRef.current = update;

  const resizeObserver = new ResizeObserver(resize);
  resizeObserver.observe(canvas);
  const intersectionObserver = new IntersectionObserver((entries) => {
    visible = entries.some((entry) => entry.isIntersecting);
    update();
  });
  intersectionObserver.observe(canvas);
  document.addEventListener('visibilitychange', update);
  reducedMotion.addEventListener('change', update);
  resize();
  update();

  return () => {
    field.stop();
    updateRef.current = () => {};
    resizeObserver.disconnect();
    intersectionObserver.disconnect();
    document.removeEventListener('visibilitychange', update);
    reducedMotion.removeEventListener('change', update);
  };
}

type Drawer = ParticleDrawing & { stop: () => void };

/** What draws the field: a worker given the canvas, or the page itself. */
function drawer(canvas: HTMLCanvasElement, count: number): Drawer {
  if (typeof canvas.transferControlToOffscreen === 'function' && typeof Worker === 'function') {
    const offscreen = canvas.transferControlToOffscreen();
    const worker = new Worker(new URL('./particles.worker.ts', import.meta.url), { type: 'module' });
    // A decoration that fails is reported, never in the customer's way.
    worker.addEventListener('error', (event) => console.error('particle field:', event.message));
    const post = (message: ParticleMessage, transfer: Transferable[] = []) =>
      worker.postMessage(message, transfer);
    post({ type: 'start', canvas: offscreen, count }, [offscreen]);
    return {
      resize: (width, height, ratio) => post({ type: 'resize', width, height, ratio }),
      setRunning: (running) => post({ type: 'run', running }),
      stop: () => worker.terminate(),
    };
  }
  return pageDrawer(canvas, count);
}

/**
 * The field drawn by the page itself, for a browser without OffscreenCanvas. Its code is loaded
 * only then (browsers that use the worker never download it twice); until it arrives, the
 * latest size and state wait.
 */
function pageDrawer(canvas: HTMLCanvasElement, count: number): Drawer {
  let field: ParticleDrawing | undefined;
  let size: [number, number, number] | undefined;
  let running = false;
  let stopped = false;
  import('./particles.ts')
    .then(({ createParticleDrawing }) => {
      if (stopped) return;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('the particle canvas has no 2D context');
      field = createParticleDrawing(context, count, {
        request: (step) => requestAnimationFrame(step),
        cancel: (id) => cancelAnimationFrame(id),
      });
      if (size) field.resize(...size);
      field.setRunning(running);
    })
    // A decoration that fails is reported, never in the customer's way.
    .catch((error: unknown) => console.error('particle field:', error));
  return {
    resize(width, height, ratio) {
      size = [width, height, ratio];
      field?.resize(width, height, ratio);
    },
    setRunning(next) {
      running = next;
      field?.setRunning(next);
    },
    stop() {
      stopped = true;
      field?.setRunning(false);
    },
  };
}
