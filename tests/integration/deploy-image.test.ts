import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { withDatabase } from '../../scripts/lib/postgres.ts';
import { waitFor } from '../support/stack.ts';

/**
 * No container engine runs here, so the image is checked by what can be: every path the
 * Dockerfile copies exists, every command it and the Procfile name exists, and the runtime
 * stage's file set (copied as the Dockerfile copies it, .dockerignore applied) runs the release
 * phase against an empty database and serves /healthz and /readyz as the web role in production.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const procfile = readFileSync(path.join(ROOT, 'Procfile'), 'utf8');

/** The runtime stage's `COPY <src> <dest>` lines from the build context (not from a stage). */
function runtimeCopies(): Array<{ from: string | null; src: string; dest: string }> {
  const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
  return [...runtime.matchAll(/^COPY\s+(.*)$/gm)].map((match) => {
    const words = (match[1] ?? '').split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
    const [src = '', dest = ''] = words.filter((w) => !w.startsWith('--'));
    return { from, src, dest };
  });
}

/** `node <file>` commands named by the Dockerfile's CMD and the Procfile. */
function namedScripts(): string[] {
  const cmd = /^CMD \["node", "([^"]+)"\]/m.exec(dockerfile)?.[1];
  const procs = [...procfile.matchAll(/^\w+:\s*node\s+(\S+)/gm)].map((m) => m[1] ?? '');
  return [...new Set([cmd ?? '', ...procs])];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return address && typeof address === 'object' ? address.port : 0;
}

const serverUrl = inject('postgresUrl');
const dbName = `deploy_${randomBytes(5).toString('hex')}`;
const image = mkdtempSync(path.join(tmpdir(), 'legend-image-'));
afterAll(async () => {
  rmSync(image, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

describe('the Dockerfile and Procfile', () => {
  it('copy only paths that exist and name scripts that exist', () => {
    for (const copy of runtimeCopies().filter((c) => c.from === null)) {
      expect(existsSync(path.join(ROOT, copy.src)), copy.src).toBe(true);
    }
    expect(runtimeCopies().find((c) => c.from === 'build')?.src).toBe('/app/web/dist');
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.build).toBeDefined();
    const scripts = namedScripts();
    expect(scripts).toEqual(expect.arrayContaining(['api/main.ts', 'worker/main.ts', 'scripts/migrate.ts']));
    for (const script of scripts) expect(existsSync(path.join(ROOT, script)), script).toBe(true);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-/m);
  });

  it("runs the release phase on an empty database and serves as the production web role from the image's files", async () => {
    // The runtime stage's files, .dockerignore's test exclusion applied; dependencies linked.
    for (const copy of runtimeCopies().filter((c) => c.from === null)) {
      // `COPY file ./` lands the file in the directory; `COPY dir ./dir` the directory's contents.
      const dest = copy.dest.endsWith('/')
        ? path.join(image, copy.dest, path.basename(copy.src))
        : path.join(image, copy.dest);
      cpSync(path.join(ROOT, copy.src), dest, {
        recursive: true,
        filter: (file) => !file.endsWith('.test.ts'),
      });
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(image, 'node_modules'), 'dir');
    const dist = path.join(ROOT, 'web/dist');
    if (existsSync(path.join(dist, 'index.html')))
      cpSync(dist, path.join(image, 'web/dist'), { recursive: true });
    else {
      // `npm run build` has not run in this checkout: the build stage's output is not what is tested here.
      mkdirSync(path.join(image, 'web/dist'), { recursive: true });
      writeFileSync(path.join(image, 'web/dist/index.html'), '<!doctype html><title>Legend Cloud</title>');
    }
    expect(existsSync(path.join(image, 'tests'))).toBe(false);

    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: withDatabase(serverUrl, dbName),
      APP_SECRET: 'deploy-test-secret-deploy-test-secret-00',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: 'smtp://user:pass@127.0.0.1:2525',
      PAYU_KEY: 'merchantkey',
      PAYU_SALT: 'merchantsalt',
      PAYU_CHECKOUT_URL: 'https://test.payu.in/_payment',
      PAYU_API_URL: 'https://test.payu.in',
      GSTIN: '29ABCDE1234F1Z5',
      LEGAL_NAME: 'Legend Cloud Private Limited',
      LEGAL_ADDRESS: 'Bengaluru, Karnataka, India',
      OPS_EMAIL: 'ops@example.com',
      AWS_REGION: 'ap-south-1',
      EC2_KEY_NAME: 'legend',
      EC2_PRIVATE_KEY_PEM: 'not-used-by-the-web-process',
      EC2_SECURITY_GROUP_IDS: 'sg-0123456789abcdef0',
      EC2_SUBNET_IDS: 'subnet-0123456789abcdef0',
      EC2_AMI_ID: 'ami-0123456789abcdef0',
      WORKER_EGRESS_CIDRS: '203.0.113.10/32',
    };

    const release = await run(process.execPath, ['scripts/migrate.ts'], { cwd: image, env });
    expect(release.stdout).toMatch(/migrations: applied \d+/);
    const again = await run(process.execPath, ['scripts/migrate.ts'], { cwd: image, env });
    expect(again.stdout).toContain('migrations: up to date');

    const web = spawn(process.execPath, ['api/main.ts'], {
      cwd: image,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    web.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    web.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => web.on('exit', (code) => resolve(code)));
    try {
      await waitFor(
        'the web role to answer /readyz',
        async () => {
          if (web.exitCode !== null) throw new Error(`web exited ${web.exitCode}: ${output}`);
          const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
            (r) => r.status,
            // Refused until the process listens: that is what is being waited for.
            () => 0,
          );
          return ready === 200;
        },
        20_000,
      );
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/`)).headers.get('content-type')).toMatch(/text\/html/);
      // Production never mounts the sandbox: its inbox's JSON is not there, only the SPA's fallback.
      const inbox = await fetch(`http://127.0.0.1:${port}/sandbox/mail?to=a%40example.com`);
      expect(inbox.headers.get('content-type')).not.toMatch(/json/);
    } finally {
      web.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
