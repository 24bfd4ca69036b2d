import { createServer } from 'node:http';
import { loadConfig, requireDatabaseUrl } from '../core/config.ts';
import { createLogger } from '../core/log.ts';
import { createApp } from './app.ts';
import { openServices } from './services.ts';

/**
 * The production web process (Procfile `web`). It serves the API, the PayU return and
 * webhook endpoints and the built SPA. The sandbox is never mounted here: `npm start`
 * composes web and sandbox for development.
 */
const config = loadConfig();
const log = createLogger({ level: config.logLevel, name: 'web' });
if (config.sandbox.enabled) {
  log.warn(
    'provider credentials are missing; outside services are expected at SANDBOX_URL (npm start runs them)',
  );
}
const services = await openServices(config, requireDatabaseUrl(config), log);
const server = createServer(createApp(services).callback());
server.listen(config.port, config.host, () => log.info({ port: config.port }, 'web listening'));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'web stopping');
  server.close();
  server.closeIdleConnections();
  await services.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
