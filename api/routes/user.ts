import Router from '@koa/router';
import { z } from 'zod';
import { decrypt, encrypt } from '../../core/crypto/crypto.ts';
import {
  deletionFacts,
  minimiseKeptRecords,
  releaseUserResources,
} from '../../core/commands/accountDeletion.ts';
import { consumeCodes } from '../../core/db/codes.ts';
import { deletePendingRegistration } from '../../core/db/pendingRegistrations.ts';
import { consumeUserResetTokens } from '../../core/db/passwordResets.ts';
import { revokeOtherUserSessions, revokeUserSessions } from '../../core/db/sessions.ts';
import { lockUserPlans } from '../../core/db/subscriptions.ts';
import {
  consumeUserChallenges,
  countUnusedRecoveryCodes,
  deleteRecoveryCodes,
  replaceRecoveryCodes,
} from '../../core/db/twoFactor.ts';
import {
  anonymiseUser,
  disableTotp,
  enableTotp,
  findUserById,
  replacePasswordHash,
  setPendingTotpSecret,
  updateUserName,
  updateUserPhone,
  type User,
} from '../../core/db/users.ts';
import { ACCOUNT_MESSAGES as M, NAME_MAX_LENGTH } from '../../core/domain/account.ts';
import {
  PASSWORD_CHANGE_MESSAGES as PC,
  PASSWORD_MAX_LENGTH,
  passwordChangeNeedsCurrent,
} from '../../core/domain/password.ts';
import { shouldWarnOfPasswordGuesses } from '../../core/domain/ownerWarnings.ts';
import { formatHoursMinutes } from '../../core/domain/usageBuckets.ts';
import {
  accountDeletedMail,
  passwordChangedWhileSignedInMail,
  passwordGuessedMail,
  twoFactorChangedMail,
} from '../../core/emails/accounts.ts';
import { hashPassword, verifyPassword } from '../../core/crypto/passwords.ts';
import { sendJob } from '../../core/queue.ts';
import { checkTotp, newTotpSecret, totpQrCode, totpUri } from '../../core/crypto/totp.ts';
import { clearCookie, SESSION_COOKIE } from '../auth/cookies.ts';
import { warnOwner } from '../auth/ownerWarnings.ts';
import { accountPair, slowDownForAccount } from '../auth/throttle.ts';
import {
  checkSecondFactor,
  hashRecoveryCode,
  newRecoveryCodes,
  TOTP_SECRET_PURPOSE,
} from '../auth/twoFactor.ts';
import { badRequest, conflict, unauthorized } from '../errors.ts';
import { newPasswordField, phoneField } from '../fields.ts';
import { assertSameUser, currentUser, requireUser } from '../middleware/auth.ts';
import { input, validate } from '../middleware/validate.ts';
import { deletionPreviewBody, profileBody } from '../presenters/user.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * `/api/user/*` (spec §7): the profile, account deletion, and the two-factor settings. Every
 * route needs a session; an email in the request must be the session user's (403 otherwise).
 */

const OptionalEmail = z.string({ error: 'Email must be text.' }).max(254).optional();

export const ProfileQuery = z.object({ email: OptionalEmail });
type ProfileQuery = z.infer<typeof ProfileQuery>;

export const ProfileBody = z.object({
  email: OptionalEmail,
  name: z
    .string({ error: M.nameEmpty })
    .trim()
    .min(1, M.nameEmpty)
    .max(NAME_MAX_LENGTH, `Name must be at most ${NAME_MAX_LENGTH} characters.`)
    .optional(),
  // PayU needs a phone: a customer who signed up with Google adds (or anyone edits) it here.
  phone: phoneField().optional(),
});
type ProfileBody = z.infer<typeof ProfileBody>;

export const DeleteBody = z.object({ email: OptionalEmail });
type DeleteBody = z.infer<typeof DeleteBody>;

export const CodeBody = z.object({
  code: z
    .string({ error: 'Please enter the code.' })
    .trim()
    .min(1, 'Please enter the code.')
    .max(40, 'That code is not right.'),
});
type CodeBody = z.infer<typeof CodeBody>;

const WRONG_CODE = 'That code is not right. Please try again.';

/** A signed-in password change; `currentPassword` is absent when the account has none yet (made with Google). */
export const PasswordBody = z.object({
  currentPassword: z
    .string({ error: PC.currentRequired })
    .max(PASSWORD_MAX_LENGTH * 4, PC.currentWrong)
    .optional(),
  newPassword: newPasswordField(PC.newRequired),
});
type PasswordBody = z.infer<typeof PasswordBody>;

export function userRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const { db, boss, config, limiters } = services;
  const secret = config.appSecret;

  async function sessionUserRow(ctx: AppContext): Promise<User> {
    const user = await findUserById(db, currentUser(ctx).id);
    if (!user) throw unauthorized();
    return user;
  }

  /** A wrong current password: past a few on the account within the hour, the owner is mailed. */
  async function countWrongCurrentPassword(ctx: AppContext, user: User): Promise<void> {
    const wrong = await limiters.passwordChangeFailures.add(user.id);
    if (!shouldWarnOfPasswordGuesses(wrong)) return;
    await warnOwner(ctx, services, {
      userId: user.id,
      kind: 'password-guessed',
      mail: passwordGuessedMail(user.email, {
        at: new Date(),
        address: ctx.ip,
        resetUrl: `${config.publicUrl}/forgot-password`,
        supportEmail: config.supportEmail,
      }),
      why: 'wrong current passwords typed repeatedly in a signed-in session',
    });
  }

  /**
   * Spends one of this session's and this (account, address) pair's code attempts, refusing (429)
   * when either is spent, before the code is looked at: one statement checks and spends each,
   * so parallel guesses cannot overspend. `forgetCodeAttempts` gives them back after a right code.
   */
  async function spendCodeAttempt(ctx: AppContext): Promise<void> {
    const me = currentUser(ctx);
    await limiters.twoFactorChangeSession.consume(me.sessionId);
    await limiters.twoFactorChangePair.consume(accountPair(ctx, me.id));
  }

  /** A right code spends nothing: its session and pair start counting again, as a sign-in's pair does. */
  async function forgetCodeAttempts(ctx: AppContext): Promise<void> {
    const me = currentUser(ctx);
    await limiters.twoFactorChangeSession.reset(me.sessionId);
    await limiters.twoFactorChangePair.reset(accountPair(ctx, me.id));
  }

  router.get('/user/profile', requireUser(), validate(ProfileQuery, 'query'), async (ctx) => {
    const { email } = input<ProfileQuery>(ctx);
    assertSameUser(ctx, email);
    ctx.body = profileBody(await sessionUserRow(ctx));
  });

  router.put('/user/profile', requireUser(), validate(ProfileBody), async (ctx) => {
    const { email, name, phone } = input<ProfileBody>(ctx);
    const me = assertSameUser(ctx, email);
    if (name === undefined && phone === undefined) throw badRequest(M.nameEmpty);
    let user = await sessionUserRow(ctx);
    if (name !== undefined) user = await updateUserName(db, me.id, name);
    if (phone !== undefined) user = await updateUserPhone(db, me.id, phone);
    ctx.body = profileBody(user);
  });

  // What the delete dialog lists before the confirmation: the facts the deletion itself reads.
  router.get('/user/deletion', requireUser(), async (ctx) => {
    ctx.body = deletionPreviewBody(await deletionFacts(db, currentUser(ctx).id, new Date()));
  });

  // Spec §4 "Delete account": after the confirmation, sign out everywhere and forget the person,
  // keeping the rows a business must keep (invoices, payments) attached to an anonymous user.
  // The SPA's dialog sends the email the customer typed, so a mistyped one is refused (403).
  // A confirmation mail, queued with the deletion, says what was destroyed and what is kept.
  router.delete('/user', requireUser(), validate(DeleteBody), async (ctx) => {
    const { email } = input<DeleteBody>(ctx);
    const me = assertSameUser(ctx, email);
    await db.transaction(async (trx) => {
      // After any payment settling now (it activates under this lock), so its plan is cancelled
      // with the rest; a payment settling after finds the account gone and is refunded.
      await lockUserPlans(trx, me.id);
      const facts = await deletionFacts(trx, me.id, new Date());
      await sendJob(
        boss,
        'email-send',
        accountDeletedMail(
          me.email,
          me.name,
          {
            machines: facts.machines.length,
            plan: facts.plan && {
              name: facts.plan.name,
              hoursLeft: formatHoursMinutes(facts.plan.secondsLeft / 3600),
            },
            invoices: facts.invoices,
            trialPhoneKept: facts.trialPhoneKept,
          },
          config.supportEmail,
        ),
        { db: trx },
      );
      await revokeUserSessions(trx, me.id);
      await consumeUserResetTokens(trx, me.id);
      await consumeUserChallenges(trx, me.id);
      await consumeCodes(trx, me.email);
      await deletePendingRegistration(trx, me.email);
      await deleteRecoveryCodes(trx, me.id);
      // The cloud-PC seam: stop and terminate the user's machines (core/commands/accountDeletion.ts).
      await releaseUserResources(trx, boss, me.id);
      // Invoices and payments stay for the tax authority, without the person on them.
      await minimiseKeptRecords(trx, me.id);
      await anonymiseUser(trx, me.id);
    });
    clearCookie(ctx, SESSION_COOKIE, { production: config.production });
    ctx.state.user = undefined;
    ctx.body = { message: 'Your account has been deleted.' };
  });

  // --- password ---------------------------------------------------------------------------

  /** Whether the account has a password (an account made with Google may not, yet). */
  router.get('/user/password', requireUser(), async (ctx) => {
    const user = await sessionUserRow(ctx);
    ctx.body = { hasPassword: user.password_hash !== null };
  });

  /**
   * Changes the password (or sets a first one) while signed in: the same rules as a sign-up,
   * the current password proven where there is one (guesses limited and slowed like a login's),
   * every other session signed out, pending reset links and codes void, the owner mailed.
   * Two-factor is not asked again: core/domain/password.ts says why.
   */
  router.post('/user/password', requireUser(), validate(PasswordBody), async (ctx) => {
    const { currentPassword, newPassword } = input<PasswordBody>(ctx);
    const me = currentUser(ctx);
    await limiters.loginIp.consume(ctx.ip);
    await limiters.passwordChangeSession.consume(me.sessionId);
    await limiters.passwordChangePair.consume(accountPair(ctx, me.id));
    const user = await sessionUserRow(ctx);
    const first = !passwordChangeNeedsCurrent({ hasPassword: user.password_hash !== null });
    if (!first) {
      if (!currentPassword) throw badRequest(PC.currentRequired);
      await slowDownForAccount(limiters.loginAccountFailures, user.email);
      if (!(await verifyPassword(user.password_hash, currentPassword))) {
        await limiters.loginAccountFailures.add(user.email);
        await countWrongCurrentPassword(ctx, user);
        throw badRequest(PC.currentWrong);
      }
      if (currentPassword === newPassword) throw badRequest(PC.sameAsCurrent);
    }
    // Hashed before the transaction: slonik may retry it, and argon2 is most of the work.
    const passwordHash = await hashPassword(newPassword);
    const changed = await db.transaction(async (trx) => {
      if (!(await replacePasswordHash(trx, user.id, user.password_hash, passwordHash))) return false;
      await revokeOtherUserSessions(trx, user.id, me.sessionId);
      await consumeUserResetTokens(trx, user.id);
      await consumeCodes(trx, user.email);
      await consumeUserChallenges(trx, user.id);
      await sendJob(
        boss,
        'email-send',
        passwordChangedWhileSignedInMail(user.email, first, config.supportEmail),
        { db: trx },
      );
      return true;
    });
    if (!changed) throw conflict(PC.raced);
    ctx.body = { message: first ? PC.set : PC.changed };
  });

  // --- two-factor settings ----------------------------------------------------------------

  router.get('/user/two-factor', requireUser(), async (ctx) => {
    const user = await sessionUserRow(ctx);
    ctx.body = {
      enabled: Boolean(user.totp_enabled_at),
      recoveryCodesLeft: user.totp_enabled_at ? await countUnusedRecoveryCodes(db, user.id) : 0,
    };
  });

  /** Starts enrolment: a new secret (stored encrypted, not active until confirmed) and its QR code. */
  router.post('/user/two-factor/setup', requireUser(), async (ctx) => {
    const user = await sessionUserRow(ctx);
    if (user.totp_enabled_at) throw conflict('Two-factor sign-in is already on.');
    const totpSecret = newTotpSecret();
    await setPendingTotpSecret(db, user.id, encrypt(secret, TOTP_SECRET_PURPOSE, totpSecret));
    const uri = totpUri(totpSecret, user.email);
    ctx.body = { secret: totpSecret, otpauthUrl: uri, qrCode: await totpQrCode(uri) };
  });

  /** Confirms enrolment with a code from the app; answers the recovery codes, shown once. */
  router.post('/user/two-factor/enable', requireUser(), validate(CodeBody), async (ctx) => {
    const { code } = input<CodeBody>(ctx);
    const user = await sessionUserRow(ctx);
    if (user.totp_enabled_at) throw conflict('Two-factor sign-in is already on.');
    if (!user.totp_pending_secret_encrypted)
      throw badRequest('Start the set-up again: no QR code is pending.');
    await spendCodeAttempt(ctx);
    const totpSecret = decrypt(secret, TOTP_SECRET_PURPOSE, user.totp_pending_secret_encrypted);
    const step = await checkTotp(totpSecret, code.replace(/\s+/g, ''), null);
    if (step === null) throw badRequest(WRONG_CODE);
    await forgetCodeAttempts(ctx);
    const recoveryCodes = newRecoveryCodes();
    await db.transaction(async (trx) => {
      if (!(await enableTotp(trx, user.id, user.totp_pending_secret_encrypted!, step))) {
        throw conflict('Two-factor sign-in is already on.');
      }
      await replaceRecoveryCodes(
        trx,
        user.id,
        recoveryCodes.map((c) => hashRecoveryCode(secret, user.id, c)),
      );
      await sendJob(boss, 'email-send', twoFactorChangedMail(user.email, true, config.supportEmail), {
        db: trx,
      });
    });
    ctx.body = { recoveryCodes };
  });

  /** Turns two-factor off; needs a current code (or a recovery code), not just the session. */
  router.post('/user/two-factor/disable', requireUser(), validate(CodeBody), async (ctx) => {
    const { code } = input<CodeBody>(ctx);
    const user = await sessionUserRow(ctx);
    if (!user.totp_enabled_at) throw badRequest('Two-factor sign-in is already off.');
    await spendCodeAttempt(ctx);
    if (!(await checkSecondFactor(db, secret, user, code))) throw badRequest(WRONG_CODE);
    await forgetCodeAttempts(ctx);
    await db.transaction(async (trx) => {
      await disableTotp(trx, user.id);
      await deleteRecoveryCodes(trx, user.id);
      await consumeUserChallenges(trx, user.id);
      await sendJob(boss, 'email-send', twoFactorChangedMail(user.email, false, config.supportEmail), {
        db: trx,
      });
    });
    ctx.body = { message: 'Two-factor sign-in is off.' };
  });

  return router;
}
