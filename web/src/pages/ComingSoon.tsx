import { Link } from 'wouter';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';

/** An honest placeholder for a route whose feature is not built yet. */
export default function ComingSoon({ feature }: { feature: string }) {
  usePageTitle(feature);
  return (
    <Page title={feature} lead="This part of Legend Cloud is coming soon.">
      <p>
        We are still building it. Meanwhile you can <Link href="/report-problem">report a problem</Link> or go
        back to the <Link href="/">home page</Link>.
      </p>
    </Page>
  );
}
