import { refundSchedule } from '../../core/domain/content/legal.ts';
import type { RefundPolicyBody } from '../../core/domain/refund.ts';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { checkCapacity } from '../../core/commands/capacity.ts';
import {
  findCurrentSubscription,
  findLatestPendingSubscription,
  insertPendingSubscription,
} from '../../core/db/subscriptions.ts';
import { diskCopyNotBegun, findKeptSnapshotOfUser } from '../../core/db/snapshots.ts';
import { findLiveVmByUser } from '../../core/db/vms.ts';
import { checkoutMachineNote } from '../../core/domain/planMachine.ts';
import { autoRenewOffer } from '../../core/domain/autopay.ts';
import { renewalTerms } from '../../core/commands/autopay.ts';
import type { CheckoutRecord } from '../../core/domain/planRecords.ts';
import { findPlan } from '../../core/domain/plans.ts';
import { PLAN_CHOICE_MESSAGES } from '../../core/domain/subscription.ts';
import { findTrialOffer, isTrialPlanName } from '../../core/domain/trial.ts';
import {
  checkPendingPurchase,
  checkPurchase,
  type PurchaseCheck,
  type PurchaseProblem,
} from '../../core/commands/purchases.ts';
import { HttpError, notFound, unauthorized } from '../errors.ts';
import { assertSameUser, currentUser, requireUser } from '../middleware/auth.ts';
import { input, validate } from '../middleware/validate.ts';
import { catalogueBody, subscriptionBody } from '../presenters/plans.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * The plan catalogue and choosing a plan (spec §2 Plan selection, Trial page; §5; §7
 * `/vm/check-capacity`, `/vm/select-vm`). Choosing records a pending subscription; nothing is
 * charged here, and the price is always the catalogue's.
 */

const Email = z.string({ error: 'Email must be text.' }).max(254).optional();

/** Hours as a number or numeric text; empty or absent is "not chosen" (spec: "Please select Duration."). */
export const Duration = z
  .union([z.number(), z.string(), z.null()], { error: PLAN_CHOICE_MESSAGES.durationRequired })
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null || value === '') return null;
    const hours = typeof value === 'number' ? value : Number(value.trim());
    if (!Number.isFinite(hours)) {
      ctx.addIssue({ code: 'custom', message: PLAN_CHOICE_MESSAGES.noPrice });
      return z.NEVER;
    }
    return hours;
  });

const PlanName = z
  .string({ error: 'Please choose a plan.' })
  .trim()
  .min(1, 'Please choose a plan.')
  .max(60, PLAN_CHOICE_MESSAGES.noPrice);

export const SelectVmBody = z.object({
  email: Email,
  plan: PlanName,
  duration: Duration,
  // The client's storage and price are display copies; the catalogue decides both.
  storage: z.unknown().optional(),
  price: z.unknown().optional(),
  isTrial: z.boolean({ error: 'isTrial must be true or false.' }).optional(),
  /** For a trial: the plan it is of ("LEGEND", "PRO LEGEND", "ULTRA LEGEND"). */
  trialPlan: z.string().trim().max(60).optional(),
});
type SelectVmBody = z.infer<typeof SelectVmBody>;

export const CapacityQuery = z.object({
  plan: PlanName,
  trialPlan: z.string().trim().max(60).optional(),
});
type CapacityQuery = z.infer<typeof CapacityQuery>;

const PROBLEM_STATUS: Record<PurchaseProblem, number> = {
  'active-plan': 409,
  'login-required': 401,
  'duration-required': 400,
  'no-price': 400,
  capacity: 409,
  'trial-used': 409,
  'trial-needs-phone': 400,
};

/** A refused purchase as the error the SPA shows (its message is the spec's). */
export function purchaseRefusal(check: Extract<PurchaseCheck, { ok: false }>): HttpError {
  return new HttpError(PROBLEM_STATUS[check.problem], check.message);
}

/** Like requireUser(), with the spec's words for someone buying while logged out (§5). */
export function requireBuyer(): Middleware<AppState> {
  return async (ctx, next) => {
    if (!ctx.state.user) throw unauthorized(PLAN_CHOICE_MESSAGES.loginRequired);
    await next();
  };
}

export function planRoutes(services: Services): Router<AppState> {
  const { db, config } = services;
  const router = new Router<AppState>();

  // The refund policy the server applies (configuration over core/domain): the Terms and refund
  // pages print this table, so there is one source.
  router.get('/refund-policy', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    const body: RefundPolicyBody = {
      rows: refundSchedule(config.refundPolicy),
      cancellationChargePaise: config.refundPolicy.cancellationChargePaise,
      failedDebitReturnDays: config.checkout.failedDebitReturnDays,
      autoRefundHours: config.autoRefundHours,
    };
    ctx.body = body;
  });

  // The catalogue is made of constants: serialized once per process, not on every request.
  const catalogue = JSON.stringify(catalogueBody());
  router.get('/plans', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = catalogue;
  });

  // Anyone may ask (the page asks before login is even checked); it reveals only yes or no.
  router.get('/vm/check-capacity', validate(CapacityQuery, 'query'), async (ctx) => {
    const query = input<CapacityQuery>(ctx);
    // Capacity depends on the plan's machine, not the hours; a trial runs on its plan's machine.
    const planId = isTrialPlanName(query.plan)
      ? findTrialOffer(query.trialPlan ?? 'LEGEND')?.plan.id
      : findPlan(query.plan)?.id;
    if (!planId) throw new HttpError(400, PLAN_CHOICE_MESSAGES.noPrice);
    ctx.body = await checkCapacity(db, planId, { limits: config.capacityLimits });
  });

  router.post('/vm/select-vm', requireBuyer(), validate(SelectVmBody), async (ctx) => {
    const body = input<SelectVmBody>(ctx);
    const user = assertSameUser(ctx, body.email);
    const check = await checkPurchase(db, {
      user,
      request: {
        plan: body.plan,
        hours: body.duration,
        isTrial: body.isTrial ?? false,
        trialPlan: body.trialPlan,
      },
      capacityLimits: config.capacityLimits,
      now: new Date(),
    });
    if (!check.ok) throw purchaseRefusal(check);
    const { purchase } = check;
    const subscription = await insertPendingSubscription(db, {
      userId: user.id,
      planId: purchase.planId,
      planName: purchase.planName,
      isTrial: purchase.isTrial,
      hours: purchase.hours,
      storageGb: purchase.storageGb,
      instanceType: purchase.instanceType,
      pricePaise: purchase.pricePaise,
      trialPhone: purchase.isTrial ? user.phone : null,
    });
    ctx.status = 200;
    ctx.body = subscriptionBody(subscription);
  });

  /** The user's plan (bought, active or lapsed): what /select-vm shows the active-plan note from. */
  router.get('/vm/current-plan', requireUser(), async (ctx) => {
    const subscription = await findCurrentSubscription(db, currentUser(ctx).id);
    ctx.body = { plan: subscription ? subscriptionBody(subscription) : null };
  });

  /** The plan choice waiting for payment: what /payment confirms. */
  router.get('/vm/checkout', requireUser(), async (ctx) => {
    const user = currentUser(ctx);
    const userId = user.id;
    const pending = await findLatestPendingSubscription(db, userId);
    if (!pending) throw notFound('No plan is waiting for payment. Please choose a plan.');
    const renewal = await renewalTerms(db, pending.id);
    // What Pay would be refused for (a plan bought since this choice was made, capacity gone, a
    // used trial), said now rather than after Pay: the same check create-payment makes.
    const check = await checkPendingPurchase(db, {
      renews: renewal?.renews_subscription_id ?? null,
      user,
      pending,
      capacityLimits: config.capacityLimits,
      now: new Date(),
    });
    const live = await findLiveVmByUser(db, userId);
    const kept = live ? null : await findKeptSnapshotOfUser(db, userId);
    const body: CheckoutRecord = {
      ...subscriptionBody(pending),
      machineNote: checkoutMachineNote({
        plan: {
          planId: pending.plan_id,
          name: pending.plan_name,
          instanceType: pending.instance_type,
          storageGb: pending.storage_gb,
        },
        live: live && {
          planId: live.plan_id,
          instanceType: live.resize_to_type ?? live.instance_type,
          storageGb: Math.max(live.storage_gb, live.resize_to_gb ?? 0),
          state: live.state,
        },
        kept: kept && { state: kept.state, keepUntil: kept.keep_until, completedAt: kept.completed_at },
        copyNotBegun: !live && (await diskCopyNotBegun(db, userId)),
        now: new Date(),
      }),
      refusal: check.ok ? null : check.message,
      // A renewal's "Pay now" renews under the mandate already on: nothing to opt into.
      autoRenew: renewal
        ? null
        : autoRenewOffer({
            available: config.autopay.enabled,
            isTrial: pending.is_trial,
            pricePaise: pending.price_paise,
            now: new Date(),
            noticeMinutes: config.autopay.noticeMinutes,
          }),
    };
    ctx.body = body;
  });

  return router;
}
