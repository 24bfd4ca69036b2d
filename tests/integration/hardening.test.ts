import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import type { Services } from '../../api/services.ts';
import { createDbPool, sql } from '../../core/db/pool.ts';
import { awsRegionPingUrl } from '../../core/config/connectionCheckConfig.ts';
import { startTestStack, waitFor, type TestStack } from '../support/stack.ts';
import {
  createUser,
  GOOD_PASSWORD,
  logIn,
  loopbackAddress,
  mailedCode,
  newClient,
  otherCode,
  requestFrom,
  uniqueEmail,
  withTwoFactor,
} from '../support/accounts.ts';

/**
 * Safe behind a proxy and under attack: which address a request counts against, lockouts an
 * attacker cannot aim at someone else, attempt budgets under parallel guessing, malformed
 * bytes, an unreachable database, and the production defaults (HTTPS, headers, source maps).
 */

const stack = await startTestStack({ worker: true });
const db = stack.services.db;

/** Serves `app`-like handlers on a loopback port; closed after the file. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${port}`, server };
}

/**
 * A reverse proxy like a load balancer: forwards to `target` and appends the address the
 * request came from to X-Forwarded-For (whatever the client wrote stays to its left).
 */
async function appendingProxy(target: string): Promise<string> {
  const { url } = await serve((incoming, outgoing) => {
    const forwarded = incoming.headers['x-forwarded-for'];
    const client = incoming.socket.remoteAddress ?? '';
    const headers = {
      ...incoming.headers,
      'x-forwarded-for': forwarded ? `${String(forwarded)}, ${client}` : client,
      'x-forwarded-proto': 'http',
    };
    const upstream = httpRequest(
      `${target}${incoming.url ?? '/'}`,
      { method: incoming.method, headers, agent: false },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      outgoing.statusCode = 502;
      outgoing.end();
    });
    incoming.pipe(upstream);
  });
  return url;
}

/** Sends a body as `client` would, through `base` (a proxy or the stack), from `from`. */
async function post(
  base: string,
  from: string,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const reply = await requestFrom(from, `${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return reply;
}

const randomAddress = () =>
  `${1 + Math.floor(Math.random() * 222)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

describe('the client address', () => {
  it('is the socket address by default: a forged X-Forwarded-For changes nothing', async () => {
    const from = loopbackAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const reply = await post(
        stack.url,
        from,
        '/api/report-problem',
        { title: 'Forged', description: 'Rotating the header', phoneNumber: '9876543210' },
        { 'x-forwarded-for': randomAddress() },
      );
      statuses.push(reply.status);
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  describe('behind one trusted hop (TRUST_PROXY_HOPS=1)', async () => {
    const behind: TestStack = await startTestStack({ worker: false, env: { TRUST_PROXY_HOPS: '1' } });
    const proxy = await appendingProxy(behind.url);

    it('counts 300 login attempts with a rotating X-Forwarded-For against the one real address', async () => {
      const attacker = loopbackAddress();
      let passed = 0;
      for (let i = 0; i < 300; i++) {
        const reply = await post(
          proxy,
          attacker,
          '/api/auth/login',
          { email: uniqueEmail('spray'), password: 'Wr0ng!Password' },
          { 'x-forwarded-for': randomAddress() },
        );
        expect([401, 429]).toContain(reply.status);
        if (reply.status !== 429) passed++;
      }
      console.log(`rotating X-Forwarded-For behind one hop: ${passed} of 300 login attempts passed`);
      expect(passed).toBe(100); // the per-address limit
      // Another client behind the same proxy is its own address, untouched by the first.
      const other = await post(proxy, loopbackAddress(), '/api/auth/login', {
        email: uniqueEmail(),
        password: 'Wr0ng!Password',
      });
      expect(other.status).toBe(401);
    }, 180_000);

    it('limits one account from one address to ten tries, however the header rotates', async () => {
      const attacker = loopbackAddress();
      const email = uniqueEmail('target');
      let passed = 0;
      for (let i = 0; i < 30; i++) {
        const reply = await post(
          proxy,
          attacker,
          '/api/auth/login',
          { email, password: 'Wr0ng!Password' },
          { 'x-forwarded-for': randomAddress() },
        );
        if (reply.status !== 429) passed++;
      }
      expect(passed).toBe(10);
    }, 60_000);
  });
});

describe('attempt budgets under parallel guessing', () => {
  it('tries at most five of ten concurrent wrong second-factor codes', async () => {
    const { user } = await withTwoFactor(stack);
    const client = newClient(stack);
    const first = await client.call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(first.body.twoFactorRequired).toBe(true);
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => client.call('/api/auth/two-factor', { body: { code: '000000' } })),
    );
    const tried = replies.filter((r) => r.status === 400).length;
    const refused = replies.filter((r) => r.status === 401).length;
    console.log(`2FA race: 10 concurrent wrong codes → ${tried} tried, ${refused} refused unseen`);
    expect(tried).toBeLessThanOrEqual(5);
    expect(tried + refused).toBe(10);
    const attempts = await db.oneFirst(
      sql.unsafe`SELECT max(attempts) FROM two_factor_challenges WHERE user_id = ${user.id}`,
    );
    expect(attempts).toBe(5);
  });

  it('counts at most five of ten concurrent wrong emailed codes', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await client.call('/api/auth/forgot-password', { body: { email: user.email, method: 'otp' } });
    const code = await mailedCode(stack, user.email, 'login code');
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        client.call('/api/auth/forgot-password/verify-otp', {
          body: { email: user.email, otp: otherCode(code) },
        }),
      ),
    );
    expect(replies.every((r) => r.status === 400)).toBe(true);
    const attempts = await db.oneFirst(
      sql.unsafe`SELECT max(attempts) FROM one_time_codes WHERE email = ${user.email}`,
    );
    expect(attempts).toBe(5);
  });
});

describe('lockouts an attacker cannot aim', () => {
  it('lets the owner in by password and by emailed code while others attack the account', async () => {
    const user = await createUser(stack);
    // Two addresses guess the password until each is locked out, then ask for codes and guess those.
    for (let a = 0; a < 2; a++) {
      const attacker = newClient(stack);
      for (let i = 0; i < 11; i++) {
        await attacker.call('/api/auth/login', { body: { email: user.email, password: `Wr0ng!Pass${i}` } });
      }
      await attacker.call('/api/auth/forgot-password', { body: { email: user.email, method: 'otp' } });
      for (let i = 0; i < 6; i++) {
        await attacker.call('/api/auth/forgot-password/verify-otp', {
          body: { email: user.email, otp: String(100000 + i) },
        });
      }
    }
    // The attackers' code mails reach the owner's inbox too; wait for them to be out of the way.
    await waitFor("the attackers' code mails", async () =>
      (await stack.mailTo(user.email)).filter((m) => m.subject.includes('login code')).length >= 2
        ? true
        : undefined,
    );
    const owner = newClient(stack);
    const started = new Date().toISOString();
    const asked = await owner.call('/api/auth/forgot-password', {
      body: { email: user.email, method: 'otp' },
    });
    expect(asked.status).toBe(200);
    // The newest code mail is the owner's (the attackers' came before it).
    const code = await waitForNewestCode(user.email, started);
    const signedIn = await owner.call('/api/auth/forgot-password/verify-otp', {
      body: { email: user.email, otp: code },
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.email).toBe(user.email);
    // And by password, from an address of their own: slowed, not locked.
    const byPassword = await newClient(stack).call('/api/auth/login', {
      body: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(byPassword.status).toBe(200);
  }, 120_000);
});

async function waitForNewestCode(email: string, after: string): Promise<string> {
  return mailedCode(stack, email, 'login code', after);
}

describe('malformed input', () => {
  const counts = () =>
    db.oneFirst(
      sql.unsafe`SELECT (SELECT count(*) FROM problem_reports) + (SELECT count(*) FROM users) AS n`,
    );

  it.each([
    ['a NUL byte', { title: 'a\u0000b', description: 'x' }],
    ['a lone surrogate', { title: 'a\uD800b', description: 'x' }],
    ['a lone surrogate in a key', { title: 'ok', description: 'x', ['\uDC00']: 1 }],
    ['a wrong type', { title: ['a'], description: 'x' }],
  ])('refuses %s with 400 and stores nothing', async (_what, body) => {
    const before = await counts();
    const reply = await post(stack.url, loopbackAddress(), '/api/report-problem', body);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text).message).toBeTruthy();
    expect(await counts()).toBe(before);
  });

  it('refuses broken JSON (400), another content type (415) and a huge body (413)', async () => {
    const before = await counts();
    const from = loopbackAddress();
    expect((await post(stack.url, from, '/api/auth/login', '{"email":')).status).toBe(400);
    const text = await post(stack.url, from, '/api/auth/login', 'email=a', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(JSON.parse(text.text).message).toBe('Send JSON or a form.');
    const huge = await post(stack.url, from, '/api/report-problem', {
      title: 'x',
      description: 'y'.repeat(200_000),
    });
    expect(huge.status).toBe(413);
    expect(await counts()).toBe(before);
  });

  it('answers a body that does not decompress 400 and an unknown Content-Encoding 415, DCV in its XML', async () => {
    const before = await counts();
    const from = loopbackAddress();
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const corrupt = await post(stack.url, from, '/api/auth/login', '{"email":"a@b.co","password":"x"}', {
        'content-encoding': encoding,
      });
      expect(corrupt.status).toBe(400);
      expect(JSON.parse(corrupt.text).message).toContain('Content-Encoding');
    }
    const zstd = await post(stack.url, from, '/api/report-problem', '{}', { 'content-encoding': 'zstd' });
    expect(zstd.status).toBe(415);
    const dcv = await post(stack.url, from, '/api/dcv/auth', 'sessionId=console&authenticationToken=x', {
      'content-type': 'application/x-www-form-urlencoded',
      'content-encoding': 'gzip',
    });
    expect(dcv.status).toBe(400);
    expect(dcv.headers.get('content-type')).toContain('application/xml');
    expect(dcv.text).toContain('<auth result="no">');
    expect(await counts()).toBe(before);
  });

  it('refuses a NUL byte in the path or the query with 400', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    expect((await client.call('/api/vm/dashboard/a%00b')).status).toBe(400);
    expect((await client.call('/api/vm/check-capacity?plan=%00')).status).toBe(400);
    expect((await client.call('/api/vm/dashboard/%E0%A4%A')).status).toBe(400);
  });
});

describe('paths and codings read as HTTP says', () => {
  it.each([
    ['/api/machine/health', 'application/json'],
    ['/api/machine/health/', 'application/json'],
    ['/api/dcv/auth', 'application/x-www-form-urlencoded'],
    ['/api/dcv/auth/', 'application/x-www-form-urlencoded'],
  ])(
    'refuses a 30 kB body at %s with 413 before reading it, as the router matches the path',
    async (route, type) => {
      const reply = await post(stack.url, loopbackAddress(), route, 'x'.repeat(30_000), {
        'content-type': type,
      });
      expect(reply.status).toBe(413);
      if (route.startsWith('/api/dcv/auth')) expect(reply.text).toContain('<auth result="no">');
    },
  );

  it('reads Content-Encoding without regard to case: GZIP is gzip (RFC 9110 §8.4.1)', async () => {
    for (const encoding of ['GZIP', 'Gzip', ' gzip ', 'x-gzip']) {
      const reply = await requestFrom(loopbackAddress(), `${stack.url}/api/report-problem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding, origin: stack.url },
        body: gzipSync(
          JSON.stringify({
            title: `coded ${encoding}`,
            description: 'gzip in capitals',
            phoneNumber: '9876543210',
          }),
        ),
      });
      expect(reply.status, encoding).toBe(201);
    }
    const deflate = await requestFrom(loopbackAddress(), `${stack.url}/api/report-problem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'DEFLATE', origin: stack.url },
      body: deflateSync(
        JSON.stringify({ title: 'deflated', description: 'in capitals', phoneNumber: '9876543210' }),
      ),
    });
    expect(deflate.status).toBe(201);
  });

  it("answers GET //api/vm/dashboard with the API's 404, not a body error", async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    for (const path of ['//api/vm/dashboard', '///api/vm/dashboard', '//API/vm/dashboard']) {
      const reply = await client.call(path, { headers: { accept: 'application/json' } });
      expect(reply.status, path).toBe(404);
      expect(reply.body.message, path).toBe('No such API endpoint.');
    }
  });
});

describe('a request body that never arrives', async () => {
  // A short bound, so the test waits a second rather than the production 30 s.
  const slow = await startTestStack({ worker: false, env: { REQUEST_TIMEOUT_SECONDS: '1' } });

  it('is cut after REQUEST_TIMEOUT_SECONDS with a 408 and the connection closed', async () => {
    const { port } = new URL(slow.url);
    const socket = net.connect({ host: '127.0.0.1', port: Number(port), localAddress: loopbackAddress() });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Says 100 bytes are coming, sends 10, and then nothing.
    socket.write(
      [
        'POST /api/report-problem HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        `Origin: ${slow.url}`,
        'Content-Type: application/json',
        'Content-Length: 100',
        '',
        '{"title":',
      ].join('\r\n'),
    );
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('the database out of reach', () => {
  it('answers API calls 503 with Retry-After, not 500, and recovers when it is back', async () => {
    // A relay between the web process and Postgres that can be cut, as a network failure would.
    const target = new URL(stack.databaseUrl);
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((incoming) => {
      const outgoing = net.connect(Number(target.port), target.hostname);
      for (const s of [incoming, outgoing]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      incoming.pipe(outgoing).pipe(incoming);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayPort = (relay.address() as net.AddressInfo).port;
    const relayed = new URL(stack.databaseUrl);
    relayed.port = String(relayPort);
    const relayPg = new pg.Pool({ connectionString: relayed.toString(), connectionTimeoutMillis: 2000 });
    relayPg.on('error', (error) => stack.services.log.info({ err: error }, 'relay pool lost a connection'));
    const relayDb = await createDbPool(relayed.toString());
    const services: Services = { ...stack.services, db: relayDb, pgPool: relayPg };
    const { url } = await serve(createApp(services).callback());
    // The session check reads the database for any session cookie.
    const plans = () =>
      requestFrom(loopbackAddress(), `${url}/api/auth/login`, {
        method: 'GET',
        headers: { cookie: `legend_session=${'a'.repeat(43)}` },
      });
    expect((await plans()).status).toBe(401);

    await new Promise((resolve) => {
      relay.close(resolve);
      for (const s of sockets) s.destroy();
    });
    const down = await plans();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(JSON.parse(down.text).message).toMatch(/database/);
    const report = await post(url, loopbackAddress(), '/api/report-problem', {
      title: 'x',
      description: 'y',
      phoneNumber: '9876543210',
    });
    expect(report.status).toBe(503);

    await new Promise<void>((resolve) => relay.listen(relayPort, '127.0.0.1', resolve));
    expect(
      await waitFor('the API to answer again', async () =>
        (await plans()).status === 401 ? true : undefined,
      ),
    ).toBe(true);
    relay.close();
    for (const s of sockets) s.destroy();
    await relayPg.end();
    await relayDb.end();
  });
});

describe('production defaults', async () => {
  const production = {
    ...stack.services,
    config: {
      ...stack.config,
      production: true,
      publicUrl: 'https://legend.example',
      trustProxyHops: 1,
      // What production's configuration names by default (core/config/config.connectionCheck.test.ts).
      connectionCheck: { pingUrl: awsRegionPingUrl('ap-south-1'), region: 'ap-south-1' },
    },
  };
  const { url } = await serve(createApp(production).callback());

  it('redirects plain-HTTP pages to HTTPS and refuses plain-HTTP posts with a clear 400', async () => {
    const page = await requestFrom(loopbackAddress(), `${url}/login?next=%2F`, {
      method: 'GET',
      headers: {},
    });
    expect(page.status).toBe(308);
    expect(page.headers.get('location')).toBe('https://legend.example/login?next=%2F');
    const login = await post(url, loopbackAddress(), '/api/auth/login', { email: 'a@b.co', password: 'x' });
    expect(login.status).toBe(400);
    expect(JSON.parse(login.text).message).toContain('HTTPS');
    // Load balancers probe health over plain HTTP.
    const health = await requestFrom(loopbackAddress(), `${url}/healthz`, { method: 'GET', headers: {} });
    expect(health.status).toBe(200);
    // Through the trusted proxy that says HTTPS, the request goes on (a wrong password here).
    const viaProxy = await post(
      url,
      loopbackAddress(),
      '/api/auth/login',
      { email: uniqueEmail(), password: 'Wr0ng!Password' },
      { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7', origin: 'https://legend.example' },
    );
    expect(viaProxy.status).toBe(401);
  });

  it('sends HSTS, a CSP without unsafe-inline that forbids framing, and COOP/CORP', async () => {
    const reply = await requestFrom(loopbackAddress(), `${url}/healthz`, { method: 'GET', headers: {} });
    const csp = reply.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(reply.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
    expect(reply.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(reply.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("lets pages fetch from our origin and the connection check's regional endpoint, nothing more", async () => {
    const reply = await requestFrom(loopbackAddress(), `${url}/healthz`, { method: 'GET', headers: {} });
    const directives = (reply.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
    expect(directives.filter((d) => d.startsWith('connect-src'))).toEqual([
      "connect-src 'self' https://dynamodb.ap-south-1.amazonaws.com",
    ]);
  });
});

const SHELL = '<!doctype html><title>Legend</title>';

describe('the built app', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'legend-spa-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), SHELL);
  await writeFile(path.join(dir, 'assets', 'app.js'), 'console.log(1)');
  await writeFile(path.join(dir, 'assets', 'app.js.map'), '{"version":3}');
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves no source maps unless SERVE_SOURCE_MAPS is on', async () => {
    const closed = await serve(createApp(stack.services, { spaDir: dir }).callback());
    const get = (base: string, p: string) =>
      requestFrom(loopbackAddress(), `${base}${p}`, { method: 'GET', headers: {} });
    expect((await get(closed.url, '/assets/app.js')).status).toBe(200);
    expect((await get(closed.url, '/assets/app.js.map')).status).toBe(404);
    const open = await serve(
      createApp(
        { ...stack.services, config: { ...stack.config, serveSourceMaps: true } },
        { spaDir: dir },
      ).callback(),
    );
    expect((await get(open.url, '/assets/app.js.map')).status).toBe(200);
  });

  it('answers a path with an empty segment (//foo) like any unknown page: 404 with the shell, never 400', async () => {
    const { url } = await serve(createApp(stack.services, { spaDir: dir }).callback());
    const get = (p: string) =>
      requestFrom(loopbackAddress(), `${url}${p}`, { method: 'GET', headers: { accept: 'text/html' } });
    const unknown = await get('/no/such/page');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe(SHELL);
    // RFC 3986 §3.3: a request target's path may hold empty segments (`//foo` is a path, not an
    // authority), and `/C:/foo`, an escaped slash or backslash are segments like any other.
    // None is a page or a file of ours.
    for (const p of [
      '//foo',
      '///foo',
      '//',
      '//services',
      '//assets/app.js',
      '/C:/foo',
      '/%2F%2Ffoo',
      '/%5Cfoo',
    ]) {
      const reply = await get(p);
      expect(reply.status, p).toBe(404);
      expect(reply.text, p).toBe(SHELL);
    }
    // Nor is a path that climbs out of the app's folder: no file is read outside it.
    const climbing = await get('/..%2f..%2fetc/passwd');
    expect(climbing.status).toBe(404);
    expect(climbing.text).toBe(SHELL);
    // The pages and files themselves are answered as before.
    expect((await get('/assets/app.js')).text).toBe('console.log(1)');
    expect((await get('/services')).status).toBe(200);
  });

  it('sends a browser that opened 127.0.0.1 to the localhost origin PUBLIC_URL names, and lets it post to the checkout', async () => {
    const { url } = await serve(createApp(stack.services, { spaDir: dir }).callback());
    const port = new URL(url).port;
    expect(stack.config.publicUrl).toBe(`http://localhost:${stack.config.port}`);
    const page = await requestFrom(loopbackAddress(), `${url}/dashboard`, {
      method: 'GET',
      headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' },
    });
    expect(page.status).toBe(308);
    expect(page.headers.get('location')).toBe(`${stack.config.publicUrl}/dashboard`);
    // API calls and the sandbox are answered where they arrive.
    const api = await requestFrom(loopbackAddress(), `${url}/api/plans`, { method: 'GET', headers: {} });
    expect(api.status).toBe(200);
    const csp = api.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`form-action 'self' ${new URL(stack.config.payu.checkoutUrl).origin}`);
    expect(port).not.toBe('');
  });
});
