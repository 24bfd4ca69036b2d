import { createContext, useContext, useEffect } from 'react';

/**
 * Where a page rendered ahead of time (web/src/prerender.tsx) leaves its title, for the
 * prerendered HTML's <title>; absent in the browser.
 */
export const PageTitleSink = createContext<{ title?: string } | null>(null);

function fullTitle(title: string): string {
  return title ? `${title} · Legend Cloud` : 'Legend Cloud · Windows cloud PCs with GPUs';
}

/** Sets the tab title for a page ("Blogs · Legend Cloud"), so history and tabs say where you were. */
export function usePageTitle(title: string): void {
  const sink = useContext(PageTitleSink);
  if (sink) sink.title = fullTitle(title);
  useEffect(() => {
    document.title = fullTitle(title);
  }, [title]);
}
