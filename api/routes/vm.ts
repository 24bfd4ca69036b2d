import Router from '@koa/router';
import { hash } from 'node:crypto';
import { z } from 'zod';
import { DecryptError } from '../../core/crypto/crypto.ts';
import { findDashboardState } from '../../core/db/dashboard.ts';
import { findSubscription } from '../../core/db/subscriptions.ts';
import { findDashboardVm, findLiveVmByUser, type Vm } from '../../core/db/vms.ts';
import { downloadsReady, isLive } from '../../core/domain/machineStates.ts';
import { startRefusal, stopRefusal, VM_MESSAGES } from '../../core/domain/vm.ts';
import { PASSWORD_FILE_NAME, RDP_FILE_NAME, rdpFile } from '../../core/domain/rdp.ts';
import { findConnectHost } from '../../core/db/machineNames.ts';
import { requestStart, requestStop } from '../../core/commands/vmActions.ts';
import { openWindowsPassword } from '../../core/crypto/vmSecrets.ts';
import { HttpError, unauthorized } from '../errors.ts';
import { assertSameUser, currentUser, requireUser } from '../middleware/auth.ts';
import { input, validate } from '../middleware/validate.ts';
import { dashboardBody } from '../presenters/vm.ts';
import type { AppContext, AppState, AuthUser } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * The cloud PC (spec §2 Dashboard, §3, §7 `/vm/dashboard/{email}`, `/vm/start-vm`; architecture
 * deviation 5 `/vm/stop-vm`) and its connection files. Owner only: an email naming someone
 * else is a 403. START and STOP are a conditional transition plus a job in one transaction; the
 * worker talks to EC2.
 */

const ActionBody = z.object({
  // The spec's payload names the email; identity comes from the session, the email must match.
  email: z.string({ error: 'Email must be text.' }).max(254).optional(),
});
type ActionBody = z.infer<typeof ActionBody>;

export function vmRoutes(services: Services): Router<AppState> {
  const { db, pgPool, boss, config } = services;
  const router = new Router<AppState>();

  async function dashboardOf(user: AuthUser) {
    // One statement: the user row (a deleted account answers 401 even from a cached session),
    // the current subscription and the VM.
    const state = await findDashboardState(pgPool, user.id);
    if (!state) throw unauthorized();
    // Only while a just-paid plan waits for the machine (seconds): was what it replaces a trial?
    const { subscription, vm } = state;
    const earlier =
      vm && subscription && vm.subscription_id !== subscription.id && isLive(vm.state)
        ? await findSubscription(db, vm.subscription_id)
        : null;
    return dashboardBody({
      ...state,
      earlierPlanWasTrial: earlier?.is_trial ?? false,
      vmConfig: config.vm,
      nameSuffix: config.machineNames?.suffix ?? null,
      now: new Date(),
    });
  }

  // The SPA polls this. It is a pure read: no write, no rate-limit point. The ETag lets the
  // browser revalidate (If-None-Match) and get a bodyless 304 while nothing changed; the
  // record is personal, so only the browser may keep it (private) and must ask each time.
  // The SPA asks by session (`/vm/dashboard`); the spec's `/vm/dashboard/{email}` answers its owner.
  router.get('/vm/dashboard', requireUser(), (ctx) => sendDashboard(ctx, currentUser(ctx)));
  router.get('/vm/dashboard/:email', requireUser(), (ctx) =>
    sendDashboard(ctx, assertSameUser(ctx, ctx.params.email)),
  );

  async function sendDashboard(ctx: AppContext, user: ReturnType<typeof currentUser>) {
    ctx.state.routine = true;
    const json = JSON.stringify(await dashboardOf(user));
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.type = 'application/json';
    const etag = `W/"${hash('sha256', json, 'base64url').slice(0, 27)}"`;
    ctx.set('ETag', etag);
    if (etagMatches(ctx.get('if-none-match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = json;
  }

  router.post('/vm/start-vm', requireUser(), validate(ActionBody), async (ctx) => {
    const user = assertSameUser(ctx, input<ActionBody>(ctx).email);
    const now = new Date();
    const vm = await findLiveVmByUser(db, user.id);
    const subscription = vm ? await findSubscription(db, vm.subscription_id) : null;
    const refusal = startRefusal(
      vm,
      subscription && {
        hours: subscription.hours,
        usageSeconds: vm?.usage_seconds ?? 0,
        status: subscription.status,
        expiresAt: subscription.expires_at,
      },
      now,
    );
    if (refusal || !vm) throw new HttpError(refusal?.status ?? 404, refusal?.message ?? VM_MESSAGES.noVm);
    // Only a stopped machine moves (the transition's condition); one already starting or running answers 200.
    const started = await requestStart(db, boss, vm.id, 'user', now);
    ctx.status = started ? 202 : 200;
    ctx.body = await dashboardOf(user);
  });

  router.post('/vm/stop-vm', requireUser(), validate(ActionBody), async (ctx) => {
    const user = assertSameUser(ctx, input<ActionBody>(ctx).email);
    const vm = await findLiveVmByUser(db, user.id);
    const refusal = stopRefusal(vm);
    if (refusal || !vm) throw new HttpError(refusal?.status ?? 404, refusal?.message ?? VM_MESSAGES.noVm);
    // Only a running machine moves (the transition's condition); one stopping or stopped answers 200.
    const stopping = await requestStop(db, boss, vm.id, 'user', new Date());
    ctx.status = stopping ? 202 : 200;
    ctx.body = await dashboardOf(user);
  });

  // The connection files. The SPA asks for them by the session alone (`/vm/rdp`,
  // `/vm/password`), so no email sits in the address, the browser history or a log; the spec's
  // `/:email` forms stay for compatibility and must name the session user.
  async function sendRdp(ctx: AppContext, user: AuthUser) {
    const vm = await findDashboardVm(db, user.id);
    if (!vm?.public_ip || !readyFiles(vm).rdp) throw new HttpError(409, VM_MESSAGES.rdpNotReady);
    // The PC's name once it leads there: the file then keeps working after every start.
    const host = (await findConnectHost(db, vm, config.machineNames?.suffix ?? null)) ?? vm.public_ip;
    download(ctx, 'application/x-rdp', RDP_FILE_NAME, rdpFile(host, config.vm.rdpPort));
  }

  async function sendPassword(ctx: AppContext, user: AuthUser) {
    const vm = await findDashboardVm(db, user.id);
    if (!vm?.password_encrypted || !readyFiles(vm).password) {
      throw new HttpError(409, VM_MESSAGES.passwordNotReady);
    }
    let password: string;
    try {
      password = openWindowsPassword(config.appSecret, vm.password_encrypted);
    } catch (error) {
      if (!(error instanceof DecryptError)) throw error;
      // APP_SECRET changed since it was sealed: say so to operators, never what was stored.
      ctx.state.log.error({ vmId: vm.id }, 'stored Windows password does not open with APP_SECRET');
      throw new HttpError(409, VM_MESSAGES.passwordNotReady);
    }
    download(ctx, 'text/plain; charset=utf-8', PASSWORD_FILE_NAME, password);
  }

  router.get('/vm/rdp', requireUser(), (ctx) => sendRdp(ctx, currentUser(ctx)));
  router.get('/vm/rdp/:email', requireUser(), (ctx) => sendRdp(ctx, assertSameUser(ctx, ctx.params.email)));
  router.get('/vm/password', requireUser(), (ctx) => sendPassword(ctx, currentUser(ctx)));
  router.get('/vm/password/:email', requireUser(), (ctx) =>
    sendPassword(ctx, assertSameUser(ctx, ctx.params.email)),
  );

  return router;
}

/** What the connection files need (`downloadsReady`): the same rule as the dashboard's links. */
function readyFiles(vm: Vm) {
  return downloadsReady({
    state: vm.state,
    publicIp: vm.public_ip,
    passwordStored: vm.password_encrypted !== null,
  });
}

export function download(ctx: AppContext, type: string, fileName: string, body: string): void {
  ctx.set('Content-Type', type);
  ctx.set('Content-Disposition', `attachment; filename="${fileName}"`);
  // Connection files are personal and the address changes on every start: never cache them anywhere.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = body;
}

/**
 * Whether If-None-Match names `etag` (weak comparison, RFC 9110 §13.1.2). Not Koa's `ctx.fresh`:
 * that treats a request's `Cache-Control: no-cache` as "always send the body", which is a
 * cache's rule; fetch() adds that header to every request carrying If-None-Match, and we are
 * the origin, where a match is exactly what revalidation asks.
 */
function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const mine = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === mine);
}
