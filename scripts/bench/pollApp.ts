import { createServer } from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { openServices } from '../../api/services.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2 } from '../../sandbox/ec2/index.ts';
import { DCV_PORT } from '../../core/domain/desktop.ts';

/**
 * The web process as `npm start` runs it, for the poll benchmark: configuration from the
 * environment by `loadConfig()` (the bench gives it a fresh shell's environment, so NODE_ENV and
 * LOG_LEVEL take npm start's defaults: development, info), the `web` logger writing every
 * request's access line to stdout (the bench points stdout at a file), and the sandbox mounted
 * at /sandbox as scripts/start.ts mounts it. Only Postgres (the bench's own), migrations and the
 * worker are left out: the worker's sweeps would move the seeded machine, and none of it is on a
 * poll's path. Keep this in step with scripts/start.ts.
 *
 * Forked by scripts/bench/poll.ts with DATABASE_URL and DATA_DIR. IPC: it sends
 * `{ port }` once it listens; `{ profile: 'start' }` starts a CPU profile (node:inspector) and
 * `{ profile: 'stop', file }` writes it to `file` and answers `{ profiled: file }`. SIGTERM ends it.
 */

const dataDir = process.env.DATA_DIR;
if (!process.env.DATABASE_URL || !dataDir) throw new Error('pollApp needs DATABASE_URL and DATA_DIR');

// Listening first: the configuration needs the port (PUBLIC_URL, the sandbox's address), as
// npm start's does.
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = address && typeof address === 'object' ? address.port : 0;
process.env.PORT = String(port);

let config = loadConfig();
const log = createLogger({ level: config.logLevel, name: 'web' });
const sandboxEc2 =
  config.sandbox.enabled && config.ec2.mode === 'sandbox'
    ? createSandboxEc2({
        profile: config.sandbox.profile,
        stateFile: path.join(dataDir, 'sandbox-ec2.json'),
        defaultKeyName: config.ec2.keyName,
        rdpListener: { port: config.vm.rdpPort },
        dcv: { port: DCV_PORT, verifierUrl: `${config.sandbox.url}/api/dcv/auth` },
        warn: (message) => log.warn(message),
      })
    : undefined;
if (sandboxEc2) {
  process.env.EC2_PRIVATE_KEY_PEM ??= sandboxEc2.defaultPrivateKeyPem();
  if (!process.env.DCV_WEB_URL)
    config = { ...config, vm: { ...config.vm, dcvWebUrl: `http://{ip}:${DCV_PORT}/` } };
}
const services = await openServices(config, process.env.DATABASE_URL, log);
const mounts = config.sandbox.enabled
  ? [
      {
        prefix: '/sandbox',
        middleware: createSandbox({
          profile: config.sandbox.profile,
          ...(sandboxEc2 ? { ec2: sandboxEc2 } : {}),
          payu: {
            key: config.payu.key,
            salt: config.payu.salt,
            webhookUrl: `${config.sandbox.url}/api/payu/webhook`,
          },
        }),
      },
    ]
  : [];
server.on('request', createApp(services, { mounts }).callback());
log.info({ env: config.env, logLevel: config.logLevel, port }, 'bench web process listening');
process.send!({ port, env: config.env, logLevel: config.logLevel });

const profiler = new Session();
process.on('message', (message: { profile?: 'start' | 'stop'; file?: string }) => {
  const step =
    message.profile === 'start'
      ? (async () => {
          profiler.connect();
          await profiler.post('Profiler.enable');
          await profiler.post('Profiler.start');
        })()
      : message.profile === 'stop' && message.file
        ? (async () => {
            const { profile } = await profiler.post('Profiler.stop');
            profiler.disconnect();
            await writeFile(message.file!, JSON.stringify(profile));
            process.send!({ profiled: message.file });
          })()
        : Promise.resolve();
  step.catch((error: unknown) => {
    console.error('pollApp: profiling failed', error);
    process.exit(1);
  });
});

process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void Promise.all([services.close(), sandboxEc2?.close()]).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('pollApp: shutting down failed', error);
      process.exit(1);
    },
  );
});
