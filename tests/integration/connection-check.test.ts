import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../core/config/config.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The connection check's server side: the page learns its endpoint from GET /api/site, the CSP
 * lets the page fetch exactly that origin, and the sandbox plays the regional endpoint with
 * CORS as AWS's DynamoDB answers it, plus sized payloads and latency on demand.
 */
const stack = await startTestStack();
const ping = `${stack.url}/sandbox/region-ping`;

function connectSrc(headers: Headers): string[] {
  return (headers.get('content-security-policy') ?? '')
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive.startsWith('connect-src'));
}

async function control(body: unknown): Promise<Response> {
  return fetch(`${ping}/_control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('the endpoint the page measures', () => {
  it("is named by GET /api/site: the sandbox's stand-in on the public origin, for the machines' region", async () => {
    const site = await stack.api('/api/site');
    expect(site.status).toBe(200);
    expect(site.body.connectionCheck).toEqual({
      pingUrl: `${stack.config.publicUrl}/sandbox/region-ping/ping`,
      region: 'ap-south-1',
    });
    // Our own origin (the sandbox is on it), named anyway as the configured endpoint's.
    expect(connectSrc(site.headers)).toEqual([`connect-src 'self' ${stack.config.publicUrl}`]);
  });

  it('is REGION_PING_URL when set, and the CSP lets the page fetch that origin and no other', async () => {
    const configured = loadConfig({
      NODE_ENV: 'test',
      PORT: String(stack.config.port),
      REGION_PING_URL: 'https://ping.ap-south-1.legend.example/check/ping?v=1',
    });
    const app = createApp({
      ...stack.services,
      config: { ...stack.config, connectionCheck: configured.connectionCheck },
    });
    const server: Server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    const address = server.address();
    const port = address && typeof address === 'object' ? address.port : 0;
    const response = await fetch(`http://127.0.0.1:${port}/api/site`);
    expect(((await response.json()) as { connectionCheck: unknown }).connectionCheck).toEqual({
      pingUrl: 'https://ping.ap-south-1.legend.example/check/ping?v=1',
      region: 'ap-south-1',
    });
    expect(connectSrc(response.headers)).toEqual([
      "connect-src 'self' https://ping.ap-south-1.legend.example",
    ]);
  });
});

describe('the sandbox region ping', () => {
  const origin = { origin: 'https://legend.example' };

  it("answers a small GET with CORS as DynamoDB's ping does, and no Timing-Allow-Origin", async () => {
    const response = await fetch(`${ping}/ping?n=abc`, { headers: origin });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('timing-allow-origin')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toMatch(/^healthy: /);
  });

  it("answers a preflight with DynamoDB's CORS headers", async () => {
    const response = await fetch(`${ping}/ping`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('POST');
    expect(response.headers.get('access-control-max-age')).toBe('172800');
  });

  it('serves a payload of the size asked for, incompressible, with CORS', async () => {
    const response = await fetch(`${ping}/ping?bytes=1048576&n=1`, { headers: origin });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(1_048_576);
    // Random data: no run of one byte value, and many distinct ones.
    expect(new Set(body.subarray(0, 4096)).size).toBeGreaterThan(200);
  });

  it.each(['0', '-5', 'lots', '1.5', String(32 * 1024 * 1024 + 1)])(
    'refuses a size of %s with a clear 400',
    async (bytes) => {
      const response = await fetch(`${ping}/ping?bytes=${encodeURIComponent(bytes)}`, { headers: origin });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('bytes must be a whole number from 1 to 33554432');
    },
  );

  it('can play an endpoint that answers the small body whatever is asked (DynamoDB itself)', async () => {
    expect((await control({ servesSizes: false })).status).toBe(200);
    try {
      const response = await fetch(`${ping}/ping?bytes=1048576`, { headers: origin });
      expect(await response.text()).toMatch(/^healthy: /);
    } finally {
      await fetch(`${ping}/_reset`, { method: 'POST' });
    }
  });

  it('can play an endpoint that is down: every answer an error, with CORS', async () => {
    expect((await control({ failStatus: 503 })).status).toBe(200);
    try {
      const response = await fetch(`${ping}/ping?n=1`, { headers: origin });
      expect(response.status).toBe(503);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      await response.text();
    } finally {
      await fetch(`${ping}/_reset`, { method: 'POST' });
    }
  });

  it('takes latency, jitter and a speed through /_control, refuses anything else, and resets', async () => {
    const set = await control({ latencyMs: 60, jitterMs: 8, mbps: 25 });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({
      latencyMs: 60,
      jitterMs: 8,
      mbps: 25,
      servesSizes: true,
      failStatus: null,
    });
    const small = await fetch(`${ping}/ping`);
    expect(small.status).toBe(200);
    await small.text();
    const state = (await (await fetch(`${ping}/_state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ latencyMs: 60, jitterMs: 8, mbps: 25 });
    expect(state.answered).toBeGreaterThanOrEqual(1);

    const wrong = await control({ latencyMs: -1, packetLoss: 5 });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toBe(
      'not a sandbox region ping control request',
    );

    expect((await fetch(`${ping}/_reset`, { method: 'POST' })).status).toBe(204);
    const reset = (await (await fetch(`${ping}/_state`)).json()) as Record<string, unknown>;
    expect(reset).toEqual({
      latencyMs: 0,
      jitterMs: 0,
      mbps: null,
      servesSizes: true,
      failStatus: null,
      answered: 0,
      payloadBytes: 0,
    });
  });
});
