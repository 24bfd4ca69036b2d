import type { Middleware } from 'koa';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { HttpError } from '../errors.ts';
import type { AppState } from '../context.ts';

/**
 * The one place errors become responses. Expected errors keep their status and message;
 * body-parser errors (bad JSON, too large) become 4xx; anything else is logged with the
 * request id and answered with a generic 500 that leaks nothing.
 */
export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { status, message, headers } = describe(error);
      if (status >= 500) {
        ctx.state.log.error({ err: error }, 'request failed');
      } else {
        ctx.state.log.info({ status, message }, 'request refused');
      }
      ctx.status = status;
      ctx.set(headers);
      ctx.body = { message };
    }
  };
}

function describe(error: unknown): { status: number; message: string; headers: Record<string, string> } {
  if (error instanceof HttpError)
    return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    return { status: 409, message: 'That already exists.', headers: {} };
  }
  const e = error as { status?: unknown; statusCode?: unknown; expose?: unknown; type?: unknown };
  const status =
    typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413) return { status, message: 'That request is too large.', headers: {} };
  if (status === 415) return { status, message: 'Send JSON or a form.', headers: {} };
  if (status >= 400 && status < 500) {
    const parseError = typeof e.type === 'string' && e.type.includes('parse');
    const message =
      parseError || status === 400 ? 'The request body is not valid JSON.' : 'The request was refused.';
    return { status, message, headers: {} };
  }
  return { status: 500, message: 'Something went wrong on our side. Please try again.', headers: {} };
}
