import { findUserById } from '../core/db/users.ts';
import { recordNotice } from '../core/db/vmNotices.ts';
import type { Db } from '../core/db/pool.ts';
import { sendJob, type Boss, type Payload } from '../core/queue.ts';

type Mail = Payload<'email-send'>;

/**
 * Records a customer notice and, when this call is the one that recorded it, enqueues its mail
 * in the same transaction: however often a sweep runs, the customer gets it once. A deleted
 * account gets nothing.
 */
export async function notify(
  db: Db,
  boss: Boss,
  notice: Parameters<typeof recordNotice>[1],
  compose: (person: { name: string; email: string }) => Mail,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    if (!(await recordNotice(trx, notice))) return false;
    const user = await findUserById(trx, notice.userId);
    if (user) await sendJob(boss, 'email-send', compose({ name: user.name, email: user.email }), { db: trx });
    return true;
  });
}
