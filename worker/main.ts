import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { createLogger, onStopSignals } from '../core/observability/log.ts';
import { startWorker } from './worker.ts';

/** The worker process (Procfile `worker`): performs every side effect on the outside world. */
const config = loadConfig();
const log = createLogger({ level: config.logLevel, name: 'worker' });
const worker = await startWorker(config, requireDatabaseUrl(config), log);

/**
 * Graceful stop: stop fetching, let running jobs finish (up to 20 s), then hand any still
 * running back to the queue as failed attempts, which another worker retries at once.
 */
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'worker stopping: no new jobs, finishing running ones');
  await worker.stop();
  process.exit(0);
}
onStopSignals(log, shutdown);
