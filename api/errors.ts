/**
 * Errors a route throws on purpose. The error middleware turns them into a status and a
 * `{ message }` the SPA shows as it is, so the message is written for the person using it.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Fields sent beside `message` (e.g. `proofOfWork: true`), for the SPA to act on. */
  readonly details: Record<string, unknown>;
  constructor(
    status: number,
    message: string,
    headers: Record<string, string> = {},
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
    this.details = options.details ?? {};
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Please log in to continue.') => new HttpError(401, message);
export const forbidden = (message = 'You are not allowed to do that.') => new HttpError(403, message);
export const notFound = (message = 'Not found.') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const tooManyRequests = (
  retryAfterSeconds: number,
  message = 'Too many attempts. Please try again later.',
) => new HttpError(429, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
