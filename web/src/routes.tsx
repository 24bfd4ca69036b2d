import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * Every route of spec §2. Pages load lazily so the landing page ships only what it needs.
 * A route whose feature is not built yet names it and shows the honest "coming soon" page.
 */
export type RouteDef = {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pages take different props
  component: LazyExoticComponent<ComponentType<any>>;
  /** For not-yet-built routes: the feature name shown on the coming-soon page. */
  comingSoon?: string;
};

const ComingSoon = lazy(() => import('./pages/ComingSoon.tsx'));
const soon = (path: string, feature: string): RouteDef => ({
  path,
  component: ComingSoon,
  comingSoon: feature,
});

export const ROUTES: RouteDef[] = [
  soon('/', 'Legend Cloud'),
  soon('/services', 'Services'),
  soon('/register', 'Register'),
  soon('/register/otp', 'Register'),
  soon('/login', 'Login'),
  soon('/forgot-password', 'Forgot password'),
  soon('/reset-password', 'Reset password'),
  soon('/dashboard', 'Dashboard'),
  soon('/select-vm', 'Plans'),
  soon('/trial', '1 hour trial'),
  soon('/payment', 'Confirm & Pay'),
  soon('/payment-success', 'Payment'),
  soon('/payment-failure', 'Payment'),
  soon('/progress', 'Usage'),
  soon('/blogs', 'Blogs'),
  soon('/BlogPostPage/:id', 'Blog'),
  { path: '/report-problem', component: lazy(() => import('./pages/ReportProblem.tsx')) },
  soon('/history', 'History'),
  soon('/invoice', 'Invoice'),
  soon('/privacy-policy', 'Privacy Policy'),
  soon('/terms-of-service', 'Terms of Service'),
  soon('/contact-us', 'Contact Us'),
];
