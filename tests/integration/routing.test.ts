import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { apiRouters } from '../../api/app.ts';
import { BAD_CHARACTERS_MESSAGE } from '../../api/middleware/input.ts';
import { PAYU_CALLBACK_PREFIX } from '../../api/routes/payments.ts';
import { startTestStack } from '../support/stack.ts';
import { createUser, logIn, loopbackAddress, newClient, requestFrom } from '../support/accounts.ts';
import { countLiveSessions } from '../support/rows.ts';

/**
 * One routing rule for the whole app: paths are case-sensitive, and `/api` in any case passes
 * every API guard first. Every route of the route table (read from the routers themselves, so a
 * new route is covered without touching this file) is called as written and in other cases,
 * each from a loopback address of its own, and must show that the Origin check, the session
 * loader, the body parser and the NUL filter ran; only the exact spelling reaches the route.
 */

const stack = await startTestStack({ worker: false });
const NO_ROUTE = 'No such API endpoint.';
const ORIGIN_REFUSED = 'This request came from another site and was refused.';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

type Route = { method: string; path: string };

function routeTable(): Route[] {
  const routes: Route[] = [];
  for (const router of apiRouters(stack.services)) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        routes.push({
          method,
          path: `/api${layer.path}`.replace(/:([A-Za-z]+)/g, (_, name: string) => `${name}-1`),
        });
      }
    }
  }
  return routes;
}

/** The path as written, and spelt in other cases: the prefix, the first letter after it, all of it. */
function variants(path: string): Array<{ path: string; exact: boolean }> {
  const rest = path.slice('/api/'.length);
  const flipped = rest.replace(/[a-z]/i, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
  return [
    { path, exact: true },
    { path: `/API/${rest}`, exact: false },
    { path: `/Api/${rest}`, exact: false },
    { path: `/api/${flipped}`, exact: false },
    { path: path.toUpperCase(), exact: false },
  ];
}

function call(
  route: { method: string; path: string },
  headers: Record<string, string>,
  body?: string | Buffer,
  query = '',
) {
  return requestFrom(loopbackAddress(), `${stack.url}${route.path}${query}`, {
    method: route.method,
    headers: { origin: stack.url, ...headers },
    body,
  });
}

const message = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { message?: string }).message;
  } catch {
    return /<message>(.*)<\/message>/.exec(text)?.[1];
  }
};

/** A cookie of the right shape that names no session: the session loader clears it. */
const JUNK_SESSION = `legend_session=${'j'.repeat(43)}`;

const routes = routeTable();

describe('one routing rule: every guard on every route, in every case', () => {
  it('finds the route table', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  it('POST /API/auth/logout from another site is refused and the session lives on', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const path of ['/API/auth/logout', '/Api/auth/logout', '/api/AUTH/logout', '/api/auth/logout']) {
      const reply = await requestFrom(loopbackAddress(), `${stack.url}${path}`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', cookie },
      });
      expect(reply.status, path).toBe(403);
    }
    expect(await countLiveSessions(stack.services.db, user.id)).toBe(1);
    // Same-site, in another case: the guards pass, and no route answers.
    const upper = await client.call('/API/auth/logout', { method: 'POST' });
    expect(upper.status).toBe(404);
    expect(upper.body.message).toBe(NO_ROUTE);
    expect(await countLiveSessions(stack.services.db, user.id)).toBe(1);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: the guards run in every case, and only the exact spelling is routed',
    async (_name, route) => {
      for (const variant of variants(route.path)) {
        const target = { method: route.method, path: variant.path };
        const label = `${route.method} ${variant.path}`;

        // Origin check (PayU's return is exempt by design, at its exact path only).
        const exempt = variant.path.startsWith(PAYU_CALLBACK_PREFIX);
        if (!SAFE.has(route.method) && !exempt) {
          const crossSite = await call(target, { origin: 'https://evil.example' });
          expect(crossSite.status, label).toBe(403);
          expect(message(crossSite.text), label).toBe(ORIGIN_REFUSED);
        }

        // Session loader (clears a cookie naming no session) and NUL filter (400).
        const nul = await call(target, { cookie: JUNK_SESSION }, undefined, '?x=%00');
        expect(nul.status, label).toBe(400);
        expect(message(nul.text), label).toBe(BAD_CHARACTERS_MESSAGE);
        expect(nul.headers.getSetCookie().join('\n'), label).toMatch(
          /legend_session=;.*expires=Thu, 01 Jan 1970/,
        );

        // Body guards: an unknown type is 415, a body that does not decompress 400.
        if (!SAFE.has(route.method)) {
          const text = await call(target, { 'content-type': 'text/plain' }, 'hello');
          expect(text.status, label).toBe(415);
          const corrupt = await call(
            target,
            { 'content-type': 'application/json', 'content-encoding': 'gzip' },
            '{"a":1}',
          );
          expect(corrupt.status, label).toBe(400);
          expect(message(corrupt.text), label).toContain('Content-Encoding');
          // A well-formed gzip body passes the parser (whatever the route then says of it).
          const gzip = await call(
            target,
            { 'content-type': 'application/json', 'content-encoding': 'gzip' },
            gzipSync('{}'),
          );
          expect(gzip.status, label).toBeLessThan(500);
        }

        // Past every guard: only the exact spelling reaches a route.
        const plain = await call(target, {});
        expect(plain.status, label).toBeLessThan(500);
        if (variant.exact) expect(message(plain.text), label).not.toBe(NO_ROUTE);
        else {
          expect(plain.status, label).toBe(404);
          expect(message(plain.text), label).toBe(NO_ROUTE);
        }
      }
    },
  );
});
