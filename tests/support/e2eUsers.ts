import { randomBytes, randomInt } from 'node:crypto';
import { expect } from 'vitest';
import { loopbackAddress, requestFrom } from './accounts.ts';
import { baseUrl, type Page } from './browser.ts';
import { waitFor } from './waitFor.ts';

/**
 * What the browser tests share about customers: the sandbox's mailbox, accounts made through
 * the API as the SPA would make them, logging in on /login, and buying a plan through PayU's
 * sandbox checkout.
 */

export const PASSWORD = 'Str0ng!Passw0rd';

export const uniqueEmail = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}@example.com`;

export type Mail = { subject: string; text: string; sentAt: string };

/** The sandbox's mail to `to`, newest first. */
export async function mailsTo(to: string): Promise<Mail[]> {
  const response = await fetch(`${baseUrl()}/sandbox/mail?to=${encodeURIComponent(to)}`);
  return (await response.json()) as Mail[];
}

/** Waits for the `nth` (1-based, oldest first) mail to `to` whose subject contains `subject`. */
export async function waitForMail(to: string, subject: string, nth = 1): Promise<Mail> {
  return waitFor(
    `mail "${subject}" #${nth} to ${to}`,
    async () => (await mailsTo(to)).filter((m) => m.subject.includes(subject)).reverse()[nth - 1],
    20_000,
    200,
  );
}

/** The six-digit code a mail carries. */
export const codeIn = (mail: Mail) => /\b(\d{6})\b/.exec(mail.text)![1]!;

/** POSTs JSON to the stack (`path` from the origin, e.g. `/api/auth/register`). */
export function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The cookies a response sets, as a Cookie header (a client keeping them, as a browser would). */
export function cookiesFrom(response: { headers: Headers }): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
}

/** A verified account made through the API (sign-up and the mailed code), with its own phone number. */
export async function registeredUser(
  name = 'Kiran Das',
  emailPrefix = 'e2e',
  options: { phone?: string } = {},
): Promise<{ email: string; name: string; phone: string }> {
  const email = uniqueEmail(emailPrefix);
  const phone = options.phone ?? `9${String(randomInt(0, 1e9)).padStart(9, '0')}`;
  // Each account is a person of their own, so it signs up from an address of its own: the sign-up
  // limits follow the asker, and every browser test's accounts from one address would reach them.
  const from = loopbackAddress();
  const send = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    requestFrom(from, `${baseUrl()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const registered = await send('/api/auth/register', { name, email, phone, password: PASSWORD });
  expect(registered.status, registered.text).toBe(200);
  const code = codeIn(await waitForMail(email, 'verification code'));
  // The code works only for the client that asked for it (its requester cookie).
  const verified = await send(
    '/api/auth/verify-otp',
    { email, otp: code },
    { cookie: cookiesFrom(registered) },
  );
  expect(verified.status).toBe(200);
  return { email, name, phone };
}

/** Fills and submits the /login form; does not wait for where it leads. */
export async function logInWithPassword(page: Page, email: string, password = PASSWORD) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
}

/** Logs in and waits to land on /. */
export async function logIn(page: Page, email: string) {
  await logInWithPassword(page, email);
  await page.waitForURL(`${baseUrl()}/`);
}

/** /select-vm → /payment → the sandbox's PayU page → back to /payment-success. */
export async function buy(page: Page, plan: string, hours: number, amount: string) {
  await page.goto('/select-vm');
  const card = page.getByRole('article', { name: plan, exact: true });
  await card.getByRole('radio', { name: `${hours} h` }).check();
  await card.getByRole('button', { name: /^(Choose Plan|Renew Plan|Renew .+ \d+ h)$/ }).click();
  await page.waitForURL('**/payment');
  await page.getByRole('button', { name: `Pay ${amount}` }).click();
  await page.waitForURL('**/sandbox/payu/_payment');
  await page.getByRole('button', { name: `Pay ${amount} (success)` }).click();
  await page.waitForURL(/\/payment-success\?txnid=/);
}

/**
 * After paying: the success page says "Payment successful!" until the dashboard has the PC's
 * IP, then moves to /dashboard (spec §4). With a warm-pool machine that can be within a second
 * of verification, so the heading may be gone before a test looks; either screen proves PayU's
 * answer was verified (the success page shows neither before that).
 */
export async function paymentVerified(page: Page, timeout = 20_000): Promise<void> {
  await page
    .getByRole('heading', { name: 'Payment successful!' })
    .or(page.getByRole('heading', { name: 'Dashboard', exact: true }))
    .waitFor({ timeout });
}

/** Signs in, buys LEGEND 30 h through the sandbox PayU and waits on the dashboard for the machine to run. */
export async function runningLegendMachine(page: Page, email: string): Promise<void> {
  await logIn(page, email);
  await buy(page, 'LEGEND', 30, '₹1,450.00');
  await paymentVerified(page);
  await page.goto('/dashboard');
  await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
}

/**
 * Opens the profile menu ("My Profile"), opening the mobile menu first when the header has
 * folded it away, and answers the menu's panel. Waits for the signed-in header.
 */
export async function openProfileMenu(page: Page) {
  const profile = page.getByRole('button', { name: 'My Profile' });
  const menu = page.getByRole('button', { name: 'Open menu' });
  await profile.or(menu).first().waitFor();
  if (!(await profile.isVisible())) {
    await menu.click();
    await profile.waitFor();
  }
  if ((await profile.getAttribute('aria-expanded')) !== 'true') await profile.click();
  const panel = page.getByRole('region', { name: 'Profile' });
  await panel.waitFor();
  return panel;
}

/**
 * Signs up with Google through the sandbox's sign-in page, from /login: a new account with no
 * password and no phone number. Waits to land where the login sends it (`/` unless `next`).
 */
export async function signUpWithGoogle(page: Page, name: string, email: string, next?: string) {
  await page.goto(next ? `/login?next=${encodeURIComponent(next)}` : '/login');
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  await page.waitForURL('**/sandbox/google/authorize?**');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${baseUrl()}${next ?? '/'}`);
}

/** A phone number of its own for a test (trials are one per number). */
export const uniquePhone = () => `9${String(randomInt(0, 1e9)).padStart(9, '0')}`;

/**
 * Signs in, buys LEGEND 30 h, waits for its machine to run and, on the history page, cancels
 * the plan for the day-1 refund the policy gives (70% of ₹1,450 less the ₹200 charge:
 * ₹815.00); waits until PayU has it. The machine is waited for because a plan refunded before
 * the provisioning job reaches it gets no machine at all (the job skips a plan not in force).
 */
export async function refundedLegendPlan(page: Page, email: string): Promise<void> {
  await runningLegendMachine(page, email);
  await page.goto('/history');
  const attempt = page.locator('article.attempt-success').first();
  await attempt.getByRole('button', { name: 'Cancel plan and request refund' }).click();
  await attempt.getByRole('button', { name: 'Confirm refund of ₹815.00' }).click();
  await attempt
    .getByText(/^(Refund of ₹815\.00 accepted by PayU and on its way|Refunded ₹815\.00 on )/)
    .waitFor({ timeout: 30_000 });
}

/**
 * Waits for the machine card's health line to say `ready` (its first accepted health report).
 * When it does not, the error says what the page, the dashboard record and the sandbox's
 * reporter saw meanwhile, so a slow or refused report explains itself.
 */
export async function waitForReadyToStream(
  page: Page,
  ready: RegExp | string = /^Ready for/,
  timeout = 45_000,
): Promise<void> {
  const line = page.locator('[data-field="health"]');
  try {
    await line.getByText(ready).waitFor({ timeout });
  } catch (error) {
    const dashboard = (await (await page.request.get(`${baseUrl()}/api/vm/dashboard`)).json()) as {
      vmLastState?: string;
      vmPublicIp?: string | null;
      machineHealth?: unknown;
    };
    const sunshine = (await (await fetch(`${baseUrl()}/sandbox/sunshine/_state`)).json()) as {
      hosts: Record<string, { listening: boolean; reports: unknown[] }>;
    };
    const host = dashboard.vmPublicIp ? sunshine.hosts[dashboard.vmPublicIp] : undefined;
    throw new Error(
      `health line never said ${String(ready)}: it says "${await line.innerText().catch(() => '(absent)')}"; ` +
        `dashboard: ${JSON.stringify({ state: dashboard.vmLastState, publicIp: dashboard.vmPublicIp, machineHealth: dashboard.machineHealth })}; ` +
        `sandbox reporter at that address: ${host ? JSON.stringify({ listening: host.listening, reports: host.reports.slice(-6) }) : `none (hosts: ${Object.keys(sunshine.hosts).join(', ')})`}`,
      { cause: error },
    );
  }
}
