import type { IncomingMessage } from 'node:http';
import { pipeline, type Transform } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { badRequest, HttpError } from '../errors.ts';
import type { AppState } from '../context.ts';

/**
 * Guards in front of every /api route, so malformed bytes are refused with a 4xx before any
 * handler or the database sees them (Postgres text cannot hold NUL or a lone surrogate, and
 * would otherwise fail the request with a 500).
 */

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const UNSUPPORTED_TYPE_MESSAGE = 'Send JSON or a form.';
export const BAD_CHARACTERS_MESSAGE =
  'The request contains characters we cannot accept (a NUL byte or a broken character).';

/**
 * Runs `middleware` (the body parser) only for methods that carry a body; a GET, HEAD or
 * OPTIONS (every dashboard poll) goes straight on, as the parser would let it after checking
 * its content type four ways.
 */
export function forBodyMethods(middleware: Middleware<AppState>): Middleware<AppState> {
  return (ctx, next) => (BODY_METHODS.has(ctx.method) ? middleware(ctx, next) : next());
}

/** 415 for a body that is neither JSON nor a form (before it is read). */
export function requireKnownBodyType(): Middleware<AppState> {
  return async (ctx, next) => {
    if (BODY_METHODS.has(ctx.method) && hasBody(ctx.req.headers) && !ctx.is('json', 'urlencoded')) {
      throw new HttpError(415, UNSUPPORTED_TYPE_MESSAGE);
    }
    await next();
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = Number(headers['content-length'] ?? 0);
  return Number.isNaN(length) || length > 0;
}

export const UNDECODABLE_BODY_MESSAGE =
  'The request body could not be decoded: it does not match its Content-Encoding. Send it plain or gzip, deflate or br.';
export const UNSUPPORTED_ENCODING_MESSAGE =
  'That Content-Encoding is not supported. Send the body plain or gzip, deflate or br.';

/**
 * Reads JSON and form bodies (64 kB each, after decompression) of POST, PUT, PATCH and DELETE. Whatever goes wrong while the
 * body is read is the request's fault, never ours: a Content-Encoding we do not speak is a 415,
 * and a body that does not decompress (gzip, deflate or br that is not) is a 400, where zlib's
 * own error would have been a 500. Errors thrown after the body was read (by the routes) pass
 * through untouched.
 */
export function bodyParser(): Middleware<AppState> {
  const parse = koaBody({
    json: true,
    urlencoded: true,
    multipart: false,
    jsonLimit: '64kb',
    formLimit: '64kb',
    textLimit: '64kb',
    jsonStrict: true,
    // The body as sent, beside the parsed one: a machine's health report is signed over its bytes.
    includeUnparsed: true,
    // DELETE too: `DELETE /api/user` carries `{ email }` (spec §7), and its body must meet the
    // same guards as any other.
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError: (error) => {
      throw error;
    },
  }) as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    const header = ctx.req.headers['content-encoding'];
    const coding = header === undefined ? undefined : contentCoding(header);
    if (coding !== undefined) ctx.req.headers['content-encoding'] = coding;
    const request = ctx.req;
    const decoder = coding === undefined ? undefined : DECODERS[coding];
    // The parser reads ctx.req: for a coding we decode, it reads the decoded stream instead.
    const stream = decoder ? decoded(request, decoder(), coding!, ctx.state.log) : undefined;
    if (stream) ctx.req = stream as unknown as IncomingMessage;
    let read = false;
    try {
      await parse(ctx, async () => {
        read = true;
        ctx.req = request;
        await next();
      });
    } catch (error) {
      ctx.req = request;
      if (read) throw error;
      // Refused while reading (too large, undecodable): decode no more of it.
      if (stream) {
        request.unpipe(stream);
        stream.destroy();
      }
      throw bodyReadError(error);
    }
  };
}

const DECODERS: Record<string, () => Transform> = {
  gzip: () => createUnzip(),
  deflate: () => createUnzip(),
  br: () => createBrotliDecompress(),
};

/**
 * The request's body through `decoder`, for the parser to read as if it had been sent plain.
 * We decode rather than leave it to the parser because of what happens after a refusal: the
 * parser stops listening to its decoder once the decoded body passes the size limit, yet the
 * request goes on flowing into it, and a truncated stream then fails with nobody listening —
 * an uncaught exception that takes the web process down. Here the decoder keeps a listener for
 * its whole life: while the parser still reads, it sees the same failure (its 400); after, the
 * failure is only logged. `pipeline` destroys the decoder, with the request's error, when the
 * request fails or is cut off, so the parser never waits on a body that will not come.
 */
function decoded(request: IncomingMessage, decoder: Transform, coding: string, log: Logger): Transform {
  let failure: string | undefined;
  decoder.on('error', (error) => (failure = error.message));
  decoder.on('close', () => log.debug({ coding, failure }, 'request body: decoding stopped'));
  // Its failures are the decoder's 'error' (kept above): pipeline destroys it with them.
  pipeline(request, decoder, () => undefined);
  const { 'content-encoding': _coding, 'content-length': _length, ...headers } = request.headers;
  return Object.assign(decoder, { headers });
}

/**
 * A Content-Encoding as the body reader names its codings: they are case-insensitive
 * (RFC 9110 §8.4.1), so `GZIP` is gzip, and `x-gzip` is gzip too (§8.4.1.3).
 */
export function contentCoding(value: string): string {
  const coding = value.trim().toLowerCase();
  return coding === 'x-gzip' ? 'gzip' : coding;
}

function bodyReadError(error: unknown): unknown {
  const e = error as { status?: unknown; message?: unknown };
  if (e.status === 415 && typeof e.message === 'string' && e.message.includes('Content-Encoding')) {
    return new HttpError(415, UNSUPPORTED_ENCODING_MESSAGE);
  }
  // raw-body's own errors (too large, aborted, bad JSON) carry their 4xx status already.
  if (typeof e.status === 'number') return error;
  return new HttpError(400, UNDECODABLE_BODY_MESSAGE, {}, { cause: error });
}

/** 400 when the path, query or parsed body holds a NUL or a string that is not valid UTF-16. */
export function refuseBadCharacters(): Middleware<AppState> {
  return async (ctx, next) => {
    let path: string;
    try {
      path = decodeURIComponent(ctx.path);
    } catch {
      throw badRequest('The address is not valid.');
    }
    if (!acceptable(path)) throw badRequest(BAD_CHARACTERS_MESSAGE);
    if (!allStringsAcceptable(ctx.query) || !allStringsAcceptable((ctx.request as { body?: unknown }).body)) {
      throw badRequest(BAD_CHARACTERS_MESSAGE);
    }
    await next();
  };
}

function acceptable(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/** Every string (keys included) in a parsed JSON value; iterative, so deep nesting cannot overflow. */
export function allStringsAcceptable(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (!acceptable(item)) return false;
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (!acceptable(key)) return false;
        pending.push(child);
      }
    }
  }
  return true;
}
