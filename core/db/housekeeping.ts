import { z } from 'zod';
import { launchLedgerPrunableBefore } from '../domain/launchBudget.ts';
import { pruneLaunches } from './launches.ts';
import { sql, type Db } from './pool.ts';

/**
 * Rows that are dead and stay dead: rate-limit counters past their window, sessions long
 * expired or revoked, one-time codes, reset links and two-factor challenges past expiry, and
 * sign-ups never finished. Kept a while after death for support questions ("why was I logged
 * out?"), then deleted in bounded batches so one run never holds long locks. The launch ledger's
 * rows go after LAUNCH_LEDGER_RETENTION_MS (core/domain/launchBudget.ts, beside the budgets that
 * read them).
 */
export const RETENTION = {
  /** Expired or revoked sessions. */
  sessionsDays: 30,
  /** Codes, reset links, two-factor challenges after expiry. */
  secretsDays: 1,
  /** A sign-up whose code was never entered. */
  pendingRegistrationDays: 2,
  /** Browser-desktop verifications (who opened a desktop, from where), and spent tokens after them. */
  desktopDays: 90,
} as const;

const BATCH = 5000;
const Count = z.object({ count: z.number() });

async function deleteBatch(db: Db, table: string, where: ReturnType<typeof sql.fragment>): Promise<number> {
  const name = sql.identifier([table]);
  return db.oneFirst(sql.type(Count)`
    WITH doomed AS (SELECT ctid FROM ${name} WHERE ${where} LIMIT ${BATCH}),
         gone AS (DELETE FROM ${name} WHERE ctid IN (SELECT ctid FROM doomed) RETURNING 1)
    SELECT count(*)::int AS count FROM gone`);
}

export type Purged = Record<
  | 'rateLimits'
  | 'sessions'
  | 'oneTimeCodes'
  | 'passwordResetTokens'
  | 'twoFactorChallenges'
  | 'pendingRegistrations'
  | 'desktopTokenUses'
  | 'desktopTokens'
  | 'usedProofs'
  | 'codeMailBudgets'
  | 'ec2Launches',
  number
>;

/** One bounded pass over every table. Run again while it reports a full batch anywhere. */
export async function purgeExpired(db: Db, now: Date): Promise<Purged> {
  const iso = now.toISOString();
  const days = (n: number) => sql.fragment`${iso}::timestamptz - make_interval(days => ${n})`;
  return {
    // rate-limiter-flexible stores `expire` as epoch milliseconds; null means no expiry.
    rateLimits: await deleteBatch(
      db,
      'rate_limits',
      sql.fragment`expire IS NOT NULL AND expire < ${now.getTime()}`,
    ),
    sessions: await deleteBatch(
      db,
      'sessions',
      sql.fragment`expires_at < ${days(RETENTION.sessionsDays)} OR revoked_at < ${days(RETENTION.sessionsDays)}`,
    ),
    oneTimeCodes: await deleteBatch(
      db,
      'one_time_codes',
      sql.fragment`expires_at < ${days(RETENTION.secretsDays)}`,
    ),
    passwordResetTokens: await deleteBatch(
      db,
      'password_reset_tokens',
      sql.fragment`expires_at < ${days(RETENTION.secretsDays)}`,
    ),
    twoFactorChallenges: await deleteBatch(
      db,
      'two_factor_challenges',
      sql.fragment`expires_at < ${days(RETENTION.secretsDays)}`,
    ),
    pendingRegistrations: await deleteBatch(
      db,
      'pending_registrations',
      sql.fragment`updated_at < ${days(RETENTION.pendingRegistrationDays)}`,
    ),
    desktopTokenUses: await deleteBatch(
      db,
      'desktop_token_uses',
      sql.fragment`at < ${days(RETENTION.desktopDays)}`,
    ),
    // A token goes once no recorded verification names it any more.
    desktopTokens: await deleteBatch(
      db,
      'desktop_tokens',
      sql.fragment`expires_at < ${days(RETENTION.desktopDays)}
        AND NOT EXISTS (SELECT 1 FROM desktop_token_uses u WHERE u.token_id = desktop_tokens.id)`,
    ),
    // A used proof of work matters only until its challenge expires.
    usedProofs: await deleteBatch(db, 'used_proofs', sql.fragment`expires_at < ${iso}::timestamptz`),
    // An inbox budget long refilled and no longer under attack is the same as none.
    codeMailBudgets: await deleteBatch(
      db,
      'code_mail_budgets',
      sql.fragment`tat < ${days(RETENTION.secretsDays)}
        AND (attacked_until IS NULL OR attacked_until < ${iso}::timestamptz)`,
    ),
    // Counted into ec2_launch_totals as they go: /metrics' launch counter never drops.
    ec2Launches: await pruneLaunches(db, new Date(launchLedgerPrunableBefore(now)), BATCH),
  };
}

export const PURGE_BATCH = BATCH;
