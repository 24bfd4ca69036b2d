import { findUserById } from '../core/db/users.ts';
import { recordNotice, type NoticeKind } from '../core/db/vmNotices.ts';
import type { Db } from '../core/db/pool.ts';
import { classifyEc2Error, ec2RequestId, type Ec2 } from '../core/providers/ec2.ts';
import { decryptWindowsPassword, WindowsPasswordError } from '../core/providers/windowsPassword.ts';
import { sendJob, type Boss, type Payload } from '../core/queue.ts';
import { sealWindowsPassword } from '../core/crypto/vmSecrets.ts';
import type { WorkerDeps } from './deps.ts';

/** Steps the cloud-PC jobs share: customer notices, password capture, EC2 error handling. */

type Mail = Payload<'email-send'>;

/**
 * Records a notice and, when this call is the one that recorded it, enqueues its mail in the
 * same transaction: however often a sweep runs, the customer gets it once. A deleted
 * account gets nothing.
 */
export async function notify(
  db: Db,
  boss: Boss,
  notice: {
    kind: NoticeKind;
    subjectId: string;
    userId: string;
    subscriptionId?: string | null;
    vmId?: string | null;
  },
  compose: (person: { name: string; email: string }) => Mail,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    if (!(await recordNotice(trx, notice))) return false;
    const user = await findUserById(trx, notice.userId);
    if (user) await sendJob(boss, 'email-send', compose({ name: user.name, email: user.email }), { db: trx });
    return true;
  });
}

export type PasswordCapture =
  | { status: 'sealed'; sealed: string }
  | { status: 'not-ready' }
  | { status: 'undecryptable'; message: string };

/**
 * EC2's password data for an instance, decrypted with our key pair's private key and sealed
 * for storage at once: the plain password lives only inside this function.
 */
export async function capturePassword(
  deps: WorkerDeps,
  ec2: Ec2,
  instanceId: string,
): Promise<PasswordCapture> {
  const privateKeyPem = deps.config.ec2.privateKeyPem;
  const { passwordData } = await ec2.getPasswordData(instanceId);
  if (!passwordData) return { status: 'not-ready' };
  if (!privateKeyPem) return { status: 'undecryptable', message: 'EC2_PRIVATE_KEY_PEM is not configured.' };
  try {
    const result = decryptWindowsPassword(passwordData, privateKeyPem);
    if (result.status === 'not-ready') return { status: 'not-ready' };
    return { status: 'sealed', sealed: sealWindowsPassword(deps.config.appSecret, result.password) };
  } catch (error) {
    if (error instanceof WindowsPasswordError) {
      // Never guess: a wrong key yields bytes that are not a password, and we say so.
      return {
        status: 'undecryptable',
        message:
          error.reason === 'invalid-key'
            ? `${error.message} EC2_PRIVATE_KEY_PEM is not a usable RSA private key.`
            : `${error.message} EC2_PRIVATE_KEY_PEM does not match the instance's key pair (${deps.config.ec2.keyName}).`,
      };
    }
    throw error;
  }
}

/** EC2's error in one line for logs and operator alerts: code, request id, message. */
export function describeEc2Error(error: unknown): string {
  const name = (error as { name?: string }).name ?? 'Error';
  const message = (error as { message?: string }).message ?? String(error);
  const requestId = ec2RequestId(error);
  return `${name}${requestId ? ` (request ${requestId})` : ''}: ${message}`.slice(0, 500);
}

/** Errors after which waiting (and another subnet) may help. */
export function isRetryableCapacity(error: unknown): boolean {
  const kind = classifyEc2Error(error);
  return kind === 'capacity' || kind === 'limit' || kind === 'throttled';
}

/** A job step to be tried again later (pg-boss retries it with backoff). */
export class RetryLater extends Error {
  override name = 'RetryLater';
}
