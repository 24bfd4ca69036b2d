import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { withDatabase } from '../../scripts/lib/postgres.ts';

/**
 * A database of this test file's own, cloned from the migrated template. Dropped when the
 * file finishes. Call at module level (it registers an afterAll).
 */
export async function freshDatabase(): Promise<string> {
  const serverUrl = inject('postgresUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDb')}`);
  await admin.end();
  afterAll(async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  return withDatabase(serverUrl, name);
}
