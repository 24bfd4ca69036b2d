import type { ParameterizedContext } from 'koa';
import type { Logger } from '../core/log.ts';

/** What every request carries on `ctx.state`. */
export type AppState = {
  requestId: string;
  log: Logger;
  /** The parsed, validated body/query of `validate()`; typed by each route. */
  input: unknown;
};

export type AppContext = ParameterizedContext<AppState>;
