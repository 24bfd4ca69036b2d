import { claimOwnerWarning } from '../../core/db/ownerWarnings.ts';
import { OWNER_WARNING_WINDOW_SECONDS, type OwnerWarningKind } from '../../core/domain/ownerWarnings.ts';
import { sendJob, type Payload } from '../../core/queue.ts';
import type { AppContext } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * Mails the owner a warning of `kind` unless one went within the hour: the claim and the queued
 * mail are one transaction, and the log says "owner warned" once per mail queued, never for the
 * attempts the hour's claim turned away. True when the mail was queued.
 */
export async function warnOwner(
  ctx: AppContext,
  services: Services,
  warning: { userId: string; kind: OwnerWarningKind; mail: Payload<'email-send'>; why: string },
): Promise<boolean> {
  const sent = await services.db.transaction(async (trx) => {
    if (!(await claimOwnerWarning(trx, warning.userId, warning.kind, OWNER_WARNING_WINDOW_SECONDS)))
      return false;
    await sendJob(services.boss, 'email-send', warning.mail, { db: trx });
    return true;
  });
  if (sent)
    ctx.state.log.warn({ userId: warning.userId, warning: warning.kind }, `${warning.why}; owner warned`);
  return sent;
}
