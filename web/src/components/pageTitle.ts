import { useEffect } from 'react';

/** Sets the tab title for a page ("Blogs · Legend Cloud"), so history and tabs say where you were. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Legend Cloud` : 'Legend Cloud · Windows cloud PCs with GPUs';
  }, [title]);
}
