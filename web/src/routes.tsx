import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { SitePath } from '../../core/domain/siteRoutes.ts';

/**
 * Every route of spec §2. Pages load lazily so the landing page ships only what it needs.
 * A route whose feature is not built yet names it and shows the honest "coming soon" page.
 * Paths come from core/domain/siteRoutes.ts, the list the server answers 200 (not 404) for.
 */
export type RouteDef = {
  path: SitePath;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pages take different props
  component: LazyExoticComponent<ComponentType<any>>;
  /** For not-yet-built routes: the feature name shown on the coming-soon page. */
  comingSoon?: string;
};

const Subscription = lazy(() => import('./pages/Subscription.tsx'));
// Accounts: both sign-up steps are one screen; guarded pages ask the server first.
const Register = lazy(() => import('./pages/Register.tsx'));

export const ROUTES: RouteDef[] = [
  { path: '/', component: lazy(() => import('./pages/Landing.tsx')) },
  { path: '/services', component: lazy(() => import('./pages/Services.tsx')) },
  { path: '/register', component: Register },
  { path: '/register/otp', component: Register },
  { path: '/login', component: lazy(() => import('./pages/Login.tsx')) },
  { path: '/forgot-password', component: lazy(() => import('./pages/ForgotPassword.tsx')) },
  { path: '/reset-password', component: lazy(() => import('./pages/ResetPassword.tsx')) },
  { path: '/auth/google/callback', component: lazy(() => import('./pages/GoogleCallback.tsx')) },
  { path: '/account/security', component: lazy(() => import('./pages/AccountSecurity.tsx')) },
  { path: '/dashboard', component: lazy(() => import('./pages/Dashboard.tsx')) },
  { path: '/select-vm', component: lazy(() => import('./pages/SelectVm.tsx')) },
  { path: '/trial', component: lazy(() => import('./pages/Trial.tsx')) },
  { path: '/payment', component: lazy(() => import('./pages/Payment.tsx')) },
  { path: '/payment-success', component: lazy(() => import('./pages/PaymentSuccess.tsx')) },
  { path: '/payment-failure', component: lazy(() => import('./pages/PaymentFailure.tsx')) },
  // Usage charts (spec §2 Progress page): guarded inside the page; uPlot loads only with it.
  { path: '/progress', component: lazy(() => import('./pages/Progress.tsx')) },
  { path: '/blogs', component: lazy(() => import('./pages/Blogs.tsx')) },
  { path: '/BlogPostPage/:id', component: lazy(() => import('./pages/BlogPost.tsx')) },
  { path: '/report-problem', component: lazy(() => import('./pages/ReportProblem.tsx')) },
  { path: '/history', component: lazy(() => import('./pages/History.tsx')) },
  { path: '/invoice', component: lazy(() => import('./pages/Invoice.tsx')) },
  { path: '/credit-note', component: lazy(() => import('./pages/CreditNote.tsx')) },
  { path: '/privacy-policy', component: lazy(() => import('./pages/PrivacyPolicy.tsx')) },
  { path: '/terms-of-service', component: lazy(() => import('./pages/TermsOfService.tsx')) },
  { path: '/refund-policy', component: lazy(() => import('./pages/RefundPolicy.tsx')) },
  { path: '/contact-us', component: lazy(() => import('./pages/ContactUs.tsx')) },
  // Before buying: the visitor's round trip, jitter and speed to the machines' region.
  { path: '/connection-check', component: lazy(() => import('./pages/ConnectionCheck.tsx')) },
  // How to connect and play from every device: its own chunk, loaded only here.
  { path: '/guides', component: lazy(() => import('./pages/Guides.tsx')) },
  // The links in blog subscription mails (double opt-in).
  { path: '/subscribe/confirm', component: Subscription },
  { path: '/subscribe/unsubscribe', component: Subscription },
];
