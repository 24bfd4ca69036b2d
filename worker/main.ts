import { loadConfig, requireDatabaseUrl } from '../core/config.ts';
import { createLogger } from '../core/log.ts';
import { startWorker } from './worker.ts';

/** The worker process (Procfile `worker`): performs every side effect on the outside world. */
const config = loadConfig();
const log = createLogger({ level: config.logLevel, name: 'worker' });
const worker = await startWorker(config, requireDatabaseUrl(config), log);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'worker stopping');
  await worker.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
