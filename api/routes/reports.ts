import Router from '@koa/router';
import { z } from 'zod';
import { DEFAULT_SEVERITY, REPORT_LIMITS, SEVERITIES } from '../../core/domain/problemReport.ts';
import { insertProblemReport } from '../../core/db/problemReports.ts';
import { problemReportMail } from '../../core/emails/html.ts';
import { sendJob } from '../../core/queue.ts';
import { phoneField } from '../fields.ts';
import { input, validate } from '../middleware/validate.ts';
import { limitByIp } from '../middleware/rateLimit.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

const required = (field: string) => ({ error: `${field} is required.` });

export const ReportBody = z.object({
  title: z
    .string(required('Issue Title'))
    .trim()
    .min(1, required('Issue Title').error)
    .max(REPORT_LIMITS.title, 'The title is too long.'),
  description: z
    .string(required('Description'))
    .trim()
    .min(1, required('Description').error)
    .max(REPORT_LIMITS.description, 'The description is too long.'),
  severity: z.enum(SEVERITIES, { error: 'Severity is low, medium or high.' }).default(DEFAULT_SEVERITY),
  phoneNumber: phoneField(),
  pageUrl: z.string().trim().max(REPORT_LIMITS.pageUrl).optional(),
});
type ReportBody = z.infer<typeof ReportBody>;

export function reportRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  // Validate first: only well-formed reports spend the caller's budget; bad ones store nothing anyway.
  router.post('/report-problem', validate(ReportBody), limitByIp(services.limiters.reports), async (ctx) => {
    const body = input<ReportBody>(ctx);
    const report = await services.db.transaction(async (trx) => {
      const row = await insertProblemReport(trx, {
        // A logged-in reporter is linked (support sees who it was); anonymous reports stay allowed.
        userId: ctx.state.user?.id ?? null,
        title: body.title,
        description: body.description,
        severity: body.severity,
        phoneNumber: body.phoneNumber,
        pageUrl: body.pageUrl || null,
        ip: ctx.ip || null,
      });
      await sendJob(services.boss, 'email-send', problemReportMail(row, services.config.supportEmail), {
        db: trx,
      });
      return row;
    });
    ctx.status = 201;
    ctx.body = { id: report.id };
  });
  return router;
}
