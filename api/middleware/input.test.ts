import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import Koa from 'koa';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppState } from '../context.ts';
import { errorHandler } from './errors.ts';
import { allStringsAcceptable, bodyParser, UNDECODABLE_BODY_MESSAGE } from './input.ts';

describe('allStringsAcceptable', () => {
  it('accepts ordinary text, emoji and nested values', () => {
    expect(allStringsAcceptable({ a: 'héllo 👋', b: [1, null, { c: 'ok' }] })).toBe(true);
  });

  it.each([
    ['a NUL byte', { a: 'x\u0000' }],
    ['a lone high surrogate', { a: '\uD800' }],
    ['a lone low surrogate deep down', { a: [{ b: ['x\uDFFF'] }] }],
    ['a bad key', { ['k\u0000']: 1 }],
  ])('refuses %s', (_what, value) => {
    expect(allStringsAcceptable(value)).toBe(false);
  });

  it('walks very deep nesting without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(allStringsAcceptable(deep)).toBe(false);
  });
});

describe('bodyParser with a Content-Encoding', () => {
  /** A real Koa app on a loopback port: the error handler, a request logger, the body parser, an echo. */
  async function app() {
    const lines: Array<Record<string, unknown>> = [];
    const log = pino(
      { name: 'web', level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const koa = new Koa<AppState>();
    koa.use(async (ctx, next) => {
      ctx.state.log = log;
      await next();
    });
    koa.use(errorHandler());
    koa.use(bodyParser());
    koa.use((ctx) => {
      ctx.body = { got: (ctx.request as { body?: unknown }).body };
    });
    const server = koa.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const send = async (body: Buffer, encoding: string) => {
      const reply = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: new Uint8Array(body),
      });
      return { status: reply.status, json: (await reply.json()) as Record<string, unknown> };
    };
    return { lines, send, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  const big = Buffer.from(JSON.stringify({ padding: 'x'.repeat(100_000) }));
  const truncated = (packed: Buffer) => packed.subarray(0, packed.length - 4);

  it('decodes gzip, deflate and br bodies', async () => {
    const { send, close } = await app();
    const body = Buffer.from('{"a":"héllo"}');
    for (const [encoding, pack] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      expect(await send(pack(body), encoding)).toEqual({ status: 200, json: { got: { a: 'héllo' } } });
    }
    await close();
  });

  it('refuses a truncated body with 400', async () => {
    const { send, close } = await app();
    const reply = await send(truncated(gzipSync(Buffer.from('{"a":"b"}'))), 'gzip');
    expect(reply).toEqual({
      status: 400,
      json: expect.objectContaining({ message: UNDECODABLE_BODY_MESSAGE }),
    });
    await close();
  });

  // The decoder of a body refused for its size goes on reading the rest, and a truncated
  // stream then fails after nobody listens: that error crashed the process (the fuzz test saw
  // it as an uncaught exception once in a while).
  it.each([
    ['br', brotliCompressSync, 400],
    ['gzip', gzipSync, 413],
    ['deflate', deflateSync, 413],
  ] as const)(
    'refuses an over-long truncated %s body, and its decoder stops without a stray error',
    async (encoding, pack, status) => {
      const { lines, send, close } = await app();
      expect((await send(truncated(pack(big)), encoding)).status).toBe(status);
      // The decoder closed: nothing of it can fail later.
      await expect
        .poll(() => lines.find((line) => line.msg === 'request body: decoding stopped'))
        .toMatchObject({ level: 20, coding: encoding });
      await close();
    },
  );
});
