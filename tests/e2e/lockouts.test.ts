import pg from 'pg';
import { afterAll, describe, inject, it } from 'vitest';
import {
  baseUrl,
  hasBrowser,
  MOBILE,
  screenshot,
  screenshotsAtBothWidths,
  useBrowser,
} from '../support/browser.ts';
import { codeIn, registeredUser, waitForMail } from '../support/e2eUsers.ts';
import { loopbackAddress, requestFrom } from '../support/accounts.ts';

/**
 * An email under attack, in the browser: strangers (each from a loopback address of its own)
 * have used the inbox's code mails, so the owner's new browser is asked for a proof of work,
 * which the page solves with visible progress, is told to wait a few minutes at most, and then
 * gets its code. The wait is moved in the stack's database: five minutes cannot pass in a test.
 */

const browser = useBrowser();
const db = hasBrowser() ? new pg.Pool({ connectionString: inject('stackDatabaseUrl'), max: 2 }) : null;
afterAll(async () => {
  await db?.end();
});

/** Ten strangers ask for login codes for `email`, each from an address of its own. */
async function strangersAsk(email: string): Promise<number> {
  const direct = baseUrl().replace('localhost', '127.0.0.1');
  let mailed = 0;
  for (let i = 0; i < 10; i++) {
    const reply = await requestFrom(loopbackAddress(), `${direct}/api/auth/forgot-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseUrl() },
      body: JSON.stringify({ email, method: 'otp' }),
    });
    if (reply.status === 200) mailed++;
  }
  return mailed;
}

describe.skipIf(!hasBrowser())('codes for an email under attack', () => {
  it("the owner's new browser solves a puzzle, waits minutes at most, and gets its code", async () => {
    const user = await registeredUser('Kavya Menon', 'attacked');
    // A few of them got mails (what was left of the inbox's burst); the owner's comes after.
    const mailed = await strangersAsk(user.email);
    await waitForMail(user.email, 'login code', mailed);
    // The page's refused requests (428, 429) show in the console as failed loads; they are expected.
    const page = await browser.newPage(MOBILE, { allowConsoleErrors: /status of 42[89]/ });
    await page.goto('/forgot-password');
    await page.getByLabel('Login via OTP').check();
    await page.getByLabel('Email').fill(user.email);
    const asked = Date.now();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/your browser is solving a short puzzle first/).waitFor();
    await screenshot(page, 'lockouts-puzzle-360');
    const wait = page.getByText(/Please try again in [1-5] minutes?\./);
    await wait.waitFor({ timeout: 150_000 });
    console.log(
      `asked, solved the puzzle and was answered in ${((Date.now() - asked) / 1000).toFixed(1)} s (Chromium, loaded test machine)`,
    );
    await screenshotsAtBothWidths(page, 'lockouts-wait');

    // The wait passes (the inbox's five minutes, and with them this browser's one-a-minute).
    await db!.query(`UPDATE code_mail_budgets SET tat = tat - interval '5 minutes' WHERE email = $1`, [
      user.email,
    ]);
    await db!.query(`DELETE FROM rate_limits WHERE key LIKE 'code-send-pair-minute:%' AND key LIKE $1`, [
      `%${user.email}%`,
    ]);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('OTP sent successfully. Please check your email.').waitFor({ timeout: 150_000 });
    await screenshot(page, 'lockouts-sent-360');
    const mail = await waitForMail(user.email, 'login code', mailed + 1);
    await page.getByLabel('OTP', { exact: true }).fill(codeIn(mail));
    await page.getByRole('button', { name: 'Verify & Login' }).click();
    await page.waitForURL(`${baseUrl()}/`);
  }, 400_000);
});
