import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../core/db/migrate.ts';
import { startEmbeddedPostgres, withDatabase } from './postgres.ts';

/**
 * A fresh directory under .test-data for one run of tests or a benchmark. mkdtemp makes it
 * 0700, which the `postgres` system user (embedded Postgres as root) could not enter.
 */
export async function scratchDir(prefix: string): Promise<string> {
  await mkdir('.test-data', { recursive: true });
  const dir = await mkdtemp(path.resolve('.test-data', prefix));
  await chmod(dir, 0o755);
  return dir;
}

/** Creates database `name` on the server at `serverUrl`; answers its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}

/**
 * A throwaway embedded Postgres with one migrated database, for benchmarks. `stop()` shuts
 * the server down and deletes its files; `dataDir` is its data directory (its postmaster.pid).
 */
export async function startScratchDatabase(
  prefix: string,
  name: string,
): Promise<{ url: string; dataDir: string; stop: () => Promise<void> }> {
  const dir = await scratchDir(prefix);
  const dataDir = path.join(dir, 'pg');
  const postgres = await startEmbeddedPostgres(dataDir, { durable: false });
  const stop = async () => {
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const url = await createDatabase(postgres.url, name);
    await migrate(url);
    return { url, dataDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
