import { randomBytes, randomInt } from 'node:crypto';
import { insertUser, type User } from '../../core/db/users.ts';
import { hashPassword } from '../../core/passwords.ts';
import { waitFor, type TestStack } from './stack.ts';

/**
 * Helpers for the account tests: a browser-like client that keeps cookies, quick users, and
 * codes and links read from the sandbox inbox.
 */

export const GOOD_PASSWORD = 'Str0ng!Passw0rd';

export type Reply = { status: number; body: any; headers: Headers };

export type Client = {
  ip: string;
  call: (
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ) => Promise<Reply>;
  cookies: Map<string, string>;
};

/**
 * A client with its own cookie jar and its own address (the stack must trust proxies, so
 * X-Forwarded-For sets it): per-address limits of one test do not spill into another.
 */
export function newClient(
  stack: TestStack,
  ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`,
): Client {
  const cookies = new Map<string, string>();
  return {
    ip,
    cookies,
    async call(path, init = {}) {
      const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const response = await fetch(`${stack.url}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        redirect: 'manual',
        headers: {
          origin: stack.url,
          'x-forwarded-for': ip,
          ...(cookie ? { cookie } : {}),
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        body:
          init.body === undefined
            ? undefined
            : typeof init.body === 'string'
              ? init.body
              : JSON.stringify(init.body),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';');
        const index = pair.indexOf('=');
        const name = pair.slice(0, index).trim();
        const value = pair.slice(index + 1).trim();
        const expired = attributes.some(
          (a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a),
        );
        if (!value || expired) cookies.delete(name);
        else cookies.set(name, value);
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: response.status, body, headers: response.headers };
    },
  };
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}

/** A user straight in the database (for tests that are not about signing up). */
export async function createUser(
  stack: TestStack,
  options: { email?: string; name?: string; password?: string | null; phone?: string | null } = {},
): Promise<User & { password: string }> {
  const password = options.password === undefined ? GOOD_PASSWORD : options.password;
  const user = await insertUser(stack.services.db, {
    email: options.email ?? uniqueEmail(),
    name: options.name ?? 'Asha Rao',
    phone: options.phone === undefined ? '9876543210' : options.phone,
    passwordHash: password ? await hashPassword(password) : null,
    googleSub: null,
  });
  return { ...user, password: password ?? '' };
}

/** Logs a client in by password; fails the test if that does not work. */
export async function logIn(client: Client, email: string, password = GOOD_PASSWORD): Promise<Reply> {
  const reply = await client.call('/api/auth/login', { body: { email, password } });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply;
}

/** The newest mail to `to` whose subject contains `subject`, waiting for the worker to send it. */
export async function waitForMail(stack: TestStack, to: string, subject: string, after = '') {
  return waitFor(`a mail "${subject}" to ${to}`, async () =>
    (await stack.mailTo(to)).find((m) => m.subject.includes(subject) && m.sentAt > after),
  );
}

/** The 6-digit code of the newest such mail. */
export async function mailedCode(stack: TestStack, to: string, subject: string, after = ''): Promise<string> {
  const mail = await waitForMail(stack, to, subject, after);
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in ${mail.text}`);
  return code;
}

/** A wrong 6-digit code, surely different from `code`. */
export function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}
