import { describe, expect, it } from 'vitest';
import { startTestStack, waitFor } from '../support/stack.ts';
import { countProblemReports, findProblemReport } from '../support/rows.ts';

const stack = await startTestStack({ worker: true });
const good = {
  title: 'Screen freezes',
  description: 'The VM froze after 10 minutes.',
  phoneNumber: '9876543210',
  pageUrl: '/dashboard',
};

describe('POST /api/report-problem', () => {
  it('stores a valid report, answers its id and emails support through the worker', async () => {
    const response = await stack.api('/api/report-problem', { body: { ...good, severity: 'high' } });
    expect(response.status).toBe(201);
    const id = response.body.id as string;
    const row = await findProblemReport(stack.services.db, id);
    expect(row).toMatchObject({
      title: 'Screen freezes',
      severity: 'high',
      phone_number: '9876543210',
      page_url: '/dashboard',
    });

    const mail = await waitFor('the support mail', async () =>
      (await stack.mailTo(stack.config.supportEmail)).find((m) => m.text.includes(id)),
    );
    expect(mail.subject).toBe('[HIGH] Problem report: Screen freezes');
    expect(mail.text).toContain('The VM froze after 10 minutes.');
  });

  it('defaults severity to low and trims the fields', async () => {
    const response = await stack.api('/api/report-problem', {
      body: { title: '  Audio  ', description: ' crackles ', phoneNumber: ' 6000000000 ' },
    });
    expect(response.status).toBe(201);
    const row = await findProblemReport(stack.services.db, response.body.id);
    expect(row).toMatchObject({
      title: 'Audio',
      description: 'crackles',
      severity: 'low',
      phone_number: '6000000000',
      page_url: null,
    });
  });

  it.each([
    [{ ...good, phoneNumber: '5876543210' }, 'Enter a valid 10-digit phone number starting with 6-9.'],
    [{ ...good, phoneNumber: '98765' }, 'Enter a valid 10-digit phone number starting with 6-9.'],
    [{ ...good, phoneNumber: 9876543210 }, 'Enter a valid 10-digit phone number starting with 6-9.'],
    [{ ...good, title: '   ' }, 'Issue Title is required.'],
    [{ description: 'x', phoneNumber: '9876543210' }, 'Issue Title is required.'],
    [{ ...good, description: '' }, 'Description is required.'],
    [{ ...good, severity: 'critical' }, 'Severity is low, medium or high.'],
    [{ ...good, title: 'x'.repeat(201) }, 'The title is too long.'],
  ])('refuses %j with a 400 and stores nothing', async (body, message) => {
    const before = await countProblemReports(stack.services.db);
    const response = await stack.api('/api/report-problem', { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message });
    expect(await countProblemReports(stack.services.db)).toBe(before);
  });

  it('answers malformed JSON, a wrong content type and an oversized body with a 4xx message', async () => {
    const before = await countProblemReports(stack.services.db);
    const malformed = await stack.api('/api/report-problem', { body: '{"title": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('The request body is not valid JSON.');

    const array = await stack.api('/api/report-problem', { body: '[1,2]' });
    expect(array.status).toBe(400);

    const huge = await stack.api('/api/report-problem', {
      body: { ...good, description: 'x'.repeat(100_000) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe('That request is too large.');

    const text = await stack.api('/api/report-problem', {
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBeGreaterThanOrEqual(400);
    expect(text.status).toBeLessThan(500);
    expect(await countProblemReports(stack.services.db)).toBe(before);
  });

  it('refuses a report posted from another site', async () => {
    const response = await stack.api('/api/report-problem', {
      body: good,
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
  });

  it('limits anonymous reports per address', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    // The stack does not trust proxies, so every request here counts against 127.0.0.1;
    // earlier tests in this file used some of the ten.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await stack.api('/api/report-problem', { body: good, headers })).status);
    }
    expect(statuses).toContain(429);
    const limited = await stack.api('/api/report-problem', { body: good });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body.message).toBe('Too many reports from your network. Please try again in a while.');
  });
});

describe('the web process', () => {
  it('answers unknown API paths with a JSON 404', async () => {
    const response = await stack.api('/api/nothing/here');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'No such API endpoint.' });
  });

  it('is alive and ready', async () => {
    expect((await stack.api('/healthz')).body).toEqual({ ok: true });
    expect((await stack.api('/readyz')).body).toEqual({ ok: true, checks: { database: true, queue: true } });
  });

  it('sends security headers and a request id', async () => {
    const response = await stack.api('/healthz');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
  });
});
