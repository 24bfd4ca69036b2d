import Router from '@koa/router';
import { listInvoicesForUser } from '../../core/db/invoices.ts';
import { assertSameUser, requireUser } from '../middleware/auth.ts';
import { invoiceBody } from '../presenters/plans.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * Spec §7 `GET /invoices/user/{email}`: the session user's invoices, newest first, each with
 * everything its printable page shows. Someone else's email is a 403, never their invoices.
 */
export function invoiceRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/invoices/user/:email', requireUser(), async (ctx) => {
    const user = assertSameUser(ctx, ctx.params.email ?? '');
    const invoices = await listInvoicesForUser(services.db, user.id);
    ctx.body = invoices.map(invoiceBody);
  });
  return router;
}
