import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

/** Arbitrary constant: every process that migrates takes this one advisory lock. */
const MIGRATION_LOCK = 7_319_001;
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../sql');

export type Migration = { name: string; sql: string; checksum: string };

export class MigrationError extends Error {
  override name = 'MigrationError';
}

async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    if (!FILE_PATTERN.test(file)) {
      throw new MigrationError(`${file}: migration files are named NNNN_lower_snake_name.sql`);
    }
    const text = await readFile(path.join(dir, file), 'utf8');
    if (!text.trimStart().startsWith('--')) {
      throw new MigrationError(`${file}: a migration opens with a comment saying why it exists`);
    }
    migrations.push({ name: file, sql: text, checksum: createHash('sha256').update(text).digest('hex') });
  }
  const numbers = migrations.map((m) => m.name.slice(0, 4));
  const duplicate = numbers.find((n, i) => numbers.indexOf(n) !== i);
  if (duplicate) throw new MigrationError(`two migrations share the number ${duplicate}`);
  return migrations;
}

/**
 * Applies pending migrations in order, each in its own transaction, under an advisory lock
 * so concurrent releases cannot race. An applied migration whose file changed is an error:
 * migrations are forward-only and never edited once they have run anywhere.
 */
export async function migrate(
  databaseUrl: string,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<string[]> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations',
    );
    const done = new Map(rows.map((r) => [r.name, r.checksum]));
    for (const m of migrations) {
      const previous = done.get(m.name);
      if (previous !== undefined) {
        if (previous !== m.checksum) {
          throw new MigrationError(
            `${m.name} was edited after it was applied (checksum differs). Add a new migration instead.`,
          );
        }
        continue;
      }
      try {
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        // The migration's own error is the one to report, even when the connection is too broken
        // for the ROLLBACK (ending the session below rolls back in any case); that is said too.
        const rollback = await client.query('ROLLBACK').then(
          () => null,
          (rollbackError: unknown) => rollbackError as Error,
        );
        throw new MigrationError(
          `${m.name} failed: ${(error as Error).message}` +
            (rollback ? ` (and its ROLLBACK failed: ${rollback.message})` : ''),
          { cause: error },
        );
      }
      applied.push(m.name);
      log(`applied ${m.name}`);
    }
    const unknown = [...done.keys()].filter((name) => !migrations.some((m) => m.name === name));
    if (unknown.length > 0) {
      throw new MigrationError(`the database has migrations this code does not know: ${unknown.join(', ')}`);
    }
  } finally {
    // Ending the session releases the lock whatever state the connection is in: no unlock
    // call that could fail and hide the error that brought us here.
    await client.end();
  }
  return applied;
}
