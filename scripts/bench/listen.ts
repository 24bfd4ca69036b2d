import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * An HTTP server for a bench process on a free loopback port. Keep-alive is long: a load
 * generator holds many connections open, and Node must not cap them.
 */
export async function listenOnLoopback(handler: RequestListener): Promise<Server & { port: number }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return Object.assign(server, { port: address && typeof address === 'object' ? address.port : 0 });
}
