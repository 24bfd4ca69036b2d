import { createServer, type RequestListener, type Server } from 'node:http';
import type { Config } from '../core/config/config.ts';

/**
 * The web process's HTTP server, as production, `npm start` and the tests run it. A request's
 * headers and body must arrive within REQUEST_TIMEOUT_SECONDS (Node answers 408 and closes the
 * connection): with Node's defaults a body that never arrived held its connection for 300 s,
 * plus up to 30 s until the next check.
 */
export function createWebServer(
  config: Pick<Config, 'requestTimeoutMs'>,
  listener?: RequestListener,
): Server {
  const requestTimeout = config.requestTimeoutMs;
  const server = createServer({
    requestTimeout,
    // Node refuses headers given longer than the whole request.
    headersTimeout: requestTimeout,
    // How often Node looks for requests past their time: a tenth of it, at most a second, so a
    // request is cut within about a second of its deadline rather than up to 30 s after.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.round(requestTimeout / 10))),
    // Keep idle connections open longer than a load balancer does (AWS ALB: 60 s). With Node's
    // default of 5 s the balancer reuses a connection just as we close it, and answers 502.
    keepAliveTimeout: 65_000,
  });
  if (listener) server.on('request', listener);
  return server;
}
