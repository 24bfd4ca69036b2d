import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../core/crypto/passwords.ts';
import { createDbPool } from '../../core/db/pool.ts';
import { insertUser } from '../../core/db/users.ts';
import { freePort } from '../../scripts/lib/postgres.ts';
import { freshDatabase } from '../support/db.ts';
import { waitFor } from '../support/stack.ts';
import { GOOD_PASSWORD, loopbackAddress, requestFrom, uniqueEmail } from '../support/accounts.ts';

/**
 * Two real web processes (`node api/main.ts`) over one database, as behind a load balancer. Each
 * keeps the sessions it read in memory for a few seconds; a session revoked through one of them
 * (logout, account deletion) must be refused by the other at once, not when its memory expires.
 */

const databaseUrl = await freshDatabase();
const db = await createDbPool(databaseUrl);
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await db.end();
});

async function startWeb(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['api/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      APP_SECRET: 'test-secret-test-secret-test-secret-000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    'the web process to be ready',
    async () =>
      (await fetch(`${url}/readyz`)
        .then((r) => r.ok)
        .catch(() => false)) || null,
    60_000,
  );
  return url;
}

const [first, second] = await Promise.all([startWeb(), startWeb()]);

/** A browser at an address of its own, whose cookies either web process may receive. */
function browser() {
  const ip = loopbackAddress();
  let cookie = '';
  return {
    /** The session cookie this browser holds (settable: a copy kept after logout, as a thief would). */
    get cookie() {
      return cookie;
    },
    set cookie(value: string) {
      cookie = value;
    },
    async call(base: string, path: string, init: { method?: string; body?: unknown } = {}) {
      const reply = await requestFrom(ip, `${base}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          origin: base,
          ...(cookie ? { cookie } : {}),
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const session = reply.headers
        .getSetCookie()
        .map((line) => /^legend_session=([^;]*)/.exec(line)?.[1])
        .find((value) => value !== undefined);
      if (session !== undefined) cookie = session ? `legend_session=${session}` : '';
      return { status: reply.status, body: JSON.parse(reply.text) as Record<string, unknown> };
    },
    /** The session as `base` sees it, by the session check the SPA makes on every page. */
    async who(base: string): Promise<unknown> {
      const reply = await requestFrom(ip, `${base}/api/auth/session`, {
        method: 'GET',
        headers: cookie ? { cookie } : {},
      });
      return (JSON.parse(reply.text) as { email: unknown }).email;
    },
  };
}

async function user() {
  const email = uniqueEmail('two-webs');
  await insertUser(db, {
    email,
    name: 'Asha Rao',
    phone: '9876543210',
    passwordHash: await hashPassword(GOOD_PASSWORD),
    googleSub: null,
  });
  return email;
}

/** Signed in through the first process, and known (so held in memory) by the second. */
async function signedInEverywhere(email: string) {
  const b = browser();
  const login = await b.call(first, '/api/auth/login', { body: { email, password: GOOD_PASSWORD } });
  expect(login.status).toBe(200);
  expect(await b.who(second)).toBe(email);
  expect(await b.who(second)).toBe(email);
  return b;
}

describe('a session revoked in one web process', () => {
  it('is refused at once by the other after a logout, round after round', async () => {
    const email = await user();
    for (let round = 0; round < Number(process.env.REVOKE_ROUNDS ?? 5); round++) {
      const b = await signedInEverywhere(email);
      const copy = b.cookie;
      expect((await b.call(first, '/api/auth/logout', { method: 'POST' })).status).toBe(200);
      // The cookie the logout cleared is sent again, as a copy of it would be.
      b.cookie = copy;
      expect(await b.who(second), `round ${round}`).toBeNull();
    }
  });

  it('is refused at once by the other after the account is deleted, for every browser', async () => {
    const email = await user();
    const laptop = await signedInEverywhere(email);
    const phone = await signedInEverywhere(email);
    const deleted = await laptop.call(first, '/api/user', { method: 'DELETE', body: { email } });
    expect(deleted.status).toBe(200);
    expect(await phone.who(second)).toBeNull();
  });
});
