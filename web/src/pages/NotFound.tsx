import { Link } from 'wouter';
import { Page } from '../components/Layout.tsx';
import { usePageTitle } from '../components/pageTitle.ts';

export default function NotFound() {
  usePageTitle('Page not found');
  return (
    <Page title="Page not found" lead="There is nothing at this address.">
      <p>
        Check the link, or go to the <Link href="/">home page</Link>.
      </p>
    </Page>
  );
}
