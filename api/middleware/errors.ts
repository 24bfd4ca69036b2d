import type { Middleware } from 'koa';
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';
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
      const { status, message, headers } = errorAnswer(error);
      if (status >= 500) {
        ctx.state.log.error({ err: error }, 'request failed');
      } else {
        ctx.state.log.info({ status, message }, 'request refused');
      }
      ctx.status = status;
      ctx.set(headers);
      ctx.body = { message, ...(error instanceof HttpError ? error.details : {}) };
    }
  };
}

/** The status, message and headers an error is answered with (JSON here; DCV's route answers XML). */
export function errorAnswer(error: unknown): {
  status: number;
  message: string;
  headers: Record<string, string>;
} {
  if (error instanceof HttpError)
    return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    return { status: 409, message: 'That already exists.', headers: {} };
  }
  if (databaseUnavailable(error)) {
    return {
      status: 503,
      message: 'We cannot reach our database right now. Please try again in a minute.',
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  // Postgres class 22 (data exception): a value it cannot hold. Input guards should have
  // refused it; if one slips through it is still the request's fault, not ours.
  if (/^22/.test(sqlState(error) ?? '')) {
    return { status: 400, message: 'The request contains a value we cannot store.', headers: {} };
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

const DATABASE_RETRY_AFTER_SECONDS = 30;

/** Socket errors and Postgres states that mean "the database is not there", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
]);

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

function sqlState(error: unknown): string | undefined {
  for (const e of causes(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** Whether `error` says the database cannot be reached (then the answer is 503, not 500). */
function databaseUnavailable(error: unknown): boolean {
  return causes(error).some((e) => {
    if (
      e instanceof ConnectionError ||
      e instanceof BackendTerminatedError ||
      e instanceof BackendTerminatedUnexpectedlyError
    ) {
      return true;
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    const message = e instanceof Error ? e.message : '';
    return /Connection terminated|timeout exceeded when trying to connect|Connection refused|Client is (pending destroy|destroyed)/i.test(
      message,
    );
  });
}
