import Router from '@koa/router';
import { findCurrentSubscription } from '../../core/db/subscriptions.ts';
import { listRecentSamples, listRunSegmentsOfUser } from '../../core/db/usage.ts';
import { findDashboardVm } from '../../core/db/vms.ts';
import { HOUR_MS } from '../../core/domain/time.ts';
import { usageHistoryStart } from '../../core/domain/usageBuckets.ts';
import { assertSameUser, currentUser, requireUser } from '../middleware/auth.ts';
import { dashboardBody } from '../presenters/vm.ts';
import { usageBody } from '../presenters/usage.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * The usage page's data (spec §2 Progress page, §3, §4 "Progress polling"): the dashboard's
 * state and clock, hours used per India day (last 7) and per hour of today, from the machine's
 * recorded running time, and the last hour of CPU/GPU samples `metrics-pull` stored. Owner
 * only: an email naming someone else is a 403. Read-only and a handful of indexed queries,
 * because the page polls it every second while the machine runs.
 */
export function usageRoutes(services: Services): Router<AppState> {
  const { db, config } = services;
  const router = new Router<AppState>();

  // The SPA asks by session (`/vm/usage`); the spec's `/vm/usage/{email}` answers its owner.
  router.get('/vm/usage', requireUser(), async (ctx) => {
    ctx.body = await usageOf(currentUser(ctx));
  });
  router.get('/vm/usage/:email', requireUser(), async (ctx) => {
    ctx.body = await usageOf(assertSameUser(ctx, ctx.params.email));
  });

  async function usageOf(user: ReturnType<typeof currentUser>) {
    const now = new Date();
    const [subscription, vm, segments] = await Promise.all([
      findCurrentSubscription(db, user.id),
      findDashboardVm(db, user.id),
      listRunSegmentsOfUser(db, user.id, usageHistoryStart(now)),
    ]);
    const samples = vm ? await listRecentSamples(db, vm.id, new Date(now.getTime() - HOUR_MS)) : [];
    const dashboard = dashboardBody({ user, subscription, vm, vmConfig: config.vm, now });
    return usageBody({ dashboard, segments, samples, now });
  }

  return router;
}
