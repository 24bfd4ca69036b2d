import type { Config } from '../core/config.ts';
import type { DatabasePool } from '../core/db/pool.ts';
import type { Logger } from '../core/log.ts';
import type { Mailer } from '../core/providers/mail.ts';
import type { Boss } from '../core/queue.ts';

/** What job handlers need, built once per worker process. */
export type WorkerDeps = {
  config: Config;
  db: DatabasePool;
  boss: Boss;
  log: Logger;
  mailer: Mailer;
};
