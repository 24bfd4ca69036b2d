import type pg from 'pg';
import type { Config } from '../core/config.ts';
import type { DatabasePool } from '../core/db/pool.ts';
import type { Logger } from '../core/log.ts';
import type { Boss } from '../core/queue.ts';
import { createGoogleVerifier, type GoogleVerifier } from '../core/providers/googleSignIn.ts';
import { createLimiter, type Limiter } from './middleware/rateLimit.ts';

/** What routes need from the outside: built once per process and passed down. */
export type Services = {
  config: Config;
  db: DatabasePool;
  /** A plain pg pool for libraries that want one (the rate limiter). */
  pgPool: pg.Pool;
  boss: Boss;
  log: Logger;
  limiters: {
    reports: Limiter;
    feedback: Limiter;
    subscribe: Limiter;
    subscriptionLinks: Limiter;
  } & AccountLimiters;
  /** Verifies Google ID tokens against the configured JWKS (Google's or the sandbox's). */
  googleVerifier: GoogleVerifier;
};

/** Accounts (issue 3): login and code endpoints, per email and per address. */
type AccountLimiters = {
  loginEmail: Limiter;
  loginIp: Limiter;
  codeSendMinute: Limiter;
  codeSendHour: Limiter;
  codeSendIp: Limiter;
  codeCheckEmail: Limiter;
  codeCheckIp: Limiter;
  twoFactorUser: Limiter;
};

function createLimiters(pgPool: pg.Pool): Services['limiters'] {
  return {
    // Anonymous reports are allowed, so keep a lid on them: 10 an hour from one address.
    reports: createLimiter(pgPool, {
      name: 'report-ip',
      points: 10,
      durationSeconds: 3600,
      message: 'Too many reports from your network. Please try again in a while.',
    }),
    // The public site's forms (issue 6). Contact messages mail support, so the same lid as reports.
    feedback: createLimiter(pgPool, {
      name: 'feedback-ip',
      points: 10,
      durationSeconds: 3600,
      message: 'Too many messages from your network. Please try again in a while.',
    }),
    // Each subscribe may mail someone: a handful an hour from one address is plenty for people.
    subscribe: createLimiter(pgPool, {
      name: 'subscribe-ip',
      points: 10,
      durationSeconds: 3600,
      message: 'Too many subscription requests from your network. Please try again in a while.',
    }),
    // Confirm and unsubscribe links carry unguessable tokens; this only stops hammering.
    subscriptionLinks: createLimiter(pgPool, {
      name: 'subscription-link-ip',
      points: 60,
      durationSeconds: 900,
      message: 'Too many attempts from your network. Please try again in a few minutes.',
    }),
    ...createAccountLimiters(pgPool),
  };
}

/**
 * Accounts (issue 3). Per-email limits stop guessing at one account; per-address limits stop
 * spraying many. The per-address ones are generous because Indian mobile carriers put many
 * people behind one address (CGNAT).
 */
function createAccountLimiters(pgPool: pg.Pool): AccountLimiters {
  const tooMany = 'Too many attempts. Please try again in a few minutes.';
  return {
    loginEmail: createLimiter(pgPool, {
      name: 'login-email',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    loginIp: createLimiter(pgPool, { name: 'login-ip', points: 100, durationSeconds: 900, message: tooMany }),
    codeSendMinute: createLimiter(pgPool, {
      name: 'code-send-minute',
      points: 1,
      durationSeconds: 60,
      message: 'Please wait a minute before asking for another code.',
    }),
    codeSendHour: createLimiter(pgPool, {
      name: 'code-send-hour',
      points: 5,
      durationSeconds: 3600,
      message: 'Too many codes requested. Please try again in an hour.',
    }),
    codeSendIp: createLimiter(pgPool, {
      name: 'code-send-ip',
      points: 50,
      durationSeconds: 3600,
      message: 'Too many requests from your network. Please try again later.',
    }),
    codeCheckEmail: createLimiter(pgPool, {
      name: 'code-check-email',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    codeCheckIp: createLimiter(pgPool, {
      name: 'code-check-ip',
      points: 100,
      durationSeconds: 900,
      message: tooMany,
    }),
    twoFactorUser: createLimiter(pgPool, {
      name: 'two-factor-user',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
  };
}

/** Opens the pools and the queue the web process needs. `close()` releases them all. */
export async function openServices(
  config: Config,
  databaseUrl: string,
  log: Logger,
): Promise<Services & { close: () => Promise<void> }> {
  const [{ createDbPool }, { default: pgLib }, { startBoss }] = await Promise.all([
    import('../core/db/pool.ts'),
    import('pg'),
    import('../core/queue.ts'),
  ]);
  const db = await createDbPool(databaseUrl);
  const pgPool = new pgLib.Pool({ connectionString: databaseUrl, max: 4 });
  pgPool.on('error', (error) => log.warn({ err: error }, 'idle database connection lost'));
  const boss = await startBoss(databaseUrl, 'web');
  boss.on('error', (error) => log.error({ err: error }, 'queue error'));
  return {
    config,
    db,
    pgPool,
    boss,
    log,
    limiters: createLimiters(pgPool),
    googleVerifier: createGoogleVerifier(config.google),
    async close() {
      await boss.stop({ graceful: true, timeout: 5000 });
      await pgPool.end();
      await db.end();
    },
  };
}
