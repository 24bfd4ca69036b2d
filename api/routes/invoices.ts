import Router from '@koa/router';
import { listCreditNotesForUser } from '../../core/db/creditNotes.ts';
import { listInvoicesForUser } from '../../core/db/invoices.ts';
import { assertSameUser, requireUser } from '../middleware/auth.ts';
import { invoiceListBody } from '../presenters/plans.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * Spec §7 `GET /invoices/user/{email}`: the session user's invoices, newest first, each with
 * everything its printable page shows, each followed by the GST credit notes of its refunds
 * (entries of kind `credit-note`; invoices are of kind `invoice`). Someone else's email is a 403,
 * never their invoices.
 */
export function invoiceRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/invoices/user/:email', requireUser(), async (ctx) => {
    const user = assertSameUser(ctx, ctx.params.email ?? '');
    const [invoices, creditNotes] = await Promise.all([
      listInvoicesForUser(services.db, user.id),
      listCreditNotesForUser(services.db, user.id),
    ]);
    ctx.body = invoiceListBody(invoices, creditNotes);
  });
  return router;
}
