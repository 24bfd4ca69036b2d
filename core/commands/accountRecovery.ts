import { hashToken, randomDigits, randomToken } from '../crypto/crypto.ts';
import { CODE_TTL_MINUTES, codeHash, findLiveCode, insertCode, sealCode } from '../db/codes.ts';
import {
  findLiveResetUrl,
  insertPasswordResetToken,
  RESET_TTL_MINUTES,
  sealResetUrl,
} from '../db/passwordResets.ts';
import { findUserByEmail } from '../db/users.ts';
import { loginCodeMail, passwordResetMail } from '../emails/accounts.ts';
import { sendJob, type Boss, type Payload } from '../queue.ts';
import type { Config } from '../config/config.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { Logger } from '../observability/log.ts';

/**
 * A forgot-password request, taken by the worker so the web answer costs the same for every email
 * and its timing tells nobody which emails are registered: a reset link or a login code mailed
 * when the email has an account, nothing otherwise. A repeated request sends the live link or
 * code again rather than minting another.
 */
export async function recoverAccount(
  deps: { db: DatabasePool; boss: Boss; log: Logger; config: Pick<Config, 'appSecret' | 'publicUrl'> },
  { email, method, requesterHash }: Payload<'account-recovery'>,
  jobId: string,
): Promise<void> {
  const secret = deps.config.appSecret;
  const user = await findUserByEmail(deps.db, email);
  if (!user) {
    deps.log.info({ jobId, method }, 'account recovery asked for an email without an account');
    return;
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
  deps.log.info({ jobId, method, again }, 'account recovery mailed');
}
