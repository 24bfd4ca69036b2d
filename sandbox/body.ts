import type { IncomingMessage } from 'node:http';

/** The sandbox's AWS stand-ins take at most this much request body. */
const MAX_BODY = 1024 * 1024;

/**
 * Reads a request's raw body, throwing `tooLarge()` (the service's own error) as soon as it
 * passes 1 MiB.
 */
export async function readRawBody(req: IncomingMessage, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
