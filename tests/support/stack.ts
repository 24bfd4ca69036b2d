import type { Server } from 'node:http';
import { afterAll } from 'vitest';
import { loadConfig, type Config } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { createWebServer } from '../../api/server.ts';
import { openServices, type Services } from '../../api/services.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2, type SandboxEc2, type SandboxEc2Options } from '../../sandbox/ec2/index.ts';
import { startWorker, type RunningWorker } from '../../worker/worker.ts';
import { freshDatabase } from './db.ts';
import { DCV_PORT } from '../../core/domain/desktop.ts';
import { SUNSHINE_API_PORT } from '../../core/domain/streaming.ts';

export type TestStack = {
  url: string;
  databaseUrl: string;
  config: Config;
  services: Services;
  /** Present when started with `{ worker: true }`. */
  worker: RunningWorker | undefined;
  /** The sandbox EC2 mounted at /sandbox/ec2 (control it in-process: faults, capacity, clock). */
  sandboxEc2: SandboxEc2;
  /** fetch against the stack with JSON in and out, Origin set like a browser's. */
  api: (
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ) => Promise<{
    status: number;
    body: any;
    headers: Headers;
  }>;
  /** What the web process logged, one object per line, when started with `{ captureLogs: true }`. */
  logs: Array<Record<string, unknown>>;
  mailTo: (
    to: string,
  ) => Promise<Array<{ to: string; subject: string; text: string; html: string; sentAt: string }>>;
};

/**
 * The real web process (with the sandbox mounted) on a free port over a fresh database of
 * this file's own, and optionally the real worker. Closed after the file's tests.
 */
export async function startTestStack(
  options: {
    worker?: boolean;
    env?: Record<string, string>;
    sandboxEc2?: SandboxEc2Options;
    /** Keep the web process's log lines (from `info` up) in `logs`, for tests about what is logged. */
    captureLogs?: boolean;
  } = {},
): Promise<TestStack> {
  const databaseUrl = await freshDatabase();
  // Made before the configuration (it names the port), with the request timeout it will have.
  const server: Server = createWebServer(loadConfig({ NODE_ENV: 'test', ...options.env }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  // The app decrypts Windows passwords with the sandbox key pair's private key, as in `npm start`.
  // Each running instance gets a loopback address with a real Remote Desktop listener, as in `npm start`.
  const sandboxEc2 = createSandboxEc2({
    profile: 'fast',
    rdpListener: { port: 3389 },
    // And an Amazon DCV stand-in verifying browser-desktop tokens with this stack, as in `npm start`.
    dcv: { port: DCV_PORT, verifierUrl: `http://127.0.0.1:${port}/api/dcv/auth` },
    // And Sunshine with the image's health reporter, from each machine's user data, as in `npm start`.
    sunshine: { port: SUNSHINE_API_PORT },
    ...options.sandboxEc2,
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    APP_SECRET: 'test-secret-test-secret-test-secret-000',
    EC2_PRIVATE_KEY_PEM: sandboxEc2.defaultPrivateKeyPem(),
    // No warm pool unless a test asks: other features' tests need no machines launched ahead.
    WARM_POOL_SIZE: '0',
    VM_POLL_SECONDS: '0.5',
    DCV_WEB_URL: `http://{ip}:${DCV_PORT}/`,
    ...options.env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const log = options.captureLogs
    ? createLogger({
        level: 'info',
        name: 'test',
        destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
      })
    : createLogger({ level: config.logLevel, name: 'test' });
  const services = await openServices(config, databaseUrl, log);
  const app = createApp(services, {
    mounts: [
      {
        prefix: '/sandbox',
        middleware: createSandbox({
          profile: 'fast',
          ec2: sandboxEc2,
          payu: {
            key: config.payu.key,
            salt: config.payu.salt,
            webhookUrl: `${config.sandbox.url}/api/payu/webhook`,
          },
        }),
      },
    ],
  });
  server.on('request', app.callback());
  const worker = options.worker
    ? await startWorker(config, databaseUrl, log, { pollingIntervalSeconds: 0.5 })
    : undefined;
  const url = `http://127.0.0.1:${port}`;

  afterAll(async () => {
    await worker?.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await services.close();
  });

  return {
    url,
    databaseUrl,
    config,
    services,
    worker,
    sandboxEc2,
    logs,
    async api(path, init = {}) {
      const response = await fetch(`${url}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          origin: url,
          ...init.headers,
        },
        body:
          init.body === undefined
            ? undefined
            : typeof init.body === 'string'
              ? init.body
              : JSON.stringify(init.body),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body, headers: response.headers };
    },
    async mailTo(to) {
      const response = await fetch(`${url}/sandbox/mail?to=${encodeURIComponent(to)}`);
      return (await response.json()) as never;
    },
  };
}

export { waitFor } from './waitFor.ts';
