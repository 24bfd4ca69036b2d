import { sendJob } from '../../core/queue.ts';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { applyHealthReport } from '../../core/commands/machineHealth.ts';
import { DecryptError } from '../../core/crypto/crypto.ts';
import { healthSignatureValid, openHealthSecret } from '../../core/crypto/machineSecrets.ts';
import { recordSmokeReport } from '../../core/db/imageSmokeRuns.ts';
import { findReportingMachine, recordClockAhead, recordHealthRefusal } from '../../core/db/machineHealth.ts';
import { desktopReachable } from '../../core/domain/machineStates.ts';
import { CLOCK_MESSAGES, reportClock } from '../../core/domain/reportClock.ts';
import { holdPoolForImageFault } from '../../core/commands/poolHolds.ts';
import {
  HEALTH_REFUSAL_MESSAGES,
  HEALTH_REPORT_INTERVAL_SECONDS,
  HEALTH_REPORT_MAX_BYTES,
  HEALTH_SIGNATURE_HEADER,
  HEALTH_TIMESTAMP_HEADER,
  MACHINE_HEALTH_PATH,
  refusalStatus,
  type HealthOutcome,
  type MachineHealthReport,
} from '../../core/domain/machineHealth.ts';
import { HttpError } from '../errors.ts';
import { routeMatcher } from '../routePath.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Services } from '../services.ts';
import { plainAddress } from './desktop.ts';

/**
 * `POST /api/machine/health`: a machine's own report (GPU driver licence, virtual display,
 * Sunshine and its certificate, DCV, Remote Desktop, free disk), posted by the image's reporter at
 * every boot and every 5 minutes.
 *
 * Machines are customers' computers, so a report is believed only when it proves itself twice:
 * signed with the secret generated for that machine at launch (HMAC-SHA256 over
 * `<timestamp>.<body>`, the timestamp at most 5 minutes behind ours and 30 s ahead, and newer
 * than the last one accepted, so a replay changes nothing: core/domain/reportClock.ts), and sent
 * from that machine's current public address
 * (the client address as TRUST_PROXY_HOPS reads it, never a header a client writes). Anything
 * else is answered 401/403, logged and recorded (machine_health_refusals: /metrics and the
 * forged-reports alert read it) and changes nothing. Bodies that are not a report at all (400)
 * and unsigned posts (401) are logged only: they name no machine; so is a machine proving itself
 * before it is in service at an address we know (409: every boot's first reports, and spares).
 */

const text = (max: number) => z.string().max(max);

const bytes = z
  .number()
  .int()
  .min(0)
  .max(2 ** 53);

// Fields images built before the image proved itself do not send: optional, and unknown when absent.
export const HealthReportBody = z.object({
  instanceId: z.string().regex(/^i-[0-9a-f]{8,17}$/, 'instanceId is not an EC2 instance id.'),
  gpu: z.object({
    name: text(200).nullable(),
    driverVersion: text(50).nullable(),
    licensed: z.boolean().nullable(),
  }),
  display: z.object({
    present: z.boolean(),
    width: z.number().int().min(1).max(16_384).nullable(),
    height: z.number().int().min(1).max(16_384).nullable(),
    refreshHz: z.number().min(1).max(1000).nullable(),
    virtual: z.boolean().nullable().optional(),
    modes: z
      .array(z.string().regex(/^\d{3,5}x\d{3,5}@\d{2,4}$/, 'a mode is WIDTHxHEIGHT@HZ.'))
      .max(400)
      .nullable()
      .optional(),
  }),
  sunshine: z.object({
    running: z.boolean(),
    certSha256: text(200).nullable(),
    apiAnswers: z.boolean().nullable().optional(),
  }),
  dcv: z.object({ running: z.boolean() }),
  rdp: z.object({ listening: z.boolean(), consoleHandoff: z.boolean().nullable().optional() }),
  disk: z.object({ freeBytes: bytes, totalBytes: bytes, unallocatedBytes: bytes.nullable().optional() }),
  audio: z
    .object({ serviceRunning: z.boolean(), endpoint: text(200).nullable() })
    .nullable()
    .optional(),
  gamepad: z.object({ busPresent: z.boolean(), xinput: z.boolean().nullable() }).nullable().optional(),
});

/** Refuses an oversized report before its body is read. */
export function refuseLargeHealthReports(): Middleware<AppState> {
  const isHealthReport = routeMatcher(MACHINE_HEALTH_PATH);
  return async (ctx, next) => {
    if (ctx.method === 'POST' && isHealthReport(ctx.path)) {
      if (Number(ctx.get('content-length') || '0') > HEALTH_REPORT_MAX_BYTES)
        throw new HttpError(413, 'The report is too large.');
    }
    await next();
  };
}

export function machineHealthRoutes(services: Services): Router<AppState> {
  const { db, config, limiters } = services;
  const router = new Router<AppState>();

  const parseReport: Middleware<AppState> = async (ctx, next) => {
    const result = HealthReportBody.safeParse((ctx.request as { body?: unknown }).body ?? {});
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    if (!ctx.is('application/json') || !result.success || typeof raw !== 'string') {
      ctx.state.log.warn({ callerAddress: plainAddress(ctx.ip) }, 'machine health: not a report');
      throw new HttpError(400, HEALTH_REFUSAL_MESSAGES.malformed);
    }
    ctx.state.input = { report: result.data, raw };
    await next();
  };

  router.post(
    MACHINE_HEALTH_PATH.slice('/api'.length),
    // Named like validate()'s so the route table can be walked with its schema (the fuzz test).
    Object.assign(parseReport, { schema: HealthReportBody, source: 'body' as const }),
    async (ctx) => {
      const { report, raw } = ctx.state.input as { report: MachineHealthReport; raw: string };
      const callerAddress = plainAddress(ctx.ip);
      await limiters.machineHealthAddress.consume(callerAddress);
      const now = services.clock();

      const refuse = async (
        outcome: Exclude<HealthOutcome, 'accepted'>,
        facts: {
          vmId?: string | null;
          record?: boolean;
          quiet?: boolean;
          answer?: { message: string } & Record<string, unknown>;
        } = {},
      ) => {
        if (facts.record !== false) {
          await recordHealthRefusal(db, {
            outcome,
            callerAddress,
            instanceId: report.instanceId,
            vmId: facts.vmId ?? null,
            at: now,
          });
        }
        // A machine reporting before it is in service does so at every boot: not worth a warning.
        ctx.state.log[facts.quiet ? 'info' : 'warn'](
          { outcome, callerAddress, instanceId: report.instanceId, vmId: facts.vmId ?? null },
          'machine health report refused',
        );
        reply(ctx, refusalStatus(outcome), facts.answer ?? { message: HEALTH_REFUSAL_MESSAGES[outcome] });
      };

      const timestampText = ctx.get(HEALTH_TIMESTAMP_HEADER);
      const signature = ctx.get(HEALTH_SIGNATURE_HEADER);
      if (!/^\d{1,12}$/.test(timestampText) || !/^v1=[0-9a-fA-F]{64}$/.test(signature))
        return refuse('unsigned', { record: false });
      const timestamp = Number(timestampText);
      const clock = reportClock(timestamp, now);
      if (clock.kind === 'stale') return refuse('stale');

      const machine = await findReportingMachine(db, report.instanceId);
      if (!machine) return refuse('unknown-machine');
      let secret: string;
      try {
        secret = openHealthSecret(config.appSecret, machine.health_secret_sealed);
      } catch (error) {
        if (!(error instanceof DecryptError)) throw error;
        // APP_SECRET changed since the machine was launched: it can never prove itself now.
        ctx.state.log.error(
          { instanceId: report.instanceId },
          'machine health secret does not open with APP_SECRET',
        );
        return refuse('unknown-machine', { vmId: machine.vm_id });
      }
      if (!healthSignatureValid(secret, timestamp, raw, signature))
        return refuse('bad-signature', { vmId: machine.vm_id });
      // The machine of an operator's image smoke run (npm run aws:smoke) proves itself the same way,
      // from the address the run recorded; its report is the run's verdict, no customer's.
      if (machine.smoke_run_id) {
        if (!machine.smoke_ip) return refuse('not-in-service', { record: false, quiet: true });
        if (callerAddress !== machine.smoke_ip) return refuse('wrong-address');
        const stored = await recordSmokeReport(db, {
          runId: machine.smoke_run_id,
          report,
          reportedAt: new Date(timestamp * 1000),
          receivedAt: now,
        });
        if (!stored) return refuse('replayed');
        ctx.state.log.info(
          { smokeRunId: machine.smoke_run_id, instanceId: report.instanceId },
          'image smoke report',
        );
        return reply(ctx, 200, { accepted: true, nextReportSeconds: HEALTH_REPORT_INTERVAL_SECONDS });
      }
      // A spare in the warm pool, or a machine whose address we do not know yet (it is starting):
      // it proved who it is, but there is no address to check it against. It reports again.
      if (!machine.vm_id || !desktopReachable({ state: machine.vm_state ?? '', publicIp: machine.public_ip }))
        return refuse('not-in-service', { vmId: machine.vm_id, record: false, quiet: true });
      if (callerAddress !== machine.public_ip) return refuse('wrong-address', { vmId: machine.vm_id });
      // Proven the machine's own, but dated ahead of our clock: stored, it would outrank every
      // genuine report until our clock caught up with it. Refused, and the machine (and its card)
      // told that its clock runs fast.
      if (clock.kind === 'ahead') {
        await recordClockAhead(db, { vmId: machine.vm_id, seconds: clock.seconds, at: now });
        return refuse('clock-ahead', {
          vmId: machine.vm_id,
          answer: { message: CLOCK_MESSAGES.refused(clock.seconds), clockAheadSeconds: clock.seconds },
        });
      }

      const stored = await applyHealthReport(db, {
        vmId: machine.vm_id,
        instanceId: report.instanceId,
        instanceType: machine.instance_type,
        report,
        reportedAt: new Date(timestamp * 1000),
        receivedAt: now,
      });
      if (!stored) return refuse('replayed', { vmId: machine.vm_id });
      // The paired devices follow the PC's own list (Sunshine's): read it now that it answers.
      if (report.sunshine.running)
        await sendJob(
          services.boss,
          'stream-clients',
          { vmId: machine.vm_id },
          { singletonKey: machine.vm_id },
        );
      // A fault of the image on a machine fresh from it: the plan's spares would carry it too.
      await holdPoolForImageFault(
        { db, log: ctx.state.log, config },
        { vmId: machine.vm_id, instanceId: report.instanceId, report },
        now,
      );
      ctx.state.log.info({ vmId: machine.vm_id, instanceId: report.instanceId }, 'machine health report');
      reply(ctx, 200, { accepted: true, nextReportSeconds: HEALTH_REPORT_INTERVAL_SECONDS });
    },
  );

  return router;
}

function reply(ctx: AppContext, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}
