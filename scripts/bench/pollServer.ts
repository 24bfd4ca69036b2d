import { listenOnLoopback } from './listen.ts';
import { loadConfig } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { openServices } from '../../api/services.ts';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT } from '../../sandbox/index.ts';

/**
 * The web app for the burst benchmark (scripts/bench/burst.ts), booted as production boots it,
 * without the sandbox: PayU, EC2 and the other stand-ins run in a process of their own
 * (scripts/bench/sandboxServer.ts), as the real services would be elsewhere, so the burst pays
 * through the real checkout and webhook without charging PayU's work to the web process. The
 * worker runs in a process of its own too (burst.ts starts it with `workerEnv`).
 *
 * Started with DATABASE_URL; prints one JSON line with the ports and the worker's environment.
 */

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('pollServer needs DATABASE_URL');

// The app's port must be known before its config (PayU return URLs, the sandbox's webhook).
const appServer = await listenOnLoopback(() => undefined);
// PayU, EC2 and the rest of the outside world run in a process of their own (see there why).
const sandboxProcess = spawn(process.execPath, ['scripts/bench/sandboxServer.ts'], {
  env: {
    ...process.env,
    WEBHOOK_URL: `http://127.0.0.1:${appServer.port}/api/payu/webhook`,
    PAYU_KEY: SANDBOX_PAYU_KEY,
    PAYU_SALT: SANDBOX_PAYU_SALT,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const sandbox = await new Promise<{ port: number; ec2PrivateKeyPem: string }>((resolve, reject) => {
  createInterface({ input: sandboxProcess.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  sandboxProcess.once('exit', (code) => reject(new Error(`the bench sandbox exited with ${code}`)));
});
const sandboxUrl = `http://127.0.0.1:${sandbox.port}`;
const workerEnv = {
  NODE_ENV: 'test',
  PORT: String(appServer.port),
  DATABASE_URL: databaseUrl,
  SANDBOX_URL: sandboxUrl,
  LOG_LEVEL: 'silent',
  APP_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
  EC2_PRIVATE_KEY_PEM: sandbox.ec2PrivateKeyPem,
  WARM_POOL_SIZE: '0',
  // A burst of a hundred purchases of one plan must not be refused for capacity.
  CAPACITY_LIMITS: 'g4dn.xlarge=1000,g4dn.2xlarge=1000,g5.xlarge=1000,g5.2xlarge=1000,g5.4xlarge=1000',
};
const config = loadConfig(workerEnv);
const services = await openServices(config, databaseUrl, createLogger({ level: 'silent', name: 'bench' }));
const app = createApp(services);
appServer.removeAllListeners('request');
appServer.on('request', app.callback());

console.log(JSON.stringify({ app: appServer.port, sandbox: sandbox.port, workerEnv }));

process.on('SIGTERM', () => {
  appServer.closeAllConnections();
  appServer.close();
  sandboxProcess.kill('SIGTERM');
  void services.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('pollServer: shutting down failed', error);
      process.exit(1);
    },
  );
});
