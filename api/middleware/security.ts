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
}): Middleware<AppState> {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'", ...(options.formActions ?? [])],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        ...(options.production ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: options.production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  }) as unknown as Middleware<AppState>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing requests sent from another origin (CSRF), on top of SameSite
 * cookies. Browsers always send Origin on cross-origin POSTs; a request with no Origin and
 * no Referer comes from a non-browser client, which holds no victim's cookie.
 */
export function sameOrigin(publicUrl: string): Middleware<AppState> {
  const allowed = new URL(publicUrl).origin;
  return async (ctx, next) => {
    if (!SAFE_METHODS.has(ctx.method)) {
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
