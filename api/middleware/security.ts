import type { Middleware } from 'koa';
import helmet from 'koa-helmet';
import { forbidden, HttpError } from '../errors.ts';
import type { AppState } from '../context.ts';

/**
 * Security headers for every response. The CSP is what the built SPA needs and no more:
 * scripts and styles from our origin only. `formActions` lists the extra origins a page may
 * post a form to (PayU's hosted checkout).
 *
 * Helmet writes them; as they depend on these options alone (no nonce, nothing of the request),
 * it writes them once, here, and each response gets that same set: running helmet per request
 * (a promise and a dozen header functions) was a tenth of what every API request cost the web
 * process.
 */
export function securityHeaders(options: {
  production: boolean;
  formActions?: string[];
  /** Allow Google Identity Services (accounts.google.com): its script, styles, button iframe and calls. */
  googleSignIn?: boolean;
  /** Extra origins the page may fetch from (the connection check's regional endpoint). */
  connectSources?: string[];
}): Middleware<AppState> {
  const google = options.googleSignIn ? [GOOGLE_ACCOUNTS] : [];
  const { set, removed } = headersOf(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", ...google],
          styleSrc: ["'self'", ...google],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'", ...google, ...(options.connectSources ?? [])],
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
    }),
  );
  return async (ctx, next) => {
    const res = ctx.res;
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    await next();
  };
}

/**
 * The headers a helmet middleware sets and removes, written once onto a response that keeps
 * them. Helmet writes them at once, as it is called; it only waits to call `next`.
 */
function headersOf(writer: unknown): { set: Array<[string, string]>; removed: string[] } {
  const set = new Map<string, string>();
  const removed = new Set<string>();
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      if (typeof value !== 'string') throw new Error(`helmet set ${name} to a value that is not text`);
      set.set(name, value);
      removed.delete(name);
    },
    removeHeader(name: string) {
      set.delete(name);
      removed.add(name);
    },
  };
  const write = writer as (ctx: { req: object; res: object }, next: () => Promise<void>) => Promise<void>;
  // A failure here is a configuration error: it stops the web process at start, as any would.
  void write({ req: {}, res: response }, async () => {});
  if (set.size === 0)
    throw new Error('helmet wrote no header at once: the security headers would be missing');
  return { set: [...set], removed: [...removed] };
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

/**
 * In production every page and call must come over HTTPS (Secure cookies, HSTS). A request
 * that reached us over plain HTTP (or through a proxy we were not told to trust, so its
 * protocol is unknown) is redirected when it is a read, refused with a clear 400 otherwise,
 * instead of failing later on a Secure cookie.
 */
export function requireHttps(publicUrl: string): Middleware<AppState> {
  const target = new URL(publicUrl);
  return async (ctx, next) => {
    if (ctx.secure || target.protocol !== 'https:') {
      await next();
      return;
    }
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      ctx.status = 308;
      ctx.redirect(`${target.origin}${ctx.originalUrl}`);
      return;
    }
    throw new HttpError(
      400,
      `This site works over HTTPS only. Please use ${target.origin}. (Behind a proxy? Set TRUST_PROXY_HOPS.)`,
    );
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A browser that opens the app at another loopback name than PUBLIC_URL's (127.0.0.1 for
 * localhost) is sent to PUBLIC_URL's: cookies, the Origin check and PayU's return all belong
 * to one origin, so the app works whichever of the two was typed. Only page navigations move;
 * API and sandbox calls (the worker's, PayU's) are answered where they arrive.
 */
export function canonicalLoopbackHost(publicUrl: string): Middleware<AppState> {
  const target = new URL(publicUrl);
  const canonical = LOOPBACK_HOSTS.has(target.hostname);
  return async (ctx, next) => {
    if (
      canonical &&
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      ctx.get('sec-fetch-mode') === 'navigate' &&
      LOOPBACK_HOSTS.has(ctx.hostname === '::1' ? '[::1]' : ctx.hostname) &&
      ctx.host !== target.host
    ) {
      ctx.status = 308;
      ctx.redirect(`${target.origin}${ctx.originalUrl}`);
      return;
    }
    await next();
  };
}
