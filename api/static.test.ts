import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prerenderedFile } from '../core/domain/siteRoutes.ts';
import type { AppState } from './context.ts';
import { spa } from './static.ts';

const SHELL = '<!doctype html><div id="root"></div>';
const SERVICES = '<!doctype html><div id="root"><h1>Services</h1></div>';

/** A raw GET (no automatic decompression): status, headers and the bytes as sent. */
function get(server: Server, pathname: string, encoding = 'br, gzip') {
  const { port } = server.address() as { port: number };
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: pathname,
          headers: { accept: 'text/html', 'accept-encoding': encoding },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('the built SPA as the web process serves it', () => {
  let dir: string;
  let server: Server;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'spa-'));
    await writeFile(path.join(dir, 'index.html'), SHELL);
    const services = path.join(dir, prerenderedFile('/services'));
    await mkdir(path.dirname(services), { recursive: true });
    await writeFile(services, SERVICES);
    await writeFile(`${services}.br`, brotliCompressSync(SERVICES));
    await writeFile(`${services}.gz`, gzipSync(SERVICES));
    const app = new Koa<AppState>();
    app.use(spa(dir));
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a public page with its prerendered HTML, compressed as the browser accepts', async () => {
    const br = await get(server, '/services');
    expect(br.status).toBe(200);
    expect(br.headers['content-type']).toMatch(/^text\/html/);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(br.headers['cache-control']).toMatch(/no-store/);
    expect(brotliDecompressSync(br.body).toString()).toBe(SERVICES);

    const gzip = await get(server, '/services', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');

    const plain = await get(server, '/services', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SERVICES);
  });

  it('answers the shell for a page without prerendered HTML and for another spelling of a public page', async () => {
    // The landing page was not prerendered in this build: it renders in the browser.
    for (const pathname of ['/', '/SERVICES', '/services/', '/dashboard']) {
      const page = await get(server, pathname, 'identity');
      expect(page.status, pathname).toBe(200);
      expect(page.body.toString(), pathname).toBe(SHELL);
    }
  });

  it('answers 404 with the shell for an unknown path, and never serves the prerendered files by their own names', async () => {
    for (const pathname of [
      '/no/such/page',
      '//no/such/page',
      '//services',
      '/C:/page',
      '/..%2f..%2fetc/passwd',
      '/.prerendered/services.html',
      '/.prerendered/services.html.br',
    ]) {
      const page = await get(server, pathname, 'identity');
      expect(page.status, pathname).toBe(404);
      expect(page.body.toString(), pathname).toBe(SHELL);
    }
  });
});
