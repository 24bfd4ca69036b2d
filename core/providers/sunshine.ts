import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { normaliseFingerprint } from '../domain/machineHealth.ts';
import type { SunshineFailure } from '../domain/streaming.ts';

/**
 * Sunshine's REST API on a customer's machine (HTTPS, port 47990, basic auth with that machine's
 * own credentials): what pairing needs of it, `POST /api/pin`, `GET /api/clients/list` and
 * `POST /api/clients/unpair`. Only the worker calls it, from the addresses the security group
 * lets in (WORKER_EGRESS_CIDRS).
 *
 * Sunshine serves a self-signed certificate, so no CA can vouch for it; the machine reports its
 * fingerprint in its signed health report, and every call here pins it: the TLS handshake is
 * finished and the certificate compared before a byte of the request (the credentials) is
 * written. Every call has one deadline covering connect, handshake, request and answer.
 */

export type SunshineTarget = {
  host: string;
  port: number;
  /** SHA-256 of the certificate the machine reported (hex, any case or separators). */
  certSha256: string;
  username: string;
  password: string;
};

export class SunshineError extends Error {
  readonly kind: SunshineFailure;
  readonly status: number | null;
  constructor(kind: SunshineFailure, message: string, status: number | null = null) {
    super(message);
    this.name = 'SunshineError';
    this.kind = kind;
    this.status = status;
  }
}

export type SunshineClientEntry = { uuid: string; name: string };

export type Sunshine = {
  /** True when Sunshine handed the PIN to a waiting Moonlight client, false when none was waiting. */
  pin(target: SunshineTarget, pin: string, name: string): Promise<boolean>;
  listClients(target: SunshineTarget): Promise<SunshineClientEntry[]>;
  /** True when the client was removed, false when Sunshine did not know it (already gone). */
  unpair(target: SunshineTarget, uuid: string): Promise<boolean>;
};

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export function createSunshine(options: { timeoutMs: number }): Sunshine {
  async function call(target: SunshineTarget, method: 'GET' | 'POST', path: string, body?: unknown) {
    const pinned = normaliseFingerprint(target.certSha256);
    if (!pinned) throw new SunshineError('untrusted', 'no certificate fingerprint to pin');
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // The certificate is self-signed: it is checked against the pinned fingerprint instead.
    const socket = tlsConnect({ host: target.host, port: target.port, rejectUnauthorized: false });
    let timedOut = false;
    // One deadline for the whole call: destroying the socket ends whichever step is under way.
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy(new Error('deadline passed'));
    }, options.timeoutMs);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', () => {
          socket.off('error', reject);
          resolve();
        });
        socket.once('error', reject);
      });
      const presented = normaliseFingerprint(socket.getPeerCertificate().fingerprint256 ?? '');
      if (presented !== pinned) {
        throw new SunshineError(
          'untrusted',
          `certificate ${presented ?? 'missing'} is not the one the machine reported`,
        );
      }
      return await send(socket, target, method, path, payload);
    } catch (error) {
      if (timedOut) {
        throw new SunshineError(
          'timeout',
          `no answer from ${target.host}:${target.port} within ${options.timeoutMs} ms`,
        );
      }
      throw classify(error);
    } finally {
      clearTimeout(timer);
      socket.destroy();
    }
  }

  return {
    async pin(target, pin, name) {
      const answer = (await call(target, 'POST', '/api/pin', { pin, name })) as { status?: unknown };
      if (typeof answer.status !== 'boolean') throw new SunshineError('bad-response', 'pin: no status');
      return answer.status;
    },
    async listClients(target) {
      const answer = (await call(target, 'GET', '/api/clients/list')) as { named_certs?: unknown };
      if (!Array.isArray(answer.named_certs))
        throw new SunshineError('bad-response', 'clients/list: no named_certs');
      return answer.named_certs
        .filter(
          (c): c is { uuid: string; name: string } =>
            typeof (c as { uuid?: unknown }).uuid === 'string' &&
            typeof (c as { name?: unknown }).name === 'string',
        )
        .map((c) => ({ uuid: c.uuid, name: c.name }));
    },
    async unpair(target, uuid) {
      const answer = (await call(target, 'POST', '/api/clients/unpair', { uuid })) as { status?: unknown };
      if (typeof answer.status !== 'boolean') throw new SunshineError('bad-response', 'unpair: no status');
      return answer.status;
    },
  };
}

function send(
  socket: TLSSocket,
  target: SunshineTarget,
  method: string,
  path: string,
  payload: string | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const auth = Buffer.from(`${target.username}:${target.password}`, 'utf8').toString('base64');
    const req = httpRequest(
      {
        method,
        path,
        host: target.host,
        port: target.port,
        createConnection: () => socket,
        headers: {
          authorization: `Basic ${auth}`,
          accept: 'application/json',
          // Newer Sunshine refuses its POST endpoints without it ("Content type not provided").
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        read(res).then((text) => {
          const status = res.statusCode ?? 0;
          if (status === 401) return reject(new SunshineError('unauthorized', 'credentials refused', status));
          if (status === 403)
            return reject(new SunshineError('forbidden', 'address or origin refused', status));
          if (status < 200 || status >= 300)
            return reject(
              new SunshineError('bad-response', `answered ${status}: ${text.slice(0, 200)}`, status),
            );
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(
              new SunshineError('bad-response', `answered ${status} with something other than JSON`, status),
            );
          }
        }, reject);
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

const MAX_ANSWER = 256 * 1024;

async function read(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER) throw new SunshineError('bad-response', 'answer too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function classify(error: unknown): SunshineError {
  if (error instanceof SunshineError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code))
    return new SunshineError('unreachable', `${code}: ${(error as Error).message}`);
  if (typeof code === 'string' && code.startsWith('ERR_SSL'))
    return new SunshineError('untrusted', `TLS: ${(error as Error).message}`);
  return new SunshineError('bad-response', (error as Error).message ?? String(error));
}
