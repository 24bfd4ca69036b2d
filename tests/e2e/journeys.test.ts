import { describe, expect, it } from 'vitest';
import { baseUrl, DESKTOP, hasBrowser, MOBILE, screenshot, useBrowser } from '../support/browser.ts';
import {
  buy,
  codeIn,
  logIn,
  openProfileMenu,
  PASSWORD,
  paymentVerified,
  registeredUser,
  uniqueEmail,
  waitForMail,
} from '../support/e2eUsers.ts';

/**
 * No dead ends: each journey at both widths. Signing in returns to the page that asked for it;
 * a trial chosen before registering is still chosen afterwards (through a reload of the code
 * step); invoices are reachable from the dashboard and the profile menu; deleting an account
 * with a running machine says what is destroyed and needs the typed email. The shared browser
 * support fails any of these on a console error or a native dialog.
 */

const browser = useBrowser();
const SIZES = [
  { viewport: MOBILE, width: 360 },
  { viewport: DESKTOP, width: 1280 },
];

describe.skipIf(!hasBrowser())('customer journeys without dead ends', () => {
  it.each(SIZES)(
    'returns to the dashboard after signing in from it at $width px',
    async ({ viewport, width }) => {
      const user = await registeredUser('Kabir Mehta', 'journey');
      const page = await browser.newPage(viewport);
      await page.goto('/dashboard');
      await page.waitForURL('**/login?next=%2Fdashboard');
      await page.getByText('Please login first. You will go straight back to where you were.').waitFor();
      await screenshot(page, `journeys-login-return-${width}`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Login', exact: true }).click();
      await page.waitForURL(`${baseUrl()}/dashboard`);
      await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor();
      await expect(page.title()).resolves.toBe('Dashboard · Legend Cloud');
    },
  );

  it('returns to the page that asked after an emailed-code login, and never to another site', async () => {
    const user = await registeredUser('Kabir Mehta', 'journey');
    const page = await browser.newPage(DESKTOP);
    await page.goto('/progress');
    await page.waitForURL('**/login?next=%2Fprogress');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Login via OTP').check();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send' }).click();
    const code = codeIn(await waitForMail(user.email, 'login code'));
    await page.getByLabel('OTP', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Verify & Login' }).click();
    await page.waitForURL(`${baseUrl()}/progress`);

    // A `next` naming another origin is ignored: the login lands at home.
    const other = await browser.newPage(DESKTOP);
    await other.goto('/login?next=%2F%2Fevil.example%2F');
    await other.getByLabel('Email').fill(user.email);
    await other.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await other.getByRole('button', { name: 'Login', exact: true }).click();
    await other.waitForURL(`${baseUrl()}/`);
  });

  it('returns to the page that asked after signing in with Google (sandbox)', async () => {
    const page = await browser.newPage(MOBILE);
    await page.goto('/account/security');
    await page.waitForURL('**/login?next=%2Faccount%2Fsecurity');
    await page.getByRole('button', { name: 'Continue with Google' }).click();
    await page.waitForURL('**/sandbox/google/authorize?**');
    await page.getByLabel('Name', { exact: true }).fill('Sana Khan');
    await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('google'));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${baseUrl()}/account/security`);
    await page.getByText('Two-factor sign-in is off').waitFor();
  });

  it.each(SIZES)(
    'keeps the trial chosen before registering, through a reload of the code step at $width px',
    async ({ viewport, width }) => {
      const page = await browser.newPage(viewport);
      await page.goto('/trial');
      await page.getByRole('button', { name: 'Next plan' }).click();
      await page.getByRole('heading', { name: 'PRO LEGEND' }).waitFor();
      await page.getByRole('button', { name: 'Start Now' }).click();
      await page.waitForURL('**/login?next=%2Ftrial');
      await page.getByText(/^Please login first\. Your trial choice is kept/).waitFor();
      await page.getByRole('main').getByRole('link', { name: 'Register', exact: true }).click();
      await page.waitForURL('**/register?next=%2Ftrial');

      const email = uniqueEmail('trial');
      await page.getByLabel('Name').fill('Ira Nair');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Phone').fill(`9${String(Date.now()).slice(-9)}`);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Register' }).click();
      await page.waitForURL('**/register/otp');
      await page.getByText(email).waitFor();

      // A reload keeps the step and who it is for.
      await page.reload();
      await page.getByText(email).waitFor();
      await expect(page.title()).resolves.toBe('Confirm your email · Legend Cloud');
      await screenshot(page, `journeys-register-code-reloaded-${width}`);
      const code = codeIn(await waitForMail(email, 'verification code'));
      await page.getByLabel('OTP').fill(code);
      await page.getByRole('button', { name: 'Verify' }).click();

      await page.waitForURL(`${baseUrl()}/trial`);
      await page.getByRole('heading', { name: 'PRO LEGEND' }).waitFor();
      await page.getByText('₹45.00').waitFor();
      await screenshot(page, `journeys-trial-kept-${width}`);
      await page.getByRole('button', { name: 'Start Now' }).click();
      await page.waitForURL('**/payment');
      await page.getByText('Trial · PRO LEGEND').waitFor();
    },
  );

  it.each(SIZES)(
    'reaches the invoices from the dashboard and the profile menu; nav says My plan at $width px',
    async ({ viewport, width }) => {
      const user = await registeredUser('Dev Anand', 'journey');
      const page = await browser.newPage(viewport);
      await logIn(page, user.email);
      await buy(page, 'LEGEND', 30, '₹1,450.00');
      await paymentVerified(page);
      await page.goto('/dashboard');
      await page.getByRole('link', { name: 'Invoices', exact: true }).click();
      await page.waitForURL('**/history');
      await page
        .getByText(/LC\/\d{4}-\d{2}\/\d{6}/)
        .first()
        .waitFor();

      await page.goto('/dashboard');
      const menu = await openProfileMenu(page);
      await screenshot(page, `journeys-profile-menu-${width}`);
      await menu.getByRole('link', { name: 'Invoices & plan history' }).click();
      await page.waitForURL('**/history');

      // With a plan in force, the nav does not promise a renewal the cards would refuse.
      await page.goto('/select-vm');
      const nav = page.getByRole('navigation', { name: 'Main', includeHidden: true });
      await nav.getByRole('link', { name: 'My plan', includeHidden: true }).waitFor({ state: 'attached' });
      await expect(nav.getByRole('link', { name: 'Renew Plan', includeHidden: true }).count()).resolves.toBe(
        0,
      );
      await page.getByText(/^Your LEGEND plan \(30 hours\) runs until/).waitFor();
      await screenshot(page, `journeys-my-plan-${width}`);
    },
  );

  it.each(SIZES)(
    'deletes an account with a running machine only after the typed email, listing what goes at $width px',
    async ({ viewport, width }) => {
      const user = await registeredUser('Ravi Kumar', 'journey');
      const page = await browser.newPage(viewport);
      await logIn(page, user.email);
      await buy(page, 'LEGEND', 30, '₹1,450.00');
      await paymentVerified(page);
      await page.goto('/dashboard');
      await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });

      // STOP asks in the product's own dialog; keeping it running changes nothing.
      await page.getByRole('button', { name: 'STOP VM' }).click();
      const stop = page.getByRole('dialog', { name: 'Stop your cloud PC?' });
      await stop.getByText('Save your work first').waitFor();
      await screenshot(page, `journeys-stop-dialog-${width}`);
      await stop.getByRole('button', { name: 'Keep it running' }).click();
      await expect(stop.count()).resolves.toBe(0);
      await expect(page.locator('[data-field="status"]').innerText()).resolves.toBe('Running');

      const menu = await openProfileMenu(page);
      await menu.getByRole('button', { name: 'Delete Account' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
      const destroys = dialog.getByTestId('deletion-destroys');
      await destroys.getByText('Terminates your cloud PC (LEGEND, running).').waitFor();
      await destroys.getByText('Deletes its disk').waitFor();
      await destroys.getByText('Deletes any snapshot of its disk').waitFor();
      await destroys.getByText(/Gives up your LEGEND plan and the \d+ h \d\d min left on it/).waitFor();
      await dialog
        .getByTestId('deletion-keeps')
        .getByText('Your invoices and payment records are kept for 8 years')
        .waitFor();
      await dialog.getByText('Your name, email address and phone number are removed from them').waitFor();
      const confirm = dialog.getByRole('button', { name: 'Delete my account' });
      await expect(confirm.isDisabled()).resolves.toBe(true);
      const typed = dialog.getByLabel(`Type ${user.email} to confirm`);
      await typed.fill(`${user.email}x`);
      await expect(confirm.isDisabled()).resolves.toBe(true);
      await screenshot(page, `journeys-delete-dialog-${width}`);
      await typed.fill(user.email);
      await confirm.click();
      await page.waitForURL(`${baseUrl()}/`);
      const mail = await waitForMail(user.email, 'account has been deleted');
      expect(mail.text).toContain('- Your cloud PC is shut down and terminated');
      expect(mail.text).toContain('- Its disk is deleted, with every file on it.');
    },
  );
});
