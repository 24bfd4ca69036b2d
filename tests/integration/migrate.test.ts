import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { migrate, MigrationError } from '../../core/db/migrate.ts';
import { createDatabase } from '../../scripts/lib/scratch.ts';

/** The migration runner against a database of its own on the run's Postgres. */
const dir = await mkdtemp(path.join(tmpdir(), 'legend-migrations-'));
const url = await createDatabase(inject('postgresUrl'), `migrate_test_${process.pid}`);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function tables(): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('migrate', () => {
  it('stops at a failing migration with its own error, keeps what applied, and carries on once it is mended', async () => {
    await writeFile(path.join(dir, '0001_first.sql'), '-- the first\nCREATE TABLE first_table (id int);');
    await writeFile(
      path.join(dir, '0002_broken.sql'),
      '-- the second, broken\nCREATE TABLE second_table (id int); SELECT * FROM nowhere;',
    );
    const error = await migrate(url, { dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/^0002_broken\.sql failed: relation "nowhere" does not exist$/);
    expect((error as Error).cause).toBeInstanceOf(Error);
    // The failed one left nothing behind; the one before it stays applied.
    expect(await tables()).toEqual(['first_table', 'schema_migrations']);

    await writeFile(
      path.join(dir, '0002_broken.sql'),
      '-- the second, mended\nCREATE TABLE second_table (id int);',
    );
    await expect(migrate(url, { dir })).resolves.toEqual(['0002_broken.sql']);
    expect(await tables()).toEqual(['first_table', 'schema_migrations', 'second_table']);
  });
});
