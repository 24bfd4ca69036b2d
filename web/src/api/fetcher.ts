import {
  SESSION_ENDED_MESSAGE,
  SIGNED_OUT_PASSWORD_CHANGED_MESSAGE,
} from '../../../core/domain/sessionEnded.ts';
import { sessionEndedBecause, sessionLost } from './sessionEnded.ts';

/** The one way the SPA talks to the API. Errors carry the server's `message` for the UI to show. */

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** Shown when the request never reached the server (offline, DNS, server down). */
const NETWORK_MESSAGE = 'Server not reachable';

type Options = { method?: string; body?: unknown; signal?: AbortSignal };

export async function api<T>(path: string, options: Options = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      credentials: 'include',
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, NETWORK_MESSAGE);
  }
  // The server says why this device was signed out (a password change elsewhere): the app says so.
  const endedBecause = response.headers.get('x-session-ended');
  if (endedBecause) sessionEndedBecause(endedBecause);
  const text = await response.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      // Our API answers JSON; a success that is not (a captive portal's or a proxy's page) did not
      // come from it. An error page keeps its status, and the message falls back below.
      if (response.ok) throw new ApiError(0, NETWORK_MESSAGE);
    }
  }
  // A 401 outside the sign-in calls (where it means a wrong password or code) is the session
  // gone: on a signed-in page the whole app says so, and the caller's message says the same.
  if (response.status === 401 && !path.startsWith('/auth/') && sessionLost()) {
    throw new ApiError(
      401,
      endedBecause === 'password-changed' ? SIGNED_OUT_PASSWORD_CHANGED_MESSAGE : SESSION_ENDED_MESSAGE,
    );
  }
  if (!response.ok) {
    const body = (data ?? {}) as { message?: unknown; error?: unknown };
    const message =
      typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : '';
    throw new ApiError(response.status, message);
  }
  return data as T;
}

/**
 * A failure that may pass by itself: the server not reached, busy (429), timing out (408) or
 * failing (5xx, a restart). Any other 4xx is the server's considered answer.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

/** swr's fetcher: the key is the API path. */
export const swrFetcher = <T>(path: string) => api<T>(path);

/** The message to show for a failed call: the server's, else the error's own, else `fallback`. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.message) return error.message;
  if (error instanceof Error && error.message && !(error instanceof ApiError)) return error.message;
  return fallback;
}
