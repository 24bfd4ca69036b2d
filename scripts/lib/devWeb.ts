import path from 'node:path';
import { loadConfig, requireDatabaseUrl } from '../../core/config/config.ts';
import { createLogger, onStopSignals } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { createWebServer } from '../../api/server.ts';
import { openServices } from '../../api/services.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2, type SandboxEc2 } from '../../sandbox/ec2/index.ts';
import { DCV_PORT } from '../../core/domain/desktop.ts';
import { SUNSHINE_API_PORT } from '../../core/domain/streaming.ts';

/**
 * `npm start`'s web process: the API and the SPA with the sandbox mounted at /sandbox, run by
 * scripts/start.ts as a child it restarts when it crashes. Tells its parent when it listens (and
 * the sandbox EC2's private key, which the worker needs to read Windows passwords); ends when
 * the parent goes away, so a killed `npm start` leaves no web process behind.
 */
const config0 = loadConfig();
const log = createLogger({ level: config0.logLevel, name: 'web' });
const databaseUrl = requireDatabaseUrl(config0);
let config = config0;

// The sandbox EC2 keeps its instances (and its key pair) in DATA_DIR across restarts. The
// worker decrypts Windows passwords with that key pair's private key, handed over by env.
let sandboxEc2: SandboxEc2 | undefined;
if (config.sandbox.enabled && config.ec2.mode === 'sandbox') {
  sandboxEc2 = createSandboxEc2({
    profile: config.sandbox.profile,
    stateFile: path.join(path.resolve(config.dataDir), 'sandbox-ec2.json'),
    defaultKeyName: config.ec2.keyName,
    // Each running machine answers TCP on its (loopback) public IP, so the worker's Remote
    // Desktop probe meets a real socket.
    rdpListener: { port: config.vm.rdpPort },
    // …and runs an Amazon DCV stand-in there, verifying tokens with our API as the image sets
    // DCV's auth-token-verifier to. It speaks HTTP (no certificate to accept), so the browser
    // desktop's link says http unless DCV_WEB_URL says otherwise.
    dcv: { port: DCV_PORT, verifierUrl: `${config.sandbox.url}/api/dcv/auth` },
    // …and Sunshine (Moonlight's host) with the image's health reporter, set up from each
    // machine's user data as the image's boot script does.
    sunshine: { port: SUNSHINE_API_PORT },
    warn: (message) => log.warn(message),
  });
  if (!process.env.DCV_WEB_URL) {
    config = { ...config, vm: { ...config.vm, dcvWebUrl: `http://{ip}:${DCV_PORT}/` } };
  }
}

const services = await openServices(config, databaseUrl, log);
const mounts = config.sandbox.enabled
  ? [
      {
        prefix: '/sandbox',
        middleware: createSandbox({
          profile: config.sandbox.profile,
          ...(sandboxEc2 ? { ec2: sandboxEc2 } : {}),
          // The app's sandbox merchant, and PayU's webhook pointed at us as its dashboard would be.
          payu: {
            key: config.payu.key,
            salt: config.payu.salt,
            webhookUrl: `${config.sandbox.url}/api/payu/webhook`,
          },
        }),
      },
    ]
  : [];
const server = createWebServer(config, createApp(services, { mounts }).callback());
server.once('error', (error) => {
  log.fatal({ err: error }, 'web could not listen');
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  log.info({ port }, 'web listening');
  process.send?.({
    kind: 'ready',
    port,
    ...(sandboxEc2 ? { ec2PrivateKeyPem: sandboxEc2.defaultPrivateKeyPem() } : {}),
  });
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'web stopping');
  server.close();
  server.closeAllConnections();
  try {
    await sandboxEc2?.close();
  } catch (error) {
    log.error({ err: error }, 'saving the sandbox EC2 state');
  }
  await services.close();
  process.exit(0);
}
onStopSignals(log, shutdown);
// The launcher went away (killed, not stopped): nobody would stop or restart us.
process.on('disconnect', () => {
  shutdown('launcher gone').catch((error: unknown) => {
    log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  });
});
