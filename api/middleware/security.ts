import type { Middleware } from 'koa';
import helmet from 'koa-helmet';
import { forbidden } from '../errors.ts';
import type { AppState } from '../context.ts';

/**
 * Security headers for every response. The CSP is what the built SPA needs and no more:
 * scripts and styles from our origin only. `formActions` lists the extra origins a page may
 * post a form to (PayU's hosted checkout).
 */
export function securityHeaders(options: {
  production: boolean;
  formActions?: string[];
  /** Allow Google Identity Services (accounts.google.com): its script, styles, button iframe and calls. */
  googleSignIn?: boolean;
}): Middleware<AppState> {
  const google = options.googleSignIn ? [GOOGLE_ACCOUNTS] : [];
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...google],
        styleSrc: ["'self'", ...google],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...google],
        ...(options.googleSignIn ? { frameSrc: [GOOGLE_ACCOUNTS] } : {}),
        formAction: ["'self'", ...(options.formActions ?? [])],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        ...(options.production ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: options.production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    // Google's sign-in popup talks back to the opener; plain same-origin would cut it off.
    ...(options.googleSignIn
      ? { crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' as const } }
      : {}),
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  }) as unknown as Middleware<AppState>;
}

/** Google Identity Services serves its script, styles, button iframe and API from here. */
const GOOGLE_ACCOUNTS = 'https://accounts.google.com';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing requests sent from another origin (CSRF), on top of SameSite
 * cookies. Browsers always send Origin on cross-origin POSTs; a request with no Origin and
 * no Referer comes from a non-browser client, which holds no victim's cookie.
 */
export function sameOrigin(
  publicUrl: string,
  options: { exemptPaths?: string[] } = {},
): Middleware<AppState> {
  const allowed = new URL(publicUrl).origin;
  // Paths whose posts come from another site by design and are verified otherwise (PayU's
  // browser return carries a reverse hash); they act on no session, so CSRF has nothing to ride.
  const exempt = options.exemptPaths ?? [];
  return async (ctx, next) => {
    if (!SAFE_METHODS.has(ctx.method) && !exempt.some((prefix) => ctx.path.startsWith(prefix))) {
      const origin = ctx.get('origin') || originOf(ctx.get('referer'));
      const own = `${ctx.protocol}://${ctx.host}`;
      if (origin && origin !== allowed && origin !== own) {
        throw forbidden('This request came from another site and was refused.');
      }
    }
    await next();
  };
}

function originOf(url: string): string {
  try {
    return url ? new URL(url).origin : '';
  } catch {
    return '';
  }
}
