import './styles.css';
import { holdEarlyInput } from './earlyInput.ts';

/**
 * The entry: small on purpose. A public page arrives prerendered (scripts/build.ts) and is shown
 * first; only after the browser has painted it is the app fetched and the page hydrated, so
 * neither the download nor the work of the JavaScript comes before the first paint. Every other
 * page starts from the empty shell at once.
 */
const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');
const prerendered = root.firstElementChild !== null;
/** The longest the app waits for the prerendered page's first paint to be reported. */
const FIRST_PAINT_WAIT_MS = 2_000;

// Typing, forms and key presses on the prerendered page are kept for the app (web/src/earlyInput.ts).
if (prerendered) holdEarlyInput(root);

function start(): void {
  preloadModules();
  import('./boot.tsx')
    // Hydration in a task of its own, after the one that evaluated the app's code: two shorter
    // tasks keep the page answering input sooner than one long one.
    .then(({ boot }) => setTimeout(() => boot(root!, prerendered), 0))
    .catch((error: unknown) => {
      // The app could not be loaded (offline, a deploy replaced its files): a prerendered page
      // stays readable; the error is reported like any other.
      console.error('the app failed to load', error);
    });
}

if (prerendered && !document.hidden) afterFirstPaint(start);
else start();

/**
 * Asks at once for every module the page needs (the build lists them on #root: the app's, and a
 * prerendered page's own route's), so none waits to be found until the one importing it has
 * arrived and run.
 */
function preloadModules(): void {
  for (const href of root!.dataset.modules?.split(' ') ?? []) {
    if (!href) continue;
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
  }
}

/**
 * Runs `callback` once the prerendered page has been painted: when the browser reports its
 * first contentful paint (the moment it reached the screen, a little after the frame was drawn).
 * A browser without paint timing gets it after the first frame.
 */
function afterFirstPaint(callback: () => void): void {
  if (!PerformanceObserver.supportedEntryTypes?.includes('paint')) {
    // A frame's callback runs just before that frame is painted; a task queued from it runs after.
    requestAnimationFrame(() => setTimeout(callback, 0));
    return;
  }
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    clearTimeout(fallback);
    callback();
  };
  const observer = new PerformanceObserver((list) => {
    if (list.getEntriesByName('first-contentful-paint').length > 0) once();
  });
  observer.observe({ type: 'paint', buffered: true });
  // Should the paint never be reported (the tab hidden meanwhile), the app starts all the same.
  const fallback = setTimeout(once, FIRST_PAINT_WAIT_MS);
}
