import type pg from 'pg';
import type { Config } from '../core/config/config.ts';
import type { DatabasePool } from '../core/db/pool.ts';
import type { Logger } from '../core/observability/log.ts';
import type { Boss } from '../core/queue.ts';
import { OWNER_WARNING_WINDOW_SECONDS } from '../core/domain/ownerWarnings.ts';
import { createGoogleVerifier, type GoogleVerifier } from '../core/providers/googleSignIn.ts';
import { createCounter, createLimiter, type Counter, type Limiter } from './middleware/rateLimit.ts';

/** What routes need from the outside: built once per process and passed down. */
export type Services = {
  config: Config;
  db: DatabasePool;
  /** A plain pg pool: for libraries that want one (the rate limiter) and the dashboard poll's statement. */
  pgPool: pg.Pool;
  boss: Boss;
  log: Logger;
  limiters: {
    reports: Limiter;
    feedback: Limiter;
    subscribe: Limiter;
    subscriptionLinks: Limiter;
    desktopTokenUser: Limiter;
    dcvAuthAddress: Limiter;
    machineHealthAddress: Limiter;
    streamPairUser: Limiter;
  } & AccountLimiters;
  /** The time for rules that expire things (desktop tokens); tests move it. */
  clock: () => Date;
  /** Verifies Google ID tokens against the configured JWKS (Google's or the sandbox's). */
  googleVerifier: GoogleVerifier;
};

/**
 * Sign-in and code endpoints. Budgets that refuse are per (account, address) pair, per browser
 * and per address, so nobody can spend someone else's: an attacker locks only their own pairs.
 * What is counted per account alone never refuses the owner: failed passwords slow every
 * attempt (api/auth/throttle.ts), and an inbox's code mails are paced but never refused to a
 * browser that signed in to it (api/auth/codeLimits.ts).
 */
type AccountLimiters = {
  loginPair: Limiter;
  loginIp: Limiter;
  loginAccountFailures: Counter;
  codeSendPairMinute: Limiter;
  codeSendPairHour: Limiter;
  codeSendIp: Limiter;
  codeCheckPair: Limiter;
  codeCheckIp: Limiter;
  twoFactorPair: Limiter;
  twoFactorChangeSession: Limiter;
  twoFactorChangePair: Limiter;
  passwordChangeSession: Limiter;
  passwordChangePair: Limiter;
  passwordChangeFailures: Counter;
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
    // The public site's forms. Contact messages mail support, so the same lid as reports.
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
    // "Open in browser" mints a one-time desktop token; a person needs a few, a script more.
    desktopTokenUser: createLimiter(pgPool, {
      name: 'desktop-token-user',
      points: 20,
      durationSeconds: 900,
      message: 'Too many attempts. Please try again in a few minutes.',
    }),
    // DCV verifies one token per connection; a machine (or anyone) asking far more is refused.
    dcvAuthAddress: createLimiter(pgPool, {
      name: 'dcv-auth-ip',
      points: 60,
      durationSeconds: 60,
      message: 'Too many verifications from this address.',
    }),
    // A machine reports every 5 minutes and, while its address is not known yet at boot, retries
    // every 30 s; anything far beyond that from one address is not our reporter.
    machineHealthAddress: createLimiter(pgPool, {
      name: 'machine-health-ip',
      points: 120,
      durationSeconds: 60,
      message: 'Too many reports from this address.',
    }),
    // Pairing a Moonlight device, or removing one: a person needs a few tries, a script more.
    streamPairUser: createLimiter(pgPool, {
      name: 'stream-pair-user',
      points: 20,
      durationSeconds: 900,
      message: 'Too many pairing attempts. Please try again in a few minutes.',
    }),
    ...createAccountLimiters(pgPool),
  };
}

/**
 * Per-address limits are generous because Indian mobile carriers put many people behind one
 * address (CGNAT); per-pair ones are what a single guesser meets.
 */
function createAccountLimiters(pgPool: pg.Pool): AccountLimiters {
  const tooMany = 'Too many attempts. Please try again in a few minutes.';
  return {
    loginPair: createLimiter(pgPool, {
      name: 'login-pair',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    loginIp: createLimiter(pgPool, { name: 'login-ip', points: 100, durationSeconds: 900, message: tooMany }),
    loginAccountFailures: createCounter(pgPool, { name: 'login-account-failures', durationSeconds: 900 }),
    codeSendPairMinute: createLimiter(pgPool, {
      name: 'code-send-pair-minute',
      points: 1,
      durationSeconds: 60,
      message: 'Please wait a minute before asking for another code.',
    }),
    codeSendPairHour: createLimiter(pgPool, {
      name: 'code-send-pair-hour',
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
    codeCheckPair: createLimiter(pgPool, {
      name: 'code-check-pair',
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
    // Wrong second-factor codes per (account, address), across sign-ins; each sign-in also has
    // its own five (core/db/twoFactor.ts).
    twoFactorPair: createLimiter(pgPool, {
      name: 'two-factor-pair',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    // Wrong codes typed while signed in (turning two-factor on or off), capped per session and
    // per (account, address) pair like a password change's guesses: a guesser (a stolen session,
    // say) locks only their own session and address, never the owner's other sessions. A right
    // code forgets both, as a sign-in forgets its pair.
    twoFactorChangeSession: createLimiter(pgPool, {
      name: 'two-factor-change-session',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    twoFactorChangePair: createLimiter(pgPool, {
      name: 'two-factor-change-pair',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    // Changing the password checks the current one. Guesses (from a stolen session, say) are
    // capped per session and per (account, address) pair, like a login's: a guesser locks only
    // their own session and address, never the owner's other sessions.
    passwordChangeSession: createLimiter(pgPool, {
      name: 'password-change-session',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    passwordChangePair: createLimiter(pgPool, {
      name: 'password-change-pair',
      points: 10,
      durationSeconds: 900,
      message: tooMany,
    }),
    // Per account, wrong current passwords only count: enough of them mail the owner
    // (core/domain/ownerWarnings.ts).
    passwordChangeFailures: createCounter(pgPool, {
      name: 'password-change-failures',
      durationSeconds: OWNER_WARNING_WINDOW_SECONDS,
    }),
  };
}

/** Opens the pools and the queue the web process needs. `close()` releases them all. */
export async function openServices(
  config: Config,
  databaseUrl: string,
  log: Logger,
): Promise<Services & { close: () => Promise<void> }> {
  const [{ createDbPool }, { default: pgLib }, { startBoss }, { listenForRevocations }] = await Promise.all([
    import('../core/db/pool.ts'),
    import('pg'),
    import('../core/queue.ts'),
    import('../core/db/sessionRevocations.ts'),
  ]);
  const db = await createDbPool(databaseUrl);
  // Also the dashboard poll's pool (core/db/dashboard.ts): as many connections as slonik's pool, as
  // the poll is most of the web process's traffic.
  // Timeouts as slonik's pool has them by default: no statement or wait for a connection hangs a request.
  // Its connections are kept (no idle timeout): the poll keeps them busy, and an idle timer armed
  // on every release cost each poll more than the connections cost Postgres idle.
  const pgPool = new pgLib.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 0,
    statement_timeout: 60_000,
  });
  pgPool.on('error', (error) => log.warn({ err: error }, 'idle database connection lost'));
  const boss = await startBoss(databaseUrl, 'web');
  boss.on('error', (error) => log.error({ err: error }, 'queue error'));
  // Sessions revoked by another web process are forgotten here at once (core/db/sessionCache.ts).
  const revocations = listenForRevocations(databaseUrl, log);
  return {
    config,
    db,
    pgPool,
    boss,
    log,
    limiters: createLimiters(pgPool),
    googleVerifier: createGoogleVerifier(config.google),
    clock: () => new Date(),
    async close() {
      await revocations.close();
      await boss.stop({ graceful: true, timeout: 5000 });
      await pgPool.end();
      await db.end();
    },
  };
}
