import type { ServerResponse } from 'node:http';
import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { createLogger, onStopSignals } from '../core/observability/log.ts';
import { createApp } from './app.ts';
import { createWebServer } from './server.ts';
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
const server = createWebServer(config, createApp(services).callback());

/** How long SIGTERM waits for requests in flight before cutting connections (platforms allow ~30 s). */
const DRAIN_MS = 25_000;
const inFlight = new Set<ServerResponse>();
let stopping = false;
server.on('request', (_req, res: ServerResponse) => {
  inFlight.add(res);
  // Once draining, every answer closes its connection, so keep-alive clients reconnect elsewhere.
  if (stopping) res.shouldKeepAlive = false;
  res.on('close', () => inFlight.delete(res));
});
server.listen(config.port, config.host, () => log.info({ port: config.port }, 'web listening'));

/**
 * Graceful stop: stop accepting connections, let requests in flight finish (up to DRAIN_MS),
 * then close the queue and the database pools. A rolling restart behind a load balancer then
 * loses no request.
 */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal, inFlight: inFlight.size }, 'web stopping: no new connections, draining requests');
  for (const res of inFlight) res.shouldKeepAlive = false;
  const drained = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = setTimeout(() => {
    log.warn(
      { inFlight: inFlight.size },
      'requests still running after the drain time; closing their connections',
    );
    server.closeAllConnections();
  }, DRAIN_MS);
  await drained;
  clearTimeout(deadline);
  await services.close();
  log.info('web stopped');
  process.exit(0);
}
onStopSignals(log, shutdown);
