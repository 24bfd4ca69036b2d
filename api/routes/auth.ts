import Router from '@koa/router';
import { z } from 'zod';
import { hashToken, randomDigits, randomToken, safeEqual } from '../../core/crypto/crypto.ts';
import {
  checkCode,
  codeHash as storedCodeHash,
  consumeCodes,
  findLiveCode,
  insertCode,
  sealCode,
  CODE_TTL_MINUTES,
  type CodePurpose,
} from '../../core/db/codes.ts';
import {
  deletePendingRegistration,
  deleteStalePendingRegistrations,
  findPendingRegistration,
  upsertPendingRegistration,
} from '../../core/db/pendingRegistrations.ts';
import { consumePasswordResetToken, consumeUserResetTokens } from '../../core/db/passwordResets.ts';
import { revokeUserSessions } from '../../core/db/sessions.ts';
import {
  challengeUsedUp,
  claimChallengeAttempt,
  consumeChallenge,
  consumeUserChallenges,
} from '../../core/db/twoFactor.ts';
import { TWO_FACTOR_MESSAGES } from '../../core/domain/codeLimits.ts';
import {
  findUserByEmail,
  findUserByGoogleSub,
  findUserById,
  insertUser,
  linkGoogleAccount,
  updatePasswordHash,
  type User,
} from '../../core/db/users.ts';
import {
  ACCOUNT_MESSAGES as M,
  EMAIL_MAX_LENGTH,
  NAME_MAX_LENGTH,
  OTP_PATTERN,
} from '../../core/domain/account.ts';
import { checkEmail } from '../../core/domain/email.ts';
import { PASSWORD_MAX_LENGTH } from '../../core/domain/password.ts';
import { passwordChangedMail, registrationCodeMail } from '../../core/emails/accounts.ts';
import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../core/crypto/passwords.ts';
import { GoogleTokenError } from '../../core/providers/googleSignIn.ts';
import { sendJob } from '../../core/queue.ts';
import {
  clearCookie,
  GOOGLE_NONCE_COOKIE,
  readCookie,
  SESSION_COOKIE,
  TWO_FACTOR_COOKIE,
  writeCookie,
} from '../auth/cookies.ts';
import { completeLogin, endSession, startSession, type LoginOutcome } from '../auth/sessions.ts';
import { checkSecondFactor, recordFailedSecondStep } from '../auth/twoFactor.ts';
import { accountPair, existingRequester, requesterFor, slowDownForAccount } from '../auth/throttle.ts';
import { badRequest, conflict, HttpError, tooManyRequests, unauthorized } from '../errors.ts';
import { emailField, newPasswordField, phoneField } from '../fields.ts';
import {
  proofOfWorkChallenge,
  spendAskerBudgets,
  spendCodeMail,
  spendInboxBudget,
} from '../auth/codeLimits.ts';
import type { Db } from '../../core/db/pool.ts';
import { input, validate } from '../middleware/validate.ts';
import { sessionBody } from '../presenters/user.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * `/api/auth/*` (spec §7): register → emailed code → account; login by password, by emailed
 * code or by Google; reset by link; the second factor; the session check and logout.
 * No answer tells whether an email has an account, except register's 409 (the spec's).
 */

// --- schemas -------------------------------------------------------------------------------

const requiredString = (message: string) => z.string({ error: message }).trim().min(1, message);

export const Email = emailField(M.emailRequired);

const Otp = requiredString(M.otpRequired).regex(OTP_PATTERN, M.otpInvalid);

const NewPassword = newPasswordField(M.resetEmpty);

/** A solved proof-of-work puzzle (api/auth/codeLimits.ts), asked for only while an inbox is under attack. */
const Proof = z.string().max(8000, 'That puzzle answer is not valid.').optional();

export const RegisterBody = z.object({
  proof: Proof,
  name: requiredString(M.nameRequired).max(
    NAME_MAX_LENGTH,
    `Name must be at most ${NAME_MAX_LENGTH} characters.`,
  ),
  email: Email,
  phone: phoneField(M.phoneRequired),
  password: newPasswordField('Password is required.'),
});
type RegisterBody = z.infer<typeof RegisterBody>;

/** The spec's payload (name, email, phone, password, otp); only email and otp are used (deviation 3). */
export const VerifyOtpBody = z.object({ email: Email, otp: Otp });
type VerifyOtpBody = z.infer<typeof VerifyOtpBody>;

export const EmailBody = z.object({ email: Email, proof: Proof });
type EmailBody = z.infer<typeof EmailBody>;

export const LoginBody = z.object({
  // Stored addresses are canonical (punycode domains): a login typed with "bücher.de" finds its account.
  email: requiredString(M.loginRequired)
    .max(EMAIL_MAX_LENGTH, M.loginFailed)
    .toLowerCase()
    .transform((value) => {
      const check = checkEmail(value);
      return check.ok ? check.email : value;
    }),
  password: z
    .string({ error: M.loginRequired })
    .min(1, M.loginRequired)
    .max(PASSWORD_MAX_LENGTH * 4, M.loginFailed),
});
type LoginBody = z.infer<typeof LoginBody>;

export const ForgotBody = z.object({
  proof: Proof,
  email: Email,
  method: z.enum(['link', 'otp'], { error: 'Choose Reset via Link or Login via OTP.' }),
});
type ForgotBody = z.infer<typeof ForgotBody>;

export const ResetBody = z.object({
  email: requiredString(M.resetMissing).max(EMAIL_MAX_LENGTH, M.resetMissing).toLowerCase(),
  token: requiredString(M.resetMissing).max(200, M.resetMissing),
  newPassword: NewPassword,
});
type ResetBody = z.infer<typeof ResetBody>;

export const TwoFactorBody = z.object({
  code: requiredString('Please enter the code.').max(40, 'That code is not right.'),
});
type TwoFactorBody = z.infer<typeof TwoFactorBody>;

export const GoogleBody = z.object({
  credential: requiredString('Google sign-in failed. Please try again.').max(
    8000,
    'Google sign-in failed. Please try again.',
  ),
});
type GoogleBody = z.infer<typeof GoogleBody>;

// --- messages the server owns --------------------------------------------------------------

const WRONG_LOGIN = 'Invalid email or password.';
const WRONG_CODE = 'Invalid OTP. Please check the code and try again.';
const DEAD_CODE = 'This OTP has expired or was tried too many times. Please request a new one.';
const NO_PENDING = 'Your sign-up has expired. Please register again.';
const BAD_RESET = 'This reset link is invalid or has expired. Please ask for a new one.';
const TWO_FACTOR_WRONG = 'That code is not right. Please try again.';
const GOOGLE_FAILED = 'Google sign-in failed. Please try again.';

// --- routes --------------------------------------------------------------------------------

export function authRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const { db, boss, config, limiters } = services;
  const secret = config.appSecret;
  const cookies = { production: config.production };

  const codeHash = (purpose: CodePurpose, email: string, code: string) =>
    storedCodeHash(secret, purpose, email, code);

  /** The requester's live code (sent again), or a new one stored for it. */
  async function liveOrNewCode(trx: Db, purpose: CodePurpose, email: string, requester: string) {
    const live = await findLiveCode(trx, secret, email, purpose, requester);
    if (live) return live;
    const code = randomDigits(6);
    await insertCode(trx, email, purpose, codeHash(purpose, email, code), requester, sealCode(secret, code));
    return code;
  }

  /** The check budgets of an emailed code: per (email, address) pair and per address. */
  async function spendCodeCheck(ctx: AppContext, purpose: CodePurpose, email: string) {
    await limiters.codeCheckIp.consume(ctx.ip);
    await limiters.codeCheckPair.consume(accountPair(ctx, `${purpose}:${email}`));
  }

  /** Answers a finished first factor: the session user, or the request for a second factor. */
  async function answerLogin(ctx: AppContext, outcome: LoginOutcome) {
    if (outcome.kind === 'two-factor') {
      ctx.body = { twoFactorRequired: true, message: M.twoFactorPrompt };
      return;
    }
    ctx.body = await sessionBody(db, outcome.user);
  }

  // Session check (spec §7 `GET /auth/login`): 401 when nobody is logged in.
  router.get('/auth/login', async (ctx) => {
    if (!ctx.state.user) throw unauthorized();
    ctx.body = await sessionBody(db, ctx.state.user);
  });

  // The SPA's session check: the same answer, but signed out is a 200 with no email rather than
  // a 401, so every signed-out page load does not log an error in the browser's console.
  router.get('/auth/session', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = ctx.state.user ? await sessionBody(db, ctx.state.user) : { email: null };
  });

  // A puzzle for the browser to solve (ALTCHA's proof of work), asked for by a 428 while an
  // inbox is under attack. Self-hosted: the challenge is ours and nothing is sent anywhere.
  router.get('/auth/proof-of-work', async (ctx) => {
    await limiters.loginIp.consume(ctx.ip);
    ctx.body = await proofOfWorkChallenge(services);
  });

  router.post('/auth/register', validate(RegisterBody), async (ctx) => {
    const body = input<RegisterBody>(ctx);
    const requester = requesterFor(ctx, config.production);
    // The first code of a sign-up; a resend within the minute is what the minute limit stops.
    const step = await spendAskerBudgets(ctx, services, {
      purpose: 'register',
      email: body.email,
      requesterHash: requester,
      minute: false,
      proof: body.proof,
    });
    // Hashed before anything else, for taken emails too: argon2 is most of the work, so the
    // answer takes as long either way. Before the transaction, too: slonik may retry it.
    const passwordHash = await hashPassword(body.password);
    if (await findUserByEmail(db, body.email)) throw conflict(M.userExists);
    // Only now that a code mail goes: a sign-up of a taken email mails nobody, so it must not
    // use up the owner's inbox (and have their own new browser solve a puzzle and wait).
    await spendInboxBudget(services, body.email, step);
    await db.transaction(async (trx) => {
      await deleteStalePendingRegistrations(trx);
      await upsertPendingRegistration(trx, {
        email: body.email,
        name: body.name,
        phone: body.phone,
        passwordHash,
        requesterHash: requester,
      });
      const code = await liveOrNewCode(trx, 'register', body.email, requester);
      await sendJob(
        boss,
        'email-send',
        registrationCodeMail(secret, body.email, body.name, code, CODE_TTL_MINUTES),
        { db: trx },
      );
    });
    ctx.body = { message: M.codeSent };
  });

  router.post('/auth/verify-otp', validate(VerifyOtpBody), async (ctx) => {
    const { email, otp } = input<VerifyOtpBody>(ctx);
    await spendCodeCheck(ctx, 'register', email);
    const requester = existingRequester(ctx, config.production);
    const result = requester
      ? await checkCode(db, email, 'register', codeHash('register', email, otp), requester)
      : 'none';
    if (result === 'wrong') throw badRequest(WRONG_CODE);
    if (result === 'none') throw badRequest(DEAD_CODE);
    // The sign-up this browser started: its code cannot finish one started elsewhere.
    const pending = requester ? await findPendingRegistration(db, email, requester) : null;
    if (!pending) throw badRequest(NO_PENDING);
    const signedIn = await db.transaction(async (trx) => {
      // Someone may have finished this sign-up (or signed in with Google) meanwhile.
      if (await findUserByEmail(trx, email)) throw conflict(M.userExists);
      const user = await insertUser(trx, {
        email,
        name: pending.name,
        phone: pending.phone,
        passwordHash: pending.password_hash,
        googleSub: null,
      });
      await deletePendingRegistration(trx, email);
      return startSession(ctx, services, user, trx);
    });
    ctx.body = await sessionBody(db, signedIn);
  });

  router.post('/auth/resend-otp', validate(EmailBody), async (ctx) => {
    const { email, proof } = input<EmailBody>(ctx);
    // Only the browser that started the sign-up may resend (and spend the inbox's budget).
    const started = existingRequester(ctx, config.production);
    const pending = started ? await findPendingRegistration(db, email, started) : null;
    if (!pending) throw badRequest(NO_PENDING);
    const requester = requesterFor(ctx, config.production);
    await spendCodeMail(ctx, services, {
      purpose: 'register',
      email,
      requesterHash: requester,
      minute: true,
      proof,
    });
    await db.transaction(async (trx) => {
      // The live code again, if there is one: a resend never hands guessers another code.
      const code = await liveOrNewCode(trx, 'register', email, requester);
      await sendJob(
        boss,
        'email-send',
        registrationCodeMail(secret, email, pending.name, code, CODE_TTL_MINUTES),
        { db: trx },
      );
    });
    ctx.body = { message: M.resendSuccess };
  });

  router.post('/auth/login', validate(LoginBody), async (ctx) => {
    const { email, password } = input<LoginBody>(ctx);
    await limiters.loginIp.consume(ctx.ip);
    // A guesser at one address locks only its own pair; the owner elsewhere is unaffected.
    await limiters.loginPair.consume(accountPair(ctx, email));
    await slowDownForAccount(limiters.loginAccountFailures, email);
    const user = await findUserByEmail(db, email);
    // Always runs argon2 (a dummy hash without a user), so timing does not reveal accounts.
    const ok = await verifyPassword(user?.password_hash, password);
    if (!user || !ok) {
      await limiters.loginAccountFailures.add(email);
      throw unauthorized(WRONG_LOGIN);
    }
    await limiters.loginPair.reset(accountPair(ctx, email));
    if (user.password_hash && passwordNeedsRehash(user.password_hash)) {
      await updatePasswordHash(db, user.id, await hashPassword(password));
    }
    await answerLogin(ctx, await completeLogin(ctx, services, user, 'password'));
  });

  router.post('/auth/logout', async (ctx) => {
    await endSession(ctx, services);
    clearCookie(ctx, TWO_FACTOR_COOKIE, cookies);
    ctx.body = { message: 'Logged out.' };
  });

  // Always the same answer and the same work, whether or not the email has an account (no
  // enumeration by content or timing): the worker decides what to mail. The limits apply to
  // every email alike, so a 429 tells nothing either.
  router.post('/auth/forgot-password', validate(ForgotBody), async (ctx) => {
    const { email, method, proof } = input<ForgotBody>(ctx);
    const requesterHash = requesterFor(ctx, config.production);
    await spendCodeMail(ctx, services, {
      purpose: method === 'link' ? 'link' : 'login',
      email,
      requesterHash,
      minute: true,
      proof,
    });
    await sendJob(boss, 'account-recovery', { email, method, requesterHash });
    ctx.body = { message: method === 'link' ? M.resetLinkSent : M.loginCodeSent };
  });

  router.post('/auth/forgot-password/verify-otp', validate(VerifyOtpBody), async (ctx) => {
    const { email, otp } = input<VerifyOtpBody>(ctx);
    await spendCodeCheck(ctx, 'login', email);
    const requester = existingRequester(ctx, config.production);
    const result = requester
      ? await checkCode(db, email, 'login', codeHash('login', email, otp), requester)
      : 'none';
    const user = result === 'ok' ? await findUserByEmail(db, email) : null;
    if (!user) throw badRequest(M.forgotOtpFailed);
    await answerLogin(ctx, await completeLogin(ctx, services, user, 'code'));
  });

  router.post('/auth/reset-password', validate(ResetBody), async (ctx) => {
    const { email, token, newPassword } = input<ResetBody>(ctx);
    await limiters.codeCheckIp.consume(ctx.ip);
    const passwordHash = await hashPassword(newPassword);
    const userId = await db.transaction(async (trx) => {
      const id = await consumePasswordResetToken(trx, hashToken(token), email);
      if (!id) return null;
      await updatePasswordHash(trx, id, passwordHash);
      // A reset is what someone does when they fear the password leaked: sign out everywhere.
      await revokeUserSessions(trx, id, 'password-changed');
      await consumeUserResetTokens(trx, id);
      await consumeCodes(trx, email);
      await consumeUserChallenges(trx, id);
      await sendJob(boss, 'email-send', passwordChangedMail(email, config.supportEmail), { db: trx });
      return id;
    });
    if (!userId) throw badRequest(BAD_RESET);
    clearCookie(ctx, SESSION_COOKIE, cookies);
    ctx.state.user = undefined;
    ctx.body = { message: M.resetDone };
  });

  // The second step of a login when two-factor is on: a TOTP code or a recovery code.
  router.post('/auth/two-factor', validate(TwoFactorBody), async (ctx) => {
    const { code } = input<TwoFactorBody>(ctx);
    const token = readCookie(ctx, TWO_FACTOR_COOKIE, cookies);
    // Spends an attempt before the code is looked at, in the statement that checks the budget:
    // ten parallel guesses get at most MAX_CHALLENGE_ATTEMPTS tries.
    const challenge = token ? await claimChallengeAttempt(db, hashToken(token)) : null;
    if (!challenge) {
      const used = token ? await challengeUsedUp(db, hashToken(token)) : false;
      clearCookie(ctx, TWO_FACTOR_COOKIE, cookies);
      throw new HttpError(401, used ? TWO_FACTOR_MESSAGES.exhausted : TWO_FACTOR_MESSAGES.expired);
    }
    // Across sign-ins, wrong codes count per account and address: someone with the password
    // elsewhere cannot lock the owner out of their own second step.
    try {
      await limiters.twoFactorPair.consume(accountPair(ctx, challenge.user_id));
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 429) throw error;
      const wait = Number(error.headers['Retry-After'] ?? 60);
      throw tooManyRequests(wait, TWO_FACTOR_MESSAGES.tooMany(wait));
    }
    const user = await findUserById(db, challenge.user_id);
    if (!user) throw new HttpError(401, TWO_FACTOR_MESSAGES.expired);
    if (!(await checkSecondFactor(db, secret, user, code))) {
      await recordFailedSecondStep(ctx, services, user, challenge);
      throw badRequest(TWO_FACTOR_WRONG);
    }
    const signedIn = await db.transaction(async (trx) => {
      if (!(await consumeChallenge(trx, challenge.id))) throw new HttpError(401, TWO_FACTOR_MESSAGES.expired);
      return startSession(ctx, services, user, trx);
    });
    ctx.body = await sessionBody(db, signedIn);
  });

  // --- Google sign-in ----------------------------------------------------------------------

  /** Where the SPA sends the browser to sign in with Google (null: no Google sign-in here). */
  router.get('/auth/google/config', (ctx) => {
    const google = config.google;
    const on = google.mode !== 'off';
    ctx.body = {
      mode: on ? 'oidc' : 'off',
      clientId: on ? google.clientId : null,
      authorizeUrl: on ? google.authorizeUrl : null,
    };
  });

  /** A fresh nonce for the ID token to carry; the cookie binds it to this browser. */
  router.post('/auth/google/nonce', async (ctx) => {
    if (config.google.mode === 'off') throw badRequest('Google sign-in is not available.');
    await limiters.loginIp.consume(ctx.ip);
    const nonce = randomToken(24);
    writeCookie(ctx, GOOGLE_NONCE_COOKIE, cookies, nonce);
    ctx.body = { nonce };
  });

  router.post('/auth/google', validate(GoogleBody), async (ctx) => {
    const { credential } = input<GoogleBody>(ctx);
    if (config.google.mode === 'off') throw badRequest('Google sign-in is not available.');
    await limiters.loginIp.consume(ctx.ip);
    const expectedNonce = readCookie(ctx, GOOGLE_NONCE_COOKIE, cookies);
    clearCookie(ctx, GOOGLE_NONCE_COOKIE, cookies);
    let identity;
    try {
      identity = await services.googleVerifier(credential);
    } catch (error) {
      if (error instanceof GoogleTokenError) {
        ctx.state.log.info({ reason: error.message }, 'google token refused');
        throw unauthorized(GOOGLE_FAILED);
      }
      throw error;
    }
    // The token must have been asked for by this browser, now (no replay, no injection).
    if (!expectedNonce || !identity.nonce || !safeEqual(identity.nonce, expectedNonce)) {
      throw unauthorized(GOOGLE_FAILED);
    }
    const user = await db.transaction(async (trx): Promise<User> => {
      const bySub = await findUserByGoogleSub(trx, identity.sub);
      if (bySub) return bySub;
      const byEmail = await findUserByEmail(trx, identity.email);
      if (byEmail) {
        if (byEmail.google_sub && byEmail.google_sub !== identity.sub) {
          throw conflict('This email is linked to a different Google account.');
        }
        // Google vouches for the email, so the account with that email is this person's.
        return linkGoogleAccount(trx, byEmail.id, identity.sub);
      }
      await deletePendingRegistration(trx, identity.email);
      return insertUser(trx, {
        email: identity.email,
        name: identity.name,
        phone: null,
        passwordHash: null,
        googleSub: identity.sub,
      });
    });
    await answerLogin(ctx, await completeLogin(ctx, services, user, 'google'));
  });

  return router;
}
