import Router from '@koa/router';
import { z } from 'zod';
import {
  AutopayRefusal,
  cancelAutoRenew,
  pauseAutoRenew,
  payRenewalNow,
  resumeAutoRenew,
} from '../../core/commands/autopay.ts';
import { findLatestMandateOfUser, findLatestRenewal, type Mandate } from '../../core/db/autopay.ts';
import { autoRenewRecord } from '../../core/domain/autopay.ts';
import { HttpError } from '../errors.ts';
import { currentUser, requireUser } from '../middleware/auth.ts';
import { validate } from '../middleware/validate.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * The customer's automatic renewal (identity from the session only: nobody can name another's
 * mandate): cancel (revoked at PayU by the worker; the record shows `cancelled` at once), pause
 * and resume, and "Pay now" for a renewal the debit could not take. Each answers the dashboard's
 * `autoRenew` record as it now stands.
 */

const NoBody = z.strictObject({}, { error: 'This request takes no fields.' });

export function autopayRoutes(services: Services): Router<AppState> {
  const { db } = services;
  const router = new Router<AppState>();

  async function record(userId: string, mandate?: Mandate) {
    const latest = mandate ?? (await findLatestMandateOfUser(db, userId));
    const renewal = latest ? await findLatestRenewal(db, latest.id) : null;
    return autoRenewRecord(
      latest && {
        status: latest.status,
        amountPaise: latest.amount_paise,
        method: latest.method,
        nextDebitAt: latest.next_debit_at,
        problem: latest.problem,
      },
      renewal && {
        state: renewal.state,
        noticeSentAt: renewal.notice_sent_at,
        debitAt: renewal.debit_at,
        nextAttemptAt: renewal.next_attempt_at,
        failureReason: renewal.failure_reason,
        renewalAt: renewal.renewal_at,
      },
    );
  }

  /** Runs a customer action; its refusals are the customer's 404/409 with the reason. */
  async function act<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof AutopayRefusal) throw new HttpError(error.status, error.message);
      throw error;
    }
  }

  router.post('/vm/autopay/cancel', requireUser(), validate(NoBody), async (ctx) => {
    const user = currentUser(ctx);
    const mandate = await act(() => cancelAutoRenew(services, user.id, new Date()));
    ctx.state.log.info({ mandateId: mandate.id }, 'autopay: cancelled by the customer');
    ctx.body = { autoRenew: await record(user.id, mandate) };
  });

  router.post('/vm/autopay/pause', requireUser(), validate(NoBody), async (ctx) => {
    const user = currentUser(ctx);
    const mandate = await act(() => pauseAutoRenew(services, user.id, new Date()));
    ctx.body = { autoRenew: await record(user.id, mandate) };
  });

  router.post('/vm/autopay/resume', requireUser(), validate(NoBody), async (ctx) => {
    const user = currentUser(ctx);
    const mandate = await act(() => resumeAutoRenew(services, user.id, new Date()));
    ctx.body = { autoRenew: await record(user.id, mandate) };
  });

  /** The renewal becomes the plan waiting for payment; the SPA goes on to /payment. */
  router.post('/vm/autopay/pay-now', requireUser(), validate(NoBody), async (ctx) => {
    const user = currentUser(ctx);
    const pending = await act(() => payRenewalNow(db, user.id));
    ctx.state.log.info({ subscriptionId: pending.id }, 'autopay: renewal to be paid by hand');
    ctx.body = { subscriptionId: pending.id, next: '/payment' };
  });

  return router;
}
