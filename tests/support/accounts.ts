import { randomBytes, randomInt } from 'node:crypto';
import { generate } from 'otplib';
import { request as httpRequest } from 'node:http';
import { insertUser, type User } from '../../core/db/users.ts';
import { hashPassword } from '../../core/crypto/passwords.ts';
import { SANDBOX_GOOGLE_CLIENT_ID } from '../../core/config/config.ts';
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
 * A client with its own cookie jar and its own address: it connects from a loopback address of
 * its own (127.x.y.z; the whole 127/8 block reaches the server on Linux), so per-address limits
 * of one test do not spill into another, exactly as distinct real clients would be counted.
 */
export function newClient(stack: TestStack, ip = loopbackAddress(), sameBrowserAs?: Client): Client {
  // The same browser on another network (a phone moving from Wi-Fi to mobile data) shares its cookies.
  const cookies = sameBrowserAs?.cookies ?? new Map<string, string>();
  return {
    ip,
    cookies,
    async call(path, init = {}) {
      const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const response = await requestFrom(ip, `${stack.url}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          origin: stack.url,
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
      let body: unknown = response.text;
      try {
        body = JSON.parse(response.text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body, headers: response.headers };
    },
  };
}

/** A random loopback address other than 127.0.0.1 (which the stack's own `api` helper uses). */
export function loopbackAddress(): string {
  return `127.${randomInt(256)}.${randomInt(256)}.${randomInt(2, 255)}`;
}

/**
 * One HTTP request sent from the local address `from` (fetch cannot choose its source
 * address). No redirects are followed.
 */
export function requestFrom(
  from: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Buffer | undefined },
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    // Node sends a DELETE's body neither chunked nor with a length unless told its length.
    const length = init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) };
    const request = httpRequest(
      url,
      { method: init.method, headers: { ...init.headers, ...length }, localAddress: from, agent: false },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        const finish = () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              headers.append(name, one);
            }
          }
          resolve({
            status: response.statusCode ?? 0,
            headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        };
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', finish);
        // A server refusing an over-long body answers before reading it all and closes the
        // connection: the answer counts, the reset of our unfinished upload does not.
        response.on('error', finish);
      },
    );
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.end(init.body);
  });
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

/**
 * A client signed in with Google through the sandbox's sign-in page, as the browser does (a
 * nonce, the sandbox's form, the ID token back to `/api/auth/google`): for a new email, an
 * account with no password and no phone. Fails the test if the sign-in does not work.
 */
export async function googleClient(stack: TestStack, email: string, name = 'Sana Khan'): Promise<Client> {
  const client = newClient(stack);
  const nonce = (await client.call('/api/auth/google/nonce', { method: 'POST' })).body.nonce as string;
  const form = new URLSearchParams({
    client_id: SANDBOX_GOOGLE_CLIENT_ID,
    redirect_uri: `${stack.url}/auth/google/callback`,
    state: 'state-1',
    nonce,
    name,
    email,
    email_verified: 'true',
  });
  const authorized = await client.call('/sandbox/google/authorize', {
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const token = new URLSearchParams(new URL(authorized.headers.get('location')!).hash.slice(1)).get(
    'id_token',
  );
  const reply = await client.call('/api/auth/google', { body: { credential: token } });
  if (reply.status !== 200)
    throw new Error(`Google sign-in failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return client;
}

/** A TOTP code for `secret`, `steps` 30-second steps from now (the server accepts one either side). */
export const totp = (secret: string, steps = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

/** A user with two-factor on, enrolled through the API as a person would: its client, secret and recovery codes. */
export async function withTwoFactor(stack: TestStack) {
  const user = await createUser(stack);
  const client = newClient(stack);
  await logIn(client, user.email);
  const setup = await client.call('/api/user/two-factor/setup', { method: 'POST' });
  if (setup.status !== 200) throw new Error(`two-factor set-up failed: ${setup.status}`);
  const secret = setup.body.secret as string;
  const enabled = await client.call('/api/user/two-factor/enable', { body: { code: await totp(secret) } });
  if (enabled.status !== 200) throw new Error(`two-factor enable failed: ${enabled.status}`);
  return { user, client, secret, recoveryCodes: enabled.body.recoveryCodes as string[] };
}
