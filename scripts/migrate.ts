import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { migrate } from '../core/db/migrate.ts';

/** `npm run migrate` and the Procfile's release phase: applies pending migrations. */
const config = loadConfig();
try {
  const applied = await migrate(requireDatabaseUrl(config), { log: (line) => console.log(line) });
  console.log(applied.length === 0 ? 'migrations: up to date' : `migrations: applied ${applied.length}`);
} catch (error) {
  console.error(`migrate: ${(error as Error).message}`);
  process.exitCode = 1;
}
