import { findUserById } from '../db/users.ts';
import { noticeKey, recordEnding, recordNotice } from '../db/vmNotices.ts';
import { isEndingNotice } from '../domain/machineEnding.ts';
import type { Db } from '../db/pool.ts';
import { sendJob, type Boss, type Payload } from '../queue.ts';

type Mail = Payload<'email-send'>;

/**
 * Records a customer notice and, when this call is the one that recorded it, enqueues its mail
 * in the same transaction: however often a sweep runs, the customer gets it once. A machine's
 * ending (deleted, files kept, files restored, replaced) is one mail per machine whatever its
 * kind: `vm_endings` refuses a second. A deleted account gets nothing.
 */
export async function notify(
  db: Db,
  boss: Boss,
  notice: Parameters<typeof recordNotice>[1],
  compose: (person: { name: string; email: string }) => Mail,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    if (isEndingNotice(notice.kind) && notice.vmId) {
      const first = await recordEnding(trx, {
        vmId: notice.vmId,
        kind: notice.kind,
        noticeKey: noticeKey(notice.kind, notice.subjectId),
      });
      if (!first) return false;
    }
    if (!(await recordNotice(trx, notice))) return false;
    const user = await findUserById(trx, notice.userId);
    if (user) await sendJob(boss, 'email-send', compose({ name: user.name, email: user.email }), { db: trx });
    return true;
  });
}
