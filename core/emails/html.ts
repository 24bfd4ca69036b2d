import type { Payload } from '../queue.ts';
import type { ProblemReport } from '../db/problemReports.ts';
import { escapeHtml } from '../escape.ts';

/**
 * The mails the product sends, rendered to the `email-send` payload. Text first (every
 * client shows it); HTML is the same content, escaped.
 */

type Mail = Payload<'email-send'>;

function paragraphsHtml(lines: string[]): string {
  return lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
}

export function problemReportMail(report: ProblemReport, supportEmail: string): Mail {
  const lines = [
    `Severity: ${report.severity}`,
    `Phone: ${report.phone_number}`,
    `Page: ${report.page_url ?? '(not given)'}`,
    `Reported by: ${report.user_id ? `user ${report.user_id}` : 'a visitor who was not logged in'}`,
    `Report id: ${report.id}`,
    '',
    report.description,
  ];
  return {
    kind: 'problem-report',
    to: supportEmail,
    subject: `[${report.severity.toUpperCase()}] Problem report: ${report.title}`.slice(0, 200),
    text: lines.join('\n'),
    html: `<h2>${escapeHtml(report.title)}</h2>\n${paragraphsHtml(lines)}`,
  };
}
