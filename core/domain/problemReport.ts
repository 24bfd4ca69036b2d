/** Problem reports (spec §2 "Report form", §5, §8). */

export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const DEFAULT_SEVERITY: Severity = 'low';

export const REPORT_LIMITS = {
  title: 200,
  description: 5000,
  pageUrl: 2000,
} as const;

export const REPORT_MESSAGES = {
  success: 'Report submitted!',
  /** Shown before the server's error or the error's own message. */
  failurePrefix: 'Error: ',
  required: 'Please fill in the title, description and phone number.',
} as const;
