import type { Middleware } from 'koa';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../errors.ts';
import type { AppContext, AppState } from '../context.ts';

export type Limiter = {
  /** Takes one point for `key`; throws a 429 when the budget is spent. */
  consume(key: string, message?: string): Promise<void>;
};

/**
 * A rate limit stored in Postgres (table `rate_limits`), so it holds across web processes.
 * `points` requests per `durationSeconds` for each key.
 */
export function createLimiter(
  pool: pg.Pool,
  options: { name: string; points: number; durationSeconds: number; message?: string },
): Limiter {
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: options.name,
    points: options.points,
    duration: options.durationSeconds,
  });
  return {
    async consume(key, message) {
      try {
        await limiter.consume(key);
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          throw tooManyRequests(error.msBeforeNext / 1000, message ?? options.message);
        }
        throw error;
      }
    },
  };
}

/** A route middleware taking one point per request from the caller's IP. */
export function limitByIp(limiter: Limiter): Middleware<AppState> {
  return async (ctx: AppContext, next) => {
    await limiter.consume(ctx.ip);
    await next();
  };
}
