import { z } from 'zod';
import { sql, type Db } from './pool.ts';
import { SEVERITIES } from '../domain/problemReport.ts';

export const ProblemReport = z.object({
  id: z.uuid(),
  user_id: z.uuid().nullable(),
  title: z.string(),
  description: z.string(),
  severity: z.enum(SEVERITIES),
  phone_number: z.string(),
  page_url: z.string().nullable(),
  created_at: z.date(),
  notified_at: z.date().nullable(),
});
export type ProblemReport = z.infer<typeof ProblemReport>;

export type NewProblemReport = {
  userId: string | null;
  title: string;
  description: string;
  severity: (typeof SEVERITIES)[number];
  phoneNumber: string;
  pageUrl: string | null;
  ip: string | null;
};

export async function insertProblemReport(db: Db, report: NewProblemReport): Promise<ProblemReport> {
  return db.one(sql.type(ProblemReport)`
    INSERT INTO problem_reports (user_id, title, description, severity, phone_number, page_url, ip)
    VALUES (${report.userId}, ${report.title}, ${report.description}, ${report.severity},
            ${report.phoneNumber}, ${report.pageUrl}, ${report.ip})
    RETURNING id, user_id, title, description, severity, phone_number, page_url, created_at, notified_at`);
}
