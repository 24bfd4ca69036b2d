import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { unredacted, type Logger } from '../../core/observability/log.ts';
import type { AppState } from '../context.ts';
import { loggedPath } from '../logPath.ts';

const INCOMING = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * Gives every request an id (kept from a proxy's X-Request-Id when sane), a child logger and an
 * access log line: at info, or at debug for a routine answer (a route that polls says so with
 * `ctx.state.routine`, and only its successes are quiet), so a dashboard polled by every
 * signed-in browser does not write a line per poll.
 */
export function requestId(log: Logger): Middleware<AppState> {
  // Every field of the access line is set here, and none can hold a secret (the path is masked).
  const access = unredacted(log);
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const id = INCOMING.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    // The request's child logger is made on first use: most requests (every dashboard poll)
    // never log beyond the access line, which the parent writes with the id itself.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      get: () => (child ??= log.child({ requestId: id })),
      configurable: true,
      enumerable: true,
    });
    ctx.set('X-Request-Id', id);
    const started = performance.now();
    try {
      await next();
    } finally {
      // Only the path, emails and tokens in it masked: query strings can carry them too (reset links).
      const level = ctx.state.routine && ctx.status < 400 ? 'debug' : 'info';
      if (access.isLevelEnabled(level))
        access[level](
          {
            requestId: id,
            method: ctx.method,
            path: loggedPath(ctx.path),
            status: ctx.status,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
    }
  };
}
