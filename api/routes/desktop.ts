import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { escapeHtml } from '../../core/escape.ts';
import {
  consumeDesktopToken,
  findVmIdByPublicIp,
  insertDesktopToken,
  recordDesktopTokenUse,
  refusalOf,
} from '../../core/db/desktopTokens.ts';
import { findLiveVmByUser } from '../../core/db/vms.ts';
import {
  DCV_AUTH_PATH,
  DCV_SESSION_ID,
  DCV_USERNAME,
  DESKTOP_MESSAGES,
  desktopUrl,
  type DcvOutcome,
} from '../../core/domain/desktop.ts';
import { desktopReachable } from '../../core/domain/machineStates.ts';
import { findConnectHost } from '../../core/db/machineNames.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';
import { HttpError } from '../errors.ts';
import { errorAnswer } from '../middleware/errors.ts';
import { routeMatcher } from '../routePath.ts';
import { currentUser, requireUser } from '../middleware/auth.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * The browser desktop through Amazon DCV.
 *
 * `POST /vm/desktop-token` (the signed-in owner, machine running) mints a one-time token and
 * answers the link to DCV's web client on the machine with it. The browser opens the link; DCV's
 * web client hands the token to the DCV server on the machine, which asks us.
 *
 * `POST /dcv/auth` is DCV's external authenticator (its `auth-token-verifier` setting, written by
 * the image recipe): a form with `sessionId`, `authenticationToken` and `clientAddress`, answered
 * `<auth result="yes"><username>…</username></auth>` or `<auth result="no"><message>…</message></auth>`.
 * DCV sends no credential of its own, so which machine is asking is the address the call comes
 * from: the DCV server runs on the machine and reaches us from its public address (the client
 * address as `TRUST_PROXY_HOPS` reads it). A token is accepted only when the caller is the
 * running machine it was minted for, at the address it had then, within a minute, once.
 */

/** DCV's verification is a short form; anything far larger is not DCV. */
const DCV_AUTH_MAX_BYTES = 4096;

const printable = (field: string, max: number) =>
  z
    .string({ error: `${field} is required.` })
    .min(1, `${field} is required.`)
    .max(max, `${field} is too long.`)
    .regex(/^[\x21-\x7e]+$/, `${field} is not valid.`);

export const DcvAuthBody = z.object({
  sessionId: printable('sessionId', 256),
  authenticationToken: printable('authenticationToken', 512),
  // An IPv4 or IPv6 address, possibly with a port: never interpreted, only recorded.
  clientAddress: printable('clientAddress', 100),
});
type DcvAuthBody = z.infer<typeof DcvAuthBody>;

/**
 * DCV's verifications always get its XML answer, whatever refuses them before the route does:
 * an oversized one before its body is read (chunked bodies meet the 64 kB cap), and a body the
 * guards after this refuse (an undecodable Content-Encoding, a broken form, a bad character) is a
 * `result="no"` with the same status, never our JSON (which DCV cannot read).
 */
export function refuseLargeDcvAuth(): Middleware<AppState> {
  const isDcvAuth = routeMatcher(DCV_AUTH_PATH);
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !isDcvAuth(ctx.path)) {
      await next();
      return;
    }
    const length = Number(ctx.get('content-length') || '0');
    if (length > DCV_AUTH_MAX_BYTES) {
      sendAuth(ctx, 413, { result: 'no', message: 'Request too large.' });
      return;
    }
    try {
      await next();
    } catch (error) {
      const { status, message, headers } = errorAnswer(error);
      if (status >= 500) ctx.state.log.error({ err: error }, 'DCV verification failed');
      else ctx.state.log.info({ status, message }, 'DCV verification refused');
      ctx.set(headers);
      sendAuth(ctx, status, { result: 'no', message });
    }
  };
}

export function desktopRoutes(services: Services): Router<AppState> {
  const { db, config, limiters } = services;
  const router = new Router<AppState>();

  router.post('/vm/desktop-token', requireUser(), async (ctx) => {
    const user = currentUser(ctx);
    await limiters.desktopTokenUser.consume(user.id);
    const vm = await findLiveVmByUser(db, user.id);
    if (!vm) throw new HttpError(404, VM_MESSAGES.noVm);
    if (!vm.public_ip || !desktopReachable({ state: vm.state, publicIp: vm.public_ip })) {
      throw new HttpError(409, DESKTOP_MESSAGES.notRunning);
    }
    const token = randomToken();
    const expiresAt = await insertDesktopToken(db, {
      tokenHash: hashToken(token),
      userId: user.id,
      vmId: vm.id,
      publicIp: vm.public_ip,
      now: services.clock(),
    });
    ctx.state.log.info({ vmId: vm.id }, 'desktop token minted');
    const host = (await findConnectHost(db, vm, config.machineNames?.suffix ?? null)) ?? vm.public_ip;
    ctx.body = { url: desktopUrl(config.vm.dcvWebUrl, vm.public_ip, token, host), expiresAt };
  });

  const parseAuth: Middleware<AppState> = async (ctx, next) => {
    if (!ctx.is('application/x-www-form-urlencoded')) {
      sendAuth(ctx, 415, { result: 'no', message: 'Send a form.' });
      return;
    }
    const result = DcvAuthBody.safeParse((ctx.request as { body?: unknown }).body ?? {});
    if (!result.success) {
      sendAuth(ctx, 400, { result: 'no', message: result.error.issues[0]?.message ?? 'Not valid.' });
      return;
    }
    ctx.state.input = result.data;
    await next();
  };

  router.post(
    '/dcv/auth',
    // Named like validate()'s so the route table can be walked with its schema (the fuzz test).
    Object.assign(parseAuth, { schema: DcvAuthBody, source: 'body' as const }),
    async (ctx) => {
      const body = ctx.state.input as DcvAuthBody;
      const callerAddress = plainAddress(ctx.ip);
      try {
        await limiters.dcvAuthAddress.consume(callerAddress);
      } catch (error) {
        if (!(error instanceof HttpError) || error.status !== 429) throw error;
        ctx.state.log.warn({ callerAddress }, 'DCV verification refused: too many from this address');
        ctx.set(error.headers);
        sendAuth(ctx, 429, { result: 'no', message: 'Too many verifications. Try again shortly.' });
        return;
      }
      const now = services.clock();
      const tokenHash = hashToken(body.authenticationToken);
      let outcome: DcvOutcome;
      let tokenId: string | null;
      let vmId: string | null;
      if (body.sessionId !== DCV_SESSION_ID) {
        // Our machines run one session, the console; the token is left for a proper request.
        const refusal = await refusalOf(db, { tokenHash, callerAddress, now });
        outcome = 'wrong-session';
        tokenId = refusal.tokenId;
        vmId = await findVmIdByPublicIp(db, callerAddress);
      } else {
        const consumed = await consumeDesktopToken(db, { tokenHash, callerAddress, now });
        if (consumed) {
          outcome = 'accepted';
          tokenId = consumed.id;
          vmId = consumed.vm_id;
        } else {
          const refusal = await refusalOf(db, { tokenHash, callerAddress, now });
          outcome = refusal.outcome;
          tokenId = refusal.tokenId;
          vmId = await findVmIdByPublicIp(db, callerAddress);
        }
      }
      await recordDesktopTokenUse(db, {
        tokenId,
        vmId,
        outcome,
        sessionId: body.sessionId,
        clientAddress: body.clientAddress,
        verifierAddress: callerAddress,
        at: now,
      });
      // Never the token: its id, the machine and the outcome are enough to follow a connection.
      ctx.state.log.info(
        { tokenId, vmId, outcome, clientAddress: body.clientAddress, callerAddress },
        'DCV verification',
      );
      sendAuth(
        ctx,
        200,
        outcome === 'accepted'
          ? { result: 'yes', username: DCV_USERNAME }
          : { result: 'no', message: DESKTOP_MESSAGES.refused },
      );
    },
  );

  return router;
}

type AuthAnswer = { result: 'yes'; username: string } | { result: 'no'; message: string };

/** DCV's answer document (External Authentication, "authentication service requirements"). */
export function dcvAuthXml(answer: AuthAnswer): string {
  return answer.result === 'yes'
    ? `<auth result="yes"><username>${escapeHtml(answer.username)}</username></auth>`
    : `<auth result="no"><message>${escapeHtml(answer.message)}</message></auth>`;
}

function sendAuth(ctx: AppContext, status: number, answer: AuthAnswer): void {
  ctx.status = status;
  ctx.type = 'application/xml; charset=utf-8';
  ctx.body = dcvAuthXml(answer);
}

/** An IPv4 client seen on a dual-stack socket is `::ffff:a.b.c.d`; the machine's address is `a.b.c.d`. */
export function plainAddress(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice('::ffff:'.length) : ip;
}
