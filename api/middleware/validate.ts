import type { Middleware } from 'koa';
import type { z } from 'zod';
import { badRequest } from '../errors.ts';
import type { AppState } from '../context.ts';

/**
 * Parses the body (or query) with a zod schema and puts the result on `ctx.state.input`.
 * The first problem becomes a 400 whose message names the field, in words a person can act on.
 */
export function validate(schema: z.ZodType, source: 'body' | 'query' = 'body'): Middleware<AppState> {
  return async (ctx, next) => {
    const raw = source === 'body' ? (ctx.request as { body?: unknown }).body : ctx.query;
    const result = schema.safeParse(raw ?? {});
    if (!result.success) {
      const issue = result.error.issues[0];
      throw badRequest(issue?.message ?? 'The request is not valid.');
    }
    ctx.state.input = result.data;
    await next();
  };
}

export function input<T>(ctx: { state: AppState }): T {
  return ctx.state.input as T;
}
