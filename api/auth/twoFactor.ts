import { randomInt } from 'node:crypto';
import { decrypt, hashCode } from '../../core/crypto/crypto.ts';
import type { Db } from '../../core/db/pool.ts';
import {
  countUnfinishedPasswordSignIns,
  recordWrongSecondStep,
  useRecoveryCode,
  type Challenge,
} from '../../core/db/twoFactor.ts';
import {
  OWNER_WARNING_WINDOW_SECONDS,
  shouldWarnOfUnfinishedSignIns,
} from '../../core/domain/ownerWarnings.ts';
import { FAILED_SECOND_STEPS_WINDOW_SECONDS, shouldWarnOwner } from '../../core/domain/codeLimits.ts';
import { passwordKnownMail } from '../../core/emails/accounts.ts';
import type { AppContext } from '../context.ts';
import type { Services } from '../services.ts';
import { warnOwner } from './ownerWarnings.ts';
import { claimTotpStep, type User } from '../../core/db/users.ts';
import { checkTotp } from '../../core/crypto/totp.ts';
import { RECOVERY_CODE_COUNT } from '../../core/db/twoFactor.ts';

/** The second factor: TOTP codes from an authenticator app, or single-use recovery codes. */

/** Key purposes for core/crypto/crypto.ts: the encrypted TOTP secret and the recovery-code pepper. */
export const TOTP_SECRET_PURPOSE = 'totp-secret';
const RECOVERY_PURPOSE = 'recovery-code';

// No 0/o, 1/l/i: read off paper and typed on a phone.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten fresh recovery codes (`xxxxx-xxxxx`, about 49 bits each), shown to the user once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let raw = '';
    for (let i = 0; i < 10; i++) raw += ALPHABET[randomInt(ALPHABET.length)];
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

/** Case, spaces and dashes do not matter when a recovery code is typed back. */
function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function hashRecoveryCode(appSecret: string, userId: string, code: string): string {
  return hashCode(appSecret, RECOVERY_PURPOSE, `${userId}\n${normaliseRecoveryCode(code)}`);
}

/**
 * Whether `code` is a good second factor for `user` right now: a TOTP code not used before,
 * or an unused recovery code (which is then used up).
 */
export async function checkSecondFactor(
  db: Db,
  appSecret: string,
  user: User,
  code: string,
): Promise<boolean> {
  if (!user.totp_enabled_at || !user.totp_secret_encrypted) return false;
  const trimmed = code.trim().replace(/\s+/g, '');
  if (/^\d{6}$/.test(trimmed)) {
    const secret = decrypt(appSecret, TOTP_SECRET_PURPOSE, user.totp_secret_encrypted);
    const step = await checkTotp(secret, trimmed, user.totp_last_step);
    return step !== null && (await claimTotpStep(db, user.id, step));
  }
  const normalised = normaliseRecoveryCode(trimmed);
  if (normalised.length !== 10) return false;
  return useRecoveryCode(db, user.id, hashRecoveryCode(appSecret, user.id, normalised));
}

/**
 * A wrong second step. After FAILED_SECOND_STEPS_BEFORE_WARNING sign-ins with the right
 * password failed there within the hour, the owner is mailed that someone has their password:
 * when, from roughly where (the address), and where to change it. At most once an hour.
 */
export async function recordFailedSecondStep(
  ctx: AppContext,
  services: Services,
  user: User,
  challenge: Challenge,
): Promise<void> {
  const { db } = services;
  const failed = await recordWrongSecondStep(db, challenge.id, ctx.ip, FAILED_SECOND_STEPS_WINDOW_SECONDS);
  if (failed.method !== 'password' || !shouldWarnOwner(failed.failedPasswordSignIns)) return;
  await warnPasswordKnown(ctx, services, user, 'second step failed repeatedly after the right password');
}

/**
 * A sign-in with the right password now waits for its second step. After
 * UNFINISHED_SIGN_INS_BEFORE_WARNING such sign-ins within the hour that did not finish it, from
 * addresses the owner has never had a session at, the owner is told someone has their password
 * (the same mail, and the same once an hour, as for wrong codes).
 */
export async function warnIfPasswordKnown(ctx: AppContext, services: Services, user: User): Promise<void> {
  const { db } = services;
  const unfinished = await countUnfinishedPasswordSignIns(db, user.id, OWNER_WARNING_WINDOW_SECONDS);
  if (!shouldWarnOfUnfinishedSignIns(unfinished)) return;
  await warnPasswordKnown(
    ctx,
    services,
    user,
    'sign-ins with the right password left at the second step from addresses the owner has not used',
  );
}

/** The owner is told someone has their password: when, from which address, where to change it. */
async function warnPasswordKnown(
  ctx: AppContext,
  services: Services,
  user: User,
  why: string,
): Promise<void> {
  const { config } = services;
  await warnOwner(ctx, services, {
    userId: user.id,
    kind: 'password-known',
    mail: passwordKnownMail(user.email, {
      at: new Date(),
      address: ctx.ip,
      changeUrl: `${config.publicUrl}/forgot-password`,
      supportEmail: config.supportEmail,
    }),
    why,
  });
}
