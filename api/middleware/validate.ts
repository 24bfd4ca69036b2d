import type { Middleware } from 'koa';
import type { z } from 'zod';
import { badRequest } from '../errors.ts';
import type { AppState } from '../context.ts';

/**
 * Parses the body (or query) with a zod schema and puts the result on `ctx.state.input`.
 * The first problem becomes a 400 whose message names the field, in words a person can act on.
 */
export function validate(schema: z.ZodType, source: 'body' | 'query' = 'body'): ValidatingMiddleware {
  const middleware: Middleware<AppState> = async (ctx, next) => {
    const raw = source === 'body' ? (ctx.request as { body?: unknown }).body : ctx.query;
    const result = schema.safeParse(raw ?? {});
    if (!result.success) {
      const issue = result.error.issues[0];
      throw badRequest(issue?.message ?? 'The request is not valid.');
    }
    ctx.state.input = result.data;
    await next();
  };
  // Named on the middleware so the route table can be walked with its schemas (the fuzz test).
  return Object.assign(middleware, { schema, source });
}

export type ValidatingMiddleware = Middleware<AppState> & { schema: z.ZodType; source: 'body' | 'query' };

export function input<T>(ctx: { state: AppState }): T {
  return ctx.state.input as T;
}
