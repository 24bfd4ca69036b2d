import { describe, expect, it } from 'vitest';
import {
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshotsAtBothWidths,
  useBrowser,
} from '../support/browser.ts';
import { signUpWithGoogle, uniqueEmail, uniquePhone } from '../support/e2eUsers.ts';

/**
 * A trial for an account without a phone number (made with Google) is no dead end: /trial asks
 * for the number inline, as /payment does, and "Save and continue" goes on to pay for the trial.
 */

const browser = useBrowser();
const SIZES = [
  { viewport: MOBILE, width: 360 },
  { viewport: DESKTOP, width: 1280 },
];

describe.skipIf(!hasBrowser())('trial without a phone', () => {
  it.each(SIZES)(
    'asks for the number on /trial, then goes on to pay at $width px',
    async ({ viewport, width }) => {
      const page = await browser.newPage(viewport);
      await signUpWithGoogle(page, 'Imran Shaikh', uniqueEmail('trial-phone'), '/trial');
      await page.getByRole('button', { name: 'Next plan' }).click();
      await page.getByRole('heading', { name: 'PRO LEGEND' }).waitFor();
      const step = page.getByRole('region', { name: 'Add your phone number' });
      await step.getByText('The 1 hour trial is one per mobile number').waitFor();
      await expect(page.getByRole('button', { name: 'Start Now' }).count()).resolves.toBe(0);
      await expectNoHorizontalScroll(page, width);
      await screenshotsAtBothWidths(page, `trial-phone-step-from-${width}`);

      // Pasted with the country code and spaces: kept whole, stored as ten digits.
      const digits = uniquePhone();
      const typed = `+91 ${digits.slice(0, 5)} ${digits.slice(5)}`;
      const field = step.getByLabel('Mobile number');
      await field.focus();
      await page.keyboard.insertText(typed);
      await expect(field.inputValue()).resolves.toBe(typed);
      await step.getByRole('button', { name: 'Save and continue' }).click();

      await page.waitForURL('**/payment');
      await page.getByText('Trial · PRO LEGEND').waitFor();
      await page.getByRole('button', { name: 'Pay ₹45.00' }).waitFor();
      const session = (await page.evaluate(() => fetch('/api/auth/session').then((r) => r.json()))) as {
        phone: string;
      };
      expect(session.phone).toBe(digits);
    },
  );
});
