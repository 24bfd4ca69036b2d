import type { ParameterizedContext } from 'koa';
import type { Logger } from '../core/observability/log.ts';

/** What every request carries on `ctx.state`. */
export type AppState = {
  requestId: string;
  log: Logger;
  /** The parsed, validated body/query of `validate()`; typed by each route. */
  input: unknown;
  /** The logged-in user, set by `loadSession` (api/middleware/auth.ts); absent when anonymous. */
  user?: AuthUser;
  /** Set by a route that is polled: its successful answers are logged at debug, not info (api/middleware/requestId.ts). */
  routine?: boolean;
};

/** Who the session belongs to. Identity comes only from here, never from an email in the request. */
export type AuthUser = {
  id: string;
  /** Lower-cased. */
  email: string;
  name: string;
  phone: string | null;
  sessionId: string;
};

export type AppContext = ParameterizedContext<AppState>;
