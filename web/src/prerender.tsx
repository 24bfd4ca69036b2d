import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
import { Router } from 'wouter';
import { App } from './App.tsx';
import { PageTitleSink } from './components/pageTitle.ts';

/**
 * A page rendered ahead of time, at build (scripts/build.ts): the HTML inside #root and the title
 * the page sets. It is what the browser's first render of that page gives before anything is
 * fetched: the session not known yet, no server data (lazy pages are waited for). The tree is
 * web/src/main.tsx's, so the browser hydrates it as it is.
 */
export async function renderPage(path: string): Promise<{ html: string; title: string | undefined }> {
  const sink: { title?: string } = {};
  const errors: unknown[] = [];
  const { prelude } = await prerender(
    <PageTitleSink value={sink}>
      <StrictMode>
        <Router ssrPath={path}>
          <App />
        </Router>
      </StrictMode>
    </PageTitleSink>,
    {
      onError: (error) => void errors.push(error),
      // Every page whole, in place: no boundary moved to the end of the document to be swapped
      // in by an inline script, which the CSP (script-src 'self') would refuse.
      progressiveChunkSize: Number.POSITIVE_INFINITY,
    },
  );
  // A page that throws would ship as its loading fallback: the build fails instead.
  if (errors.length > 0) throw errors[0];
  return { html: await new Response(prelude).text(), title: sink.title };
}
