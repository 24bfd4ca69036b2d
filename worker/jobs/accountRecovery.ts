import { hashToken, randomDigits, randomToken } from '../../core/crypto/crypto.ts';
import { CODE_TTL_MINUTES, codeHash, findLiveCode, insertCode, sealCode } from '../../core/db/codes.ts';
import {
  findLiveResetUrl,
  insertPasswordResetToken,
  RESET_TTL_MINUTES,
  sealResetUrl,
} from '../../core/db/passwordResets.ts';
import { findUserByEmail } from '../../core/db/users.ts';
import { loginCodeMail, passwordResetMail } from '../../core/emails/accounts.ts';
import { parsePayload, sendJob, type Job } from '../../core/queue.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * A forgot-password request: mails a reset link or a login code when the email has an account
 * and does nothing otherwise. Done here, not in the request, so the web answer costs the same
 * for every email and its timing tells nobody which emails are registered.
 */
export function accountRecovery(deps: WorkerDeps) {
  return async (jobs: Job<unknown>[]) => {
    const secret = deps.config.appSecret;
    for (const job of jobs) {
      const { email, method, requesterHash } = parsePayload('account-recovery', job.data);
      const user = await findUserByEmail(deps.db, email);
      if (!user) {
        deps.log.info({ jobId: job.id, method }, 'account recovery asked for an email without an account');
        continue;
      }
      // A repeated request sends the live link or code again rather than minting another.
      let again = false;
      if (method === 'link') {
        await deps.db.transaction(async (trx) => {
          let url = await findLiveResetUrl(trx, secret, user.id);
          again = url !== null;
          if (!url) {
            const token = randomToken();
            url = `${deps.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}&email=${encodeURIComponent(email)}`;
            await insertPasswordResetToken(trx, user.id, hashToken(token), sealResetUrl(secret, url));
          }
          await sendJob(deps.boss, 'email-send', passwordResetMail(secret, email, url, RESET_TTL_MINUTES), {
            db: trx,
          });
        });
      } else {
        await deps.db.transaction(async (trx) => {
          let code = await findLiveCode(trx, secret, email, 'login', requesterHash);
          again = code !== null;
          if (!code) {
            code = randomDigits(6);
            await insertCode(
              trx,
              email,
              'login',
              codeHash(secret, 'login', email, code),
              requesterHash,
              sealCode(secret, code),
            );
          }
          await sendJob(deps.boss, 'email-send', loginCodeMail(secret, email, code, CODE_TTL_MINUTES), {
            db: trx,
          });
        });
      }
      deps.log.info({ jobId: job.id, method, again }, 'account recovery mailed');
    }
  };
}
