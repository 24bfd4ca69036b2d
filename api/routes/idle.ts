import Router from '@koa/router';
import { z } from 'zod';
import { findIdleState, keepRunning, listIdleStops, setIdleMinutes } from '../../core/db/idle.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { findLiveVmByUser } from '../../core/db/vms.ts';
import {
  IDLE_STOP_CHOICES,
  idleSavedSeconds,
  idleWatched,
  projectHourBank,
  type IdleStopMinutes,
} from '../../core/domain/idle.ts';
import { remainingSeconds } from '../../core/domain/usage.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { HttpError } from '../errors.ts';
import { currentUser, requireUser } from '../middleware/auth.ts';
import { input, validate } from '../middleware/validate.ts';
import type { AppState, AuthUser } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * Idle auto-stop for the signed-in customer's own machine (identity from the session only; no
 * email or machine id in the request, so nobody can name another's machine): the window
 * (15/30/60 minutes or off), the pending warning, "Keep it running", and the hours auto-stop
 * saved with the hour bank's projection for the usage page.
 */

const SettingBody = z.strictObject({
  minutes: z.union([z.literal(15), z.literal(30), z.literal(60), z.null()], {
    error: 'Choose 15, 30 or 60 minutes, or off.',
  }),
});
const KeepBody = z.strictObject({});

export const KEEP_RUNNING_MESSAGES = {
  notRunning: 'Your cloud PC is not running.',
} as const;

const noMachineBody = {
  machine: false,
  minutes: null,
  choices: IDLE_STOP_CHOICES,
  running: false,
  warning: null,
  saved: { seconds: 0, stops: 0 },
  projection: { kind: 'no-use' as const },
};

export function idleRoutes(services: Services): Router<AppState> {
  const { db } = services;
  const router = new Router<AppState>();

  async function ownVm(user: AuthUser) {
    const vm = await findLiveVmByUser(db, user.id);
    if (!vm) throw new HttpError(404, VM_MESSAGES.noVm);
    return vm;
  }

  async function idleBody(user: AuthUser) {
    const now = new Date();
    const vm = await findLiveVmByUser(db, user.id);
    // No machine (not made yet, deleted, failed): nothing to stop, and nothing for the page to
    // mistake for an error — the dashboard asks before it knows.
    if (!vm) return noMachineBody;
    const state = await findIdleState(db, vm.id);
    const subscription = await findSubscription(db, vm.subscription_id);
    const stops = subscription ? await listIdleStops(db, user.id, subscription.id) : [];
    const savedSeconds = stops.reduce((sum, stop) => sum + idleSavedSeconds(stop, now), 0);
    const projection =
      subscription?.purchased_at != null
        ? projectHourBank({
            usedSeconds: vm.usage_seconds,
            remainingSeconds: remainingSeconds(subscription.hours, vm.usage_seconds),
            purchasedAt: subscription.purchased_at,
            expiresAt: subscription.expires_at,
            now,
          })
        : { kind: 'no-use' as const };
    const warning =
      idleWatched(vm.state) && state.warnedAt && state.stopAt ? { stopAt: state.stopAt.toISOString() } : null;
    return {
      machine: true,
      minutes: state.minutes,
      choices: IDLE_STOP_CHOICES,
      running: idleWatched(vm.state),
      warning,
      saved: { seconds: Math.round(savedSeconds), stops: stops.length },
      projection:
        projection.kind === 'runs-out'
          ? { kind: projection.kind, at: projection.at.toISOString(), hoursPerDay: projection.hoursPerDay }
          : projection,
    };
  }

  router.get('/vm/idle', requireUser(), async (ctx) => {
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = await idleBody(currentUser(ctx));
  });

  router.post('/vm/idle', requireUser(), validate(SettingBody), async (ctx) => {
    const user = currentUser(ctx);
    const vm = await ownVm(user);
    const { minutes } = input<z.infer<typeof SettingBody>>(ctx);
    await setIdleMinutes(db, vm.id, minutes as IdleStopMinutes | null);
    ctx.body = await idleBody(user);
  });

  router.post('/vm/keep-running', requireUser(), validate(KeepBody), async (ctx) => {
    const user = currentUser(ctx);
    const vm = await ownVm(user);
    if (!idleWatched(vm.state)) throw new HttpError(409, KEEP_RUNNING_MESSAGES.notRunning);
    await keepRunning(db, vm.id, new Date());
    ctx.body = await idleBody(user);
  });

  return router;
}
