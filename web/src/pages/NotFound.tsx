import { Link } from 'wouter';
import { Page } from '../components/Layout.tsx';

export default function NotFound() {
  return (
    <Page title="Page not found" lead="There is nothing at this address.">
      <p>
        Check the link, or go to the <Link href="/">home page</Link>.
      </p>
    </Page>
  );
}
