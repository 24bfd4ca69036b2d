import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRouters } from '../../api/app.ts';
import { OWNER_WARNING_KINDS } from '../../core/domain/ownerWarnings.ts';
import { startTestStack } from '../support/stack.ts';
import { createUser, logIn, loopbackAddress, newClient, requestFrom } from '../support/accounts.ts';

/**
 * Property-based fuzzing of every /api route in the route table: generated bodies (and queries)
 * shaped like each route's zod schema but filled with hostile values — NUL bytes, lone
 * surrogates, over-long strings, wrong types, broken JSON, wrong or mismatched content types,
 * corrupt, truncated and unsupported Content-Encodings — sent by a
 * signed-in client from a fresh loopback address each time (so rate limits do not hide the
 * handlers). Every answer must be below 500, and every refusal must leave the database as it
 * was: no row of ours and no job added or removed.
 */

const stack = await startTestStack({ worker: false });
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 200);

type Route = { method: string; path: string; keys: string[]; source: 'body' | 'query' };

/** The keys of an object schema, through zod 4's wrappers (pipes, optional, refinements). */
function schemaKeys(schema: z.ZodType | undefined): string[] {
  let current: unknown = schema;
  for (let i = 0; i < 5 && current; i++) {
    if (current instanceof z.ZodObject) return Object.keys(current.shape);
    const def = (current as { _zod?: { def?: { in?: unknown; innerType?: unknown; schema?: unknown } } })._zod
      ?.def;
    current = def?.in ?? def?.innerType ?? def?.schema;
  }
  return [];
}

function routeTable(): Route[] {
  const routes: Route[] = [];
  for (const router of apiRouters(stack.services)) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      const validator = layer.stack.find((m) => 'schema' in m) as
        { schema: z.ZodType; source: 'body' | 'query' } | undefined;
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        routes.push({
          method,
          path: `/api${layer.path}`,
          keys: schemaKeys(validator?.schema),
          source: validator?.source ?? (method === 'GET' ? 'query' : 'body'),
        });
      }
    }
  }
  return routes;
}

const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\uD800',
    'x\uDFFFy',
    '\uDBFF\uDBFF',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    "'; DROP TABLE users; --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    '%00',
    ' ',
    '',
    '9'.repeat(400),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  // Longer than any field allows; bodies over the size limit are generated below.
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(1000 + n)),
);

/** Values a real client might send for a key, so bodies get past the first checks. */
function plausible(key: string): fc.Arbitrary<unknown> {
  const name = key.toLowerCase();
  if (name.includes('email')) return fc.emailAddress();
  if (name.includes('phone')) return fc.constantFrom('9876543210', '+919876543210');
  if (name.includes('password')) return fc.constantFrom('Wr0ng!Password', 'N3w!Passw0rd-long');
  if (name.includes('otp') || name === 'code') return fc.stringMatching(/^\d{6}$/);
  if (name.includes('plan')) return fc.constantFrom('LEGEND', 'PRO LEGEND', 'legend', 'TRIAL');
  if (name.includes('method')) return fc.constantFrom('link', 'otp', 'card');
  return fc.string({ maxLength: 60 });
}

function valueFor(key: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: plausible(key) },
    { weight: 2, arbitrary: plausible(key).map((v) => `${String(v)}\u0000`) },
    { weight: 2, arbitrary: plausible(key).map((v) => `${String(v)}\uD800`) },
    { weight: 4, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
    { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }) },
  );
}

type Case = {
  body: string | Buffer | undefined;
  contentType: string | undefined;
  query: string;
  encoding?: string;
};

/** A body under a Content-Encoding: compressed for real, truncated, not compressed at all, or an encoding we do not speak. */
const encoded = (body: string, contentType: string): fc.Arbitrary<Case> =>
  fc
    .tuple(
      fc.constantFrom(
        'gzip',
        'deflate',
        'br',
        'GZIP',
        'x-gzip',
        'zstd',
        'compress',
        'gzip, br',
        'identity',
        '',
      ),
      fc.constantFrom('real', 'truncated', 'plain'),
    )
    .map(([encoding, how]) => {
      const compress: Record<string, (b: Buffer) => Buffer> = {
        gzip: gzipSync,
        deflate: deflateSync,
        br: brotliCompressSync,
      };
      const raw = Buffer.from(body);
      const packed = how === 'plain' || !compress[encoding] ? raw : compress[encoding](raw);
      const sent = how === 'truncated' ? packed.subarray(0, Math.max(1, packed.length - 4)) : packed;
      return { body: sent, contentType, query: '', encoding };
    });

function casesFor(route: Route): fc.Arbitrary<Case> {
  const shaped = fc.record(Object.fromEntries(route.keys.map((k) => [k, valueFor(k)])), {
    requiredKeys: [],
  });
  const extra = fc.dictionary(hostileString, valueFor('x'), { maxKeys: 2 });
  const object = fc.tuple(shaped, extra).map(([a, b]) => ({ ...b, ...a }));
  const toQuery = (value: Record<string, unknown>) =>
    new URLSearchParams(
      Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]),
    ).toString();
  if (route.source === 'query') {
    return object.map((value) => ({ body: undefined, contentType: undefined, query: toQuery(value) }));
  }
  return fc.oneof(
    { weight: 12, arbitrary: object.map((v) => json(v)) },
    // Broken JSON, JSON that is not an object, and JSON far over the size limit.
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom('{', '{"a":', 'null', '"text"', '[1,2]', '{"a":1}}', '\u0000', '{"a":"\\ud800"}'),
          fc.string({ unit: 'binary', maxLength: 50 }),
          fc.constant(`{"a":"${'x'.repeat(100_000)}"}`),
        )
        .map((body) => ({ body, contentType: 'application/json', query: '' })),
    },
    // A body of the wrong type altogether.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          object,
          fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'image/png'),
        )
        .map(([v, contentType]) => ({ body: JSON.stringify(v), contentType, query: '' })),
    },
    // The same under a Content-Encoding, corrupt or not, and JSON sent as a form or the reverse.
    {
      weight: 3,
      arbitrary: fc
        .tuple(object, fc.constantFrom('application/json', 'application/x-www-form-urlencoded'))
        .chain(([v, contentType]) =>
          encoded(contentType === 'application/json' ? JSON.stringify(v) : toQuery(v), contentType),
        ),
    },
    {
      weight: 1,
      arbitrary: object.map((v) => ({
        body: JSON.stringify(v),
        contentType: 'application/x-www-form-urlencoded',
        query: '',
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          object,
          fc.constantFrom(
            'application/json',
            'application/json; charset=latin1',
            'application/json; charset=utf-16',
          ),
        )
        .map(([v, contentType]) => ({ body: toQuery(v), contentType, query: '' })),
    },
    // A form, as PayU and plain HTML forms post.
    {
      weight: 2,
      arbitrary: object.map((v) => ({
        body: toQuery(v),
        contentType: 'application/x-www-form-urlencoded',
        query: '',
      })),
    },
  );
}

const json = (value: unknown): Case => ({
  body: JSON.stringify(value),
  contentType: 'application/json',
  query: '',
});

/**
 * How many rows each of our tables and the job queue hold. Rate-limit counters are left out, and
 * so are warnings to an account's owner (their claim and their mail): what a refused request is
 * meant to leave behind (a wrong current password, counted, mails the owner: docs/security.md).
 */
let countQuery: string | undefined;
async function rowCounts(): Promise<string> {
  const pool = stack.services.pgPool;
  if (!countQuery) {
    const { rows } = await pool.query<{ table_name: string }>(`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
        AND table_name NOT IN ('rate_limits', 'owner_warnings')
      ORDER BY table_name`);
    const parts = [
      ...rows.map((r) => `'${r.table_name}', (SELECT count(*) FROM public."${r.table_name}")`),
      `'jobs', (SELECT count(*) FROM pgboss.job WHERE coalesce(data->>'kind', '') NOT IN (${OWNER_WARNING_KINDS.map((k) => `'${k}'`).join(', ')}))`,
    ];
    // json_build_object takes at most 100 arguments (50 pairs): one object per 50 tables, merged.
    const objects: string[] = [];
    for (let i = 0; i < parts.length; i += 50)
      objects.push(`jsonb_build_object(${parts.slice(i, i + 50).join(', ')})`);
    countQuery = `SELECT (${objects.join(' || ')})::text AS counts`;
  }
  const { rows } = await pool.query<{ counts: string }>(countQuery);
  return rows[0]?.counts ?? '';
}

/** A path with its parameters filled: the session user's email where one is named, junk otherwise. */
function fillPath(path: string, email: string): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
    encodeURIComponent(name.toLowerCase().includes('email') ? email : 'fuzz\u0000'),
  );
}

const routes = routeTable();

describe('every /api route under generated hostile input', () => {
  it('finds the routes and their schemas', () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((r) => r.keys.length > 0).length).toBeGreaterThan(15);
  });

  const tally: Array<{ route: string; cases: number; fiveHundreds: number }> = [];

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: no 5xx, and a refusal stores nothing',
    async (_name, route) => {
      const user = await createUser(stack);
      const client = newClient(stack);
      await logIn(client, user.email);
      const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const path = fillPath(route.path, user.email);
      let cases = 0;
      let fiveHundreds = 0;
      let baseline = await rowCounts();
      const failures: string[] = [];
      await fc.assert(
        fc.asyncProperty(casesFor(route), async (c) => {
          cases++;
          const reply = await requestFrom(
            loopbackAddress(),
            `${stack.url}${path}${c.query ? `?${c.query}` : ''}`,
            {
              method: route.method,
              headers: {
                origin: stack.url,
                cookie,
                ...(c.contentType ? { 'content-type': c.contentType } : {}),
                ...(c.encoding ? { 'content-encoding': c.encoding } : {}),
              },
              body: c.body,
            },
          );
          const sample = JSON.stringify({ ...c, body: String(c.body) }).slice(0, 200);
          const after = await rowCounts();
          if (reply.status >= 500) {
            fiveHundreds++;
            failures.push(`${reply.status} ${reply.text.slice(0, 100)} for ${sample}`);
          } else if (reply.status >= 400 && after !== baseline) {
            failures.push(`${reply.status} but rows changed for ${sample}`);
          }
          // An accepted request may store what it was asked to; the next refusal is compared to that.
          baseline = after;
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
      tally.push({ route: `${route.method} ${route.path}`, cases, fiveHundreds });
      // Failures are collected rather than thrown: fast-check's shrunk counterexamples of
      // 100 kB bodies would bury the report.
      expect(failures.slice(0, 5)).toEqual([]);
      expect(cases).toBeGreaterThanOrEqual(RUNS_PER_ROUTE);
    },
    300_000,
  );

  it('reports the tally', () => {
    const total = tally.reduce((n, t) => n + t.cases, 0);
    const errors = tally.reduce((n, t) => n + t.fiveHundreds, 0);
    console.log(
      `fuzz: ${tally.length} routes, ${total} cases (≥${RUNS_PER_ROUTE} each), ${errors} answers ≥ 500`,
    );
    expect(errors).toBe(0);
  });
});
