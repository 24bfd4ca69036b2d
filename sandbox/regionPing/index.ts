import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';

/**
 * A stand-in for the regional AWS endpoint the connection check measures from the browser
 * (mounted at /sandbox/region-ping; the page fetches `/ping` there, cross-origin when the site is
 * opened under another host name, as it is against AWS).
 *
 * It answers as DynamoDB's regional endpoint does (`GET https://dynamodb.<region>.amazonaws.com/ping`):
 * - a tiny `text/plain` "healthy: …" body to any GET of /ping, whatever the query string;
 * - CORS as DynamoDB sends it: `Access-Control-Allow-Origin: *` on every answer, and preflights
 *   (`OPTIONS`) answered with DynamoDB's allowed methods, headers and a 2-day max age. Observed
 *   on AWS in AllanZhengYP/cors-test (output.md, February 2021); not checked from here;
 * - no `Timing-Allow-Origin`, so the browser's Resource Timing hides the detailed phases of the
 *   request from the page, as AWS's does.
 *
 * Beyond DynamoDB, it serves a sized payload for the download speed: `GET /ping?bytes=N`
 * answers N bytes (at most 32 MiB) of incompressible data. `servesSizes: false` turns that off,
 * playing an endpoint that answers the small body to everything (DynamoDB's own).
 *
 * Tests steer it through `/_control` (`latencyMs`, `jitterMs`, `mbps`, `servesSizes`, `failStatus`), read
 * `/_state`, and `/_reset` it:
 * - `latencyMs` delays every answer before its first byte;
 * - `jitterMs` delays every other answer by that much more, so consecutive round trips differ by
 *   exactly it and the measured jitter is predictable;
 * - `mbps` paces payloads to that speed;
 * - `failStatus` answers every request with that error, as an endpoint that is down.
 */

const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
/** One random block, repeated: incompressible, and generated once. */
const BLOCK = randomBytes(1024 * 1024);

/** DynamoDB's preflight answer (see above). */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers':
    'content-type,x-amz-target,content-length,host,x-amz-user-agent,user-agent,Authorization,amz-sdk-invocation-id,amz-sdk-request,x-amz-security-token',
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Expose-Headers': 'x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date',
  'Access-Control-Max-Age': '172800',
};

const ControlSchema = z.strictObject({
  latencyMs: z.number().min(0).max(5_000).optional(),
  jitterMs: z.number().min(0).max(5_000).optional(),
  /** Null: as fast as the socket goes. */
  mbps: z.number().min(0.1).max(100_000).nullable().optional(),
  servesSizes: z.boolean().optional(),
  /** Every GET of /ping answers this error status (with CORS, as AWS's errors come); null: none. */
  failStatus: z.number().int().min(400).max(599).nullable().optional(),
});

type Settings = {
  latencyMs: number;
  jitterMs: number;
  mbps: number | null;
  servesSizes: boolean;
  failStatus: number | null;
};

const DEFAULTS: Settings = { latencyMs: 0, jitterMs: 0, mbps: null, servesSizes: true, failStatus: null };

export type SandboxRegionPing = {
  /** Routes without a prefix: mount at /sandbox/region-ping. */
  router: Router;
  control(input: z.input<typeof ControlSchema>): void;
  reset(): void;
};

export function createSandboxRegionPing(): SandboxRegionPing {
  let settings: Settings = { ...DEFAULTS };
  let answered = 0;
  let payloadBytes = 0;

  function cors(ctx: Context): void {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('x-amzn-RequestId', randomUUID());
  }

  async function delay(): Promise<void> {
    const extra = answered % 2 === 1 ? settings.jitterMs : 0;
    answered += 1;
    const ms = settings.latencyMs + extra;
    if (ms > 0) await sleep(ms);
  }

  function payload(bytes: number, mbps: number | null): Readable {
    async function* chunks() {
      let left = bytes;
      let offset = 0;
      while (left > 0) {
        const size = Math.min(CHUNK_BYTES, left, BLOCK.length - offset);
        yield BLOCK.subarray(offset, offset + size);
        left -= size;
        offset = (offset + size) % BLOCK.length;
        if (mbps !== null) await sleep((size * 8) / (mbps * 1000));
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  const router = new Router();
  router.options('/ping', (ctx) => {
    ctx.set(PREFLIGHT_HEADERS);
    ctx.status = 200;
  });
  router.get('/ping', async (ctx) => {
    cors(ctx);
    const asked = ctx.query.bytes;
    const sized = settings.servesSizes && typeof asked === 'string';
    const bytes = sized ? Number(asked) : 0;
    if (sized && (!Number.isInteger(bytes) || bytes < 1 || bytes > MAX_PAYLOAD_BYTES)) {
      ctx.status = 400;
      ctx.type = 'text/plain';
      ctx.body = `bytes must be a whole number from 1 to ${MAX_PAYLOAD_BYTES}`;
      return;
    }
    await delay();
    if (settings.failStatus !== null) {
      ctx.status = settings.failStatus;
      ctx.type = 'application/x-amz-json-1.0';
      ctx.body = JSON.stringify({ __type: 'com.amazon.coral.availability#ServiceUnavailableException' });
      return;
    }
    if (!sized) {
      ctx.type = 'text/plain';
      ctx.body = 'healthy: region-ping.sandbox.local';
      return;
    }
    payloadBytes += bytes;
    ctx.type = 'application/octet-stream';
    ctx.length = bytes;
    ctx.body = payload(bytes, settings.mbps);
  });
  router.get('/_state', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...settings, answered, payloadBytes };
  });
  router.post('/_control', koaBody({ jsonLimit: '16kb', urlencoded: false, text: false }), (ctx) => {
    const parsed = ControlSchema.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: 'not a sandbox region ping control request', issues: parsed.error.issues };
      return;
    }
    control(parsed.data);
    ctx.body = settings;
  });
  router.post('/_reset', (ctx) => {
    reset();
    ctx.status = 204;
  });

  function control(input: z.input<typeof ControlSchema>): void {
    const parsed = ControlSchema.parse(input);
    settings = {
      latencyMs: parsed.latencyMs ?? settings.latencyMs,
      jitterMs: parsed.jitterMs ?? settings.jitterMs,
      mbps: parsed.mbps === undefined ? settings.mbps : parsed.mbps,
      servesSizes: parsed.servesSizes ?? settings.servesSizes,
      failStatus: parsed.failStatus === undefined ? settings.failStatus : parsed.failStatus,
    };
  }

  function reset(): void {
    settings = { ...DEFAULTS };
    answered = 0;
    payloadBytes = 0;
  }

  return { router, control, reset };
}
