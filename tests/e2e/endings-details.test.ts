import { describe, expect, it } from 'vitest';
import {
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshotsAtBothWidths,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import {
  codeIn,
  logIn,
  paymentVerified,
  PASSWORD,
  registeredUser,
  uniqueEmail,
  uniquePhone,
  waitForMail,
} from '../support/e2eUsers.ts';

/**
 * The smaller things that misled people, each where it lives, at 360 and 1280 px: a plan chosen
 * before sign-up goes on to /payment; the AutoPay tick survives a sign-in; a signed-in page keeps
 * its return address (/history included); an abandoned checkout reads "Not completed yet" at once,
 * and an old choice that can no longer be paid says so before Pay; a trial names its machine, the
 * menu reads "My trial", and a trial refused for its phone number names the number.
 */

const browser = useBrowser();

/** /select-vm → `plan` `hours` h → Choose Plan (the session decides where that leads). */
async function choose(page: Page, plan: string, hours: number) {
  await page.goto('/select-vm');
  const card = page.getByRole('article', { name: plan, exact: true });
  await card.getByRole('radio', { name: `${hours} h` }).check();
  await card.getByRole('button', { name: /^(Choose Plan|Renew Plan|Renew .+ \d+ h)$/ }).click();
}

describe.skipIf(!hasBrowser())('the smaller endings', () => {
  it('a plan chosen before signing up goes on to /payment as chosen (360 px)', async () => {
    const page = await browser.newPage(MOBILE);
    await choose(page, 'PRO LEGEND', 45);
    await page.waitForURL('**/login?next=%2Fselect-vm');
    await page.getByRole('main').getByRole('link', { name: 'Register', exact: true }).click();
    const email = uniqueEmail('chosen');
    await page.getByLabel('Name').fill('Ritu Bansal');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Phone').fill(uniquePhone());
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL('**/register/otp');
    await page.getByLabel('OTP').fill(codeIn(await waitForMail(email, 'verification code')));
    await page.getByRole('button', { name: 'Verify' }).click();
    // Straight on to paying for it: not chosen a second time.
    await page.waitForURL('**/payment');
    await page.locator('.checkout-plan').getByText('PRO LEGEND').waitFor();
    await page.getByRole('button', { name: 'Pay ₹2,699.00' }).waitFor();
    await screenshotsAtBothWidths(page, 'details-chosen-plan-kept');
  });

  it('keeps the AutoPay tick and every return address (/history too) across a sign-in', async () => {
    const user = await registeredUser('Manoj Tiwari', 'tick');
    // The signed-out page's calls answer 401 before it moves to /login.
    const page = await browser.newPage(DESKTOP, { allowConsoleErrors: /401/ });
    await logIn(page, user.email);
    await choose(page, 'LEGEND', 30);
    await page.waitForURL('**/payment');
    const tick = page.getByRole('checkbox', { name: 'Renew automatically every month' });
    await tick.check();
    // The session ends (cookies gone, as after a sign-out elsewhere); the page asks to log in again.
    await page.context().clearCookies();
    await page.reload();
    await page.waitForURL('**/login?next=%2Fpayment');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL('**/payment');
    await expect(tick.isChecked()).resolves.toBe(true);

    // /history with its invoice named comes back to the same address.
    await page.context().clearCookies();
    await page.goto('/history?invoiceId=LC%2F2026-27%2F000001');
    await page.waitForURL('**/login?next=%2Fhistory%3FinvoiceId%3DLC%252F2026-27%252F000001');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL(/\/history\?invoiceId=LC(%2F|\/)2026-27(%2F|\/)000001$/);
    await page.getByRole('heading', { name: 'Plan history' }).waitFor();
    // It stays there: signed in, the page asks again rather than going back to /login.
    await page.getByText('Failed to load history.').or(page.getByText('No past plans found.')).waitFor();
    await expect(page.getByText('No past plans found.').count()).resolves.toBe(1);
  });

  it('an abandoned checkout is "Not completed yet" at once; an old choice is refused before Pay', async () => {
    const user = await registeredUser('Salma Khan', 'stale');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    // PRO LEGEND chosen, PayU's page opened, then left.
    await choose(page, 'PRO LEGEND', 30);
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹1,899.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    await page.goto('/history');
    const abandoned = page.locator('article.attempt-initiated').first();
    await abandoned.getByText('Not completed yet', { exact: true }).waitFor();
    await abandoned.getByText(/^Not completed yet: no money has been taken\. /).waitFor();
    await expect(page.getByText('Waiting for PayU').count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'details-not-completed-yet');

    // LEGEND bought instead; the PRO LEGEND choice is still the one waiting for payment.
    await choose(page, 'LEGEND', 30);
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹1,450.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    await page.getByRole('button', { name: 'Pay ₹1,450.00 (success)' }).click();
    await paymentVerified(page);
    await page.goto('/select-vm');
    // An old choice left behind: refused on /payment before Pay, with where to go instead.
    await page.goto('/payment');
    const refused = page.locator('.checkout-refused');
    await refused.getByText(/cannot be paid now/).waitFor();
    await refused.getByText(/Your current plan \(LEGEND, 30h\) has \d+ day\(s\) left/).waitFor();
    await expect(page.getByRole('button', { name: /^Pay / }).count()).resolves.toBe(0);
    await refused.getByRole('link', { name: 'Go to your dashboard' }).waitFor();
    await screenshotsAtBothWidths(page, 'details-stale-choice');
  });

  it('a trial names its machine, the menu reads My trial, and a second trial on the same phone names the number', async () => {
    const user = await registeredUser('Deepak Yadav', 'trial-named');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await page.goto('/trial');
    await page.getByRole('button', { name: 'Start Now' }).click();
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹40.00' }).click();
    await page.waitForURL('**/sandbox/payu/_payment');
    await page.getByRole('button', { name: 'Pay ₹40.00 (success)' }).click();
    await paymentVerified(page);
    await page.goto('/dashboard');
    await page.locator('.plan-summary').getByText('1 hour trial on LEGEND').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'My trial' }).waitFor();
    await expect(page.getByRole('link', { name: 'Renew Plan' }).count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'details-trial-named');

    // Another account with the same phone number: the refusal names the number.
    const other = await registeredUser('Kavya Reddy', 'trial-phone-used', { phone: user.phone });
    const second = await browser.newPage(MOBILE, { allowConsoleErrors: /409/ });
    await logIn(second, other.email);
    await second.goto('/trial');
    await second.getByRole('button', { name: 'Start Now' }).click();
    const shown = `+91 ${user.phone.slice(0, 5)} ${user.phone.slice(5)}`;
    await second.getByText(`The phone number ${shown} has already been used for a 1 hour trial`).waitFor();
    await expect(second.getByText('You have already used your 1 hour trial').count()).resolves.toBe(0);
    await screenshotsAtBothWidths(second, 'details-trial-phone-used');
  });
});
