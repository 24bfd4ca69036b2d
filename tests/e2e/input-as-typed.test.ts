import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshot,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { codeIn, PASSWORD, uniqueEmail, uniquePhone, waitForMail } from '../support/e2eUsers.ts';
import { EMAIL_MESSAGES } from '../../core/domain/email.ts';

/**
 * Input as people type it, in the forms: a pasted phone number is never cut ("+91", spaces and
 * dashes are fine, ten digits are stored); an email that cannot be delivered gets a sentence
 * saying why before anything is sent; the password list shows its maximum and an over-long
 * password is told so.
 */

const browser = useBrowser();
const SIZES = [
  { viewport: MOBILE, width: 360 },
  { viewport: DESKTOP, width: 1280 },
];

/** Types `text` into the field as a paste does: one input event with all of it. */
async function paste(page: Page, label: string, text: string) {
  const field = page.getByLabel(label, { exact: true });
  await field.fill('');
  await field.focus();
  await page.keyboard.insertText(text);
  return field;
}

async function fillSignUp(page: Page, values: { email: string; phone: string; password: string }) {
  await page.getByLabel('Name').fill('Ira Nair');
  await paste(page, 'Email', values.email);
  await paste(page, 'Phone', values.phone);
  await page.getByLabel('Password', { exact: true }).fill(values.password);
  await page.getByRole('button', { name: 'Register' }).click();
}

describe.skipIf(!hasBrowser())('input as people type it', () => {
  it.each(SIZES)(
    'refuses undeliverable emails and over-long passwords with a sentence at $width px',
    async ({ viewport, width }) => {
      const page = await browser.newPage(viewport);
      const sent: string[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/api/auth/register')) sent.push(request.url());
      });
      await page.goto('/register');
      const status = page.getByRole('status').filter({ hasText: /\S/ }).first();

      await fillSignUp(page, { email: '😀@😀.com', phone: '9876543210', password: PASSWORD });
      await expect(status.innerText()).resolves.toBe(EMAIL_MESSAGES.localCharacters);
      await screenshot(page, `input-email-refused-${width}`);
      await fillSignUp(page, { email: '<script>@x.com', phone: '9876543210', password: PASSWORD });
      await expect(status.innerText()).resolves.toBe(EMAIL_MESSAGES.localCharacters);
      await fillSignUp(page, { email: 'ravi@example', phone: '9876543210', password: PASSWORD });
      await expect(status.innerText()).resolves.toBe(EMAIL_MESSAGES.domain);

      await fillSignUp(page, {
        email: uniqueEmail('long'),
        phone: '9876543210',
        password: `Aa1!${'x'.repeat(300)}`,
      });
      await expect(status.innerText()).resolves.toBe('Password must be at most 128 characters.');
      const rules = page.getByRole('list', { name: 'Password rules' });
      await expect(
        rules.getByRole('listitem').filter({ hasText: 'Maximum 128 Characters' }).getAttribute('class'),
      ).resolves.toBe('failed');
      await screenshot(page, `input-password-too-long-${width}`);
      await expectNoHorizontalScroll(page, width);
      expect(sent).toEqual([]);
    },
  );

  it('keeps a pasted "+91 98765-43210" whole and signs up with its ten digits (360 px)', async () => {
    const page = await browser.newPage(MOBILE);
    await page.goto('/register');
    const digits = uniquePhone();
    const typed = `+91 ${digits.slice(0, 5)}-${digits.slice(5)}`;
    const email = uniqueEmail('pasted');
    await page.getByLabel('Name').fill('Ira Nair');
    await paste(page, 'Email', email);
    const phone = await paste(page, 'Phone', typed);
    await expect(phone.inputValue()).resolves.toBe(typed);
    await screenshot(page, 'input-phone-pasted-360');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL('**/register/otp');
    await page.getByLabel('OTP').fill(codeIn(await waitForMail(email, 'verification code')));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${baseUrl()}/`);
    const session = (await page.evaluate(() => fetch('/api/auth/session').then((r) => r.json()))) as {
      phone: string;
    };
    expect(session.phone).toBe(digits);

    // The report form takes a number written with the trunk 0 and a space, too.
    await page.goto('/report-problem');
    await page.getByLabel('Issue Title').fill('Stutter in games');
    await page.getByLabel('Description').fill('Frames drop every few seconds.');
    await paste(page, 'Phone Number', `0${digits.slice(0, 5)} ${digits.slice(5)}`);
    await page.getByRole('button', { name: 'Submit Report' }).click();
    await page.getByText('Report submitted!').waitFor();
  });
});
