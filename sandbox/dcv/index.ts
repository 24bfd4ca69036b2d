import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { listenAt, serialQueue } from '../machineServers.ts';
import { unescapeXml } from '../xmlText.ts';

/**
 * A stand-in for the Amazon DCV server on each running sandbox instance: an HTTP server on the
 * loopback address the sandbox EC2 reports as the instance's public IP. It plays DCV's side of
 * external authentication, the part our site meets:
 *
 * - `GET /?authToken=…#console` is the web client: a page that reads the token from the query and
 *   the session from the fragment (as DCV's web client does) and hands both to its server;
 * - its server then verifies the token exactly as DCV does with `auth-token-verifier` set: an
 *   HTTP(S) POST of `sessionId`, `authenticationToken` and `clientAddress` as a form, sent from
 *   the instance's own address, answered `<auth result="yes"><username>…</username></auth>`
 *   or `<auth result="no"><message>…</message></auth>`;
 * - the page then shows the session as connected (to whom) or refused (why).
 *
 * There is no desktop to stream: "connected" is where a real DCV would start streaming.
 */

export type DcvServers = {
  port: number;
  /** Opens servers for running instances and closes the rest; resolves once all are settled. */
  sync(running: Array<{ instanceId: string; publicIp: string }>): Promise<void>;
  /** Address each open server is bound to, by instance. */
  listening(): Record<string, string>;
  close(): Promise<void>;
};

export type DcvServerOptions = {
  port: number;
  /** DCV's `auth-token-verifier`: where tokens are verified (the image sets it to our site). */
  verifierUrl: string;
  warn: (message: string) => void;
};

const MAX_BODY = 4096;

export function createDcvServers(options: DcvServerOptions): DcvServers {
  const servers = new Map<string, { address: string; server: Server }>();
  const failed = new Set<string>();
  const queue = serialQueue(options.warn, 'sandbox DCV: servers');

  async function open(instanceId: string, address: string): Promise<void> {
    const server = createServer((req, res) => {
      handle(address, req)
        .then(({ status, type, body }) => {
          res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
          res.end(body);
        })
        .catch((error: unknown) => {
          options.warn(`sandbox DCV on ${address}: ${(error as Error).message}`);
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ result: 'error', message: (error as Error).message }));
        });
    });
    if (
      !(await listenAt(
        server,
        { port: options.port, address, instanceId },
        failed,
        options.warn,
        'sandbox DCV',
      ))
    )
      return;
    server.unref();
    servers.set(instanceId, { address, server });
  }

  async function shut(instanceId: string): Promise<void> {
    const entry = servers.get(instanceId);
    if (!entry) return;
    servers.delete(instanceId);
    entry.server.closeAllConnections();
    await new Promise<void>((resolve) => entry.server.close(() => resolve()));
  }

  async function reconcile(running: Array<{ instanceId: string; publicIp: string }>): Promise<void> {
    const wanted = new Map(
      running.filter((r) => r.publicIp.startsWith('127.')).map((r) => [r.instanceId, r.publicIp]),
    );
    await Promise.all(
      [...servers].filter(([id, entry]) => wanted.get(id) !== entry.address).map(([id]) => shut(id)),
    );
    await Promise.all(
      [...wanted].filter(([id]) => !servers.has(id)).map(([id, address]) => open(id, address)),
    );
  }

  async function handle(
    address: string,
    req: IncomingMessage,
  ): Promise<{ status: number; type: string; body: string }> {
    const path = new URL(req.url ?? '/', 'http://dcv').pathname;
    if (req.method === 'GET' && path === '/') {
      return { status: 200, type: 'text/html; charset=utf-8', body: PAGE };
    }
    if (req.method === 'GET' && path === '/client.js') {
      return { status: 200, type: 'text/javascript; charset=utf-8', body: CLIENT };
    }
    if (req.method === 'POST' && path === '/auth') {
      const raw = await readBody(req);
      let input: { authToken?: unknown; sessionId?: unknown };
      try {
        input = JSON.parse(raw) as typeof input;
      } catch {
        return json(400, { result: 'no', message: 'not JSON' });
      }
      if (typeof input.authToken !== 'string' || typeof input.sessionId !== 'string') {
        return json(400, { result: 'no', message: 'authToken and sessionId are required' });
      }
      // DCV reports the browser's address as it sees it on its socket.
      const clientAddress = req.socket.remoteAddress ?? '';
      const answer = await verify(address, {
        sessionId: input.sessionId,
        authenticationToken: input.authToken,
        clientAddress,
      });
      return json(200, { ...answer, sessionId: input.sessionId });
    }
    return { status: 404, type: 'text/plain; charset=utf-8', body: 'Not found' };
  }

  /** The verification DCV sends: a form POST from the instance's own address. */
  async function verify(
    fromAddress: string,
    form: { sessionId: string; authenticationToken: string; clientAddress: string },
  ): Promise<{ result: 'yes'; username: string } | { result: 'no'; message: string }> {
    const body = new URLSearchParams(form).toString();
    const url = new URL(options.verifierUrl);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'POST',
          localAddress: fromAddress,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          readBody(res).then((text) => resolve({ status: res.statusCode ?? 0, text }), reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    return parseAnswer(status, text);
  }

  return {
    port: options.port,
    sync(running) {
      return queue.run(() => reconcile(running));
    },
    listening() {
      return Object.fromEntries([...servers].map(([id, entry]) => [id, `${entry.address}:${options.port}`]));
    },
    async close() {
      await queue.settled();
      await Promise.all([...servers.keys()].map(shut));
    },
  };
}

/** DCV accepts only a 200 whose document says yes; anything else is a refusal. */
export function parseAnswer(
  status: number,
  text: string,
): { result: 'yes'; username: string } | { result: 'no'; message: string } {
  const yes = /^\s*<auth result="yes">\s*<username>([^<]*)<\/username>\s*<\/auth>\s*$/.exec(text);
  if (status === 200 && yes) return { result: 'yes', username: unescapeXml(yes[1] ?? '') };
  const no = /<auth result="no">\s*<message>([^<]*)<\/message>\s*<\/auth>/.exec(text);
  return { result: 'no', message: no ? unescapeXml(no[1] ?? '') : `verifier answered ${status}` };
}

function json(status: number, value: unknown) {
  return { status, type: 'application/json', body: JSON.stringify(value) };
}

async function readBody(stream: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Amazon DCV · Sandbox</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #e8eaf0; background: #14161f; min-height: 100vh; }
.banner { background: #fff3cd; color: #1a1a2e; border-bottom: 1px solid #e0c36a; padding: .5rem .75rem; margin: 0; }
main { max-width: 40rem; margin: 0 auto; padding: 2rem 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
.session { border: 1px solid #3a3f55; border-radius: 10px; padding: 1.25rem; background: #1d2030; }
.state { font-size: 1.25rem; font-weight: 600; margin: 0 0 .5rem; }
.state[data-state="connected"] { color: #5fd38d; }
.state[data-state="refused"] { color: #ff8a8a; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dt { color: #9aa0b5; }
dd { margin: 0; overflow-wrap: anywhere; }
</style>
</head>
<body>
<p class="banner">Sandbox: a local stand-in for the Amazon DCV server on your PC. There is no desktop to stream.</p>
<main>
<h1>Amazon DCV</h1>
<section class="session" aria-live="polite">
<p class="state" id="state" data-state="connecting">Connecting…</p>
<dl>
<dt>Session</dt><dd id="session">–</dd>
<dt>User</dt><dd id="user">–</dd>
<dt>Detail</dt><dd id="detail">Verifying your one-time link</dd>
</dl>
</section>
</main>
<script src="/client.js"></script>
</body>
</html>`;

/** The web client's part: token from the query, session from the fragment, then ask the server. */
const CLIENT = `(function () {
  var token = new URLSearchParams(location.search).get('authToken') || '';
  var session = decodeURIComponent(location.hash.slice(1));
  // Like DCV's web client, keep the token out of the address bar and history once read.
  history.replaceState(null, '', location.pathname + location.hash);
  var state = document.getElementById('state');
  function show(kind, text, detail, user) {
    state.dataset.state = kind;
    state.textContent = text;
    document.getElementById('session').textContent = session || '(none)';
    document.getElementById('user').textContent = user || '–';
    document.getElementById('detail').textContent = detail;
  }
  fetch('/auth', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authToken: token, sessionId: session }),
  })
    .then(function (r) { return r.json(); })
    .then(function (a) {
      if (a.result === 'yes') show('connected', 'Connected', 'Session ' + session + ' is yours.', a.username);
      else show('refused', 'Refused', a.message || 'The token was refused.');
    })
    .catch(function (e) { show('refused', 'Refused', 'Could not reach the server: ' + e.message); });
})();
`;
