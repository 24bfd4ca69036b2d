import type { Middleware } from 'koa';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../errors.ts';
import type { AppContext, AppState } from '../context.ts';

export type Limiter = {
  /**
   * Takes one point for `key`; throws a 429 when the budget is spent. The store checks and
   * takes the point in one upsert statement, so parallel requests cannot overspend it.
   */
  consume(key: string, message?: string): Promise<void>;
  /** Forgets `key` (a pair that just proved itself, e.g. by signing in). */
  reset(key: string): Promise<void>;
};

/** A counter that never refuses: how often something happened to `key` within the window. */
export type Counter = {
  /** Adds one and returns the count within the window (one upsert statement). */
  add(key: string): Promise<number>;
  /** The count within the window, without adding. */
  peek(key: string): Promise<number>;
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
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

export function createCounter(pool: pg.Pool, options: { name: string; durationSeconds: number }): Counter {
  const store = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: options.name,
    // Never reached: a counter only counts (penalty() adds without refusing).
    points: 1_000_000_000,
    duration: options.durationSeconds,
  });
  return {
    async add(key) {
      return (await store.penalty(key, 1)).consumedPoints;
    },
    async peek(key) {
      return (await store.get(key))?.consumedPoints ?? 0;
    },
  };
}

/** The key of a (who, address) pair: an account's budget as spent from one address. */
export function pairKey(who: string, ip: string): string {
  return `${who}|${ip}`;
}

/** A route middleware taking one point per request from the caller's IP. */
export function limitByIp(limiter: Limiter): Middleware<AppState> {
  return async (ctx: AppContext, next) => {
    await limiter.consume(ctx.ip);
    await next();
  };
}
