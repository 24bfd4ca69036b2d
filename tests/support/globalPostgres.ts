import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../core/db/migrate.ts';
import { ensureQueues, BOSS_SCHEMA } from '../../core/queue.ts';
import { PgBoss } from 'pg-boss';
import { startEmbeddedPostgres, type RunningPostgres } from '../../scripts/lib/postgres.ts';
import { createDatabase, scratchDir } from '../../scripts/lib/scratch.ts';

export const TEMPLATE_DB = 'legend_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    templateDb: string;
  }
}

/**
 * One Postgres for the whole integration run (embedded unless DATABASE_URL is set) and a
 * template database with every migration and the pg-boss schema applied. Each test file
 * clones the template into a database of its own, so files run in parallel without cross-talk.
 */
export default async function setup(project: TestProject) {
  let running: RunningPostgres | undefined;
  let dir: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    dir = await scratchDir('pg-');
    running = await startEmbeddedPostgres(path.join(dir, 'cluster'), { durable: false });
    serverUrl = running.url;
  }
  const templateUrl = await createDatabase(serverUrl, TEMPLATE_DB);
  await migrate(templateUrl);
  const boss = new PgBoss({
    connectionString: templateUrl,
    schema: BOSS_SCHEMA,
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await ensureQueues(boss);
  await boss.stop({ graceful: false });

  project.provide('postgresUrl', serverUrl);
  project.provide('templateDb', TEMPLATE_DB);

  return async () => {
    await running?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}
