import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  expectNoHorizontalScroll,
  hasBrowser,
  MOBILE,
  screenshotsAtBothWidths,
  useBrowser,
} from '../support/browser.ts';
import {
  logIn,
  logInWithPassword,
  PASSWORD,
  registeredUser,
  signUpWithGoogle,
  uniqueEmail,
  waitForMail,
} from '../support/e2eUsers.ts';
import { PASSWORD_CHANGE_MESSAGES as PC } from '../../core/domain/password.ts';

/**
 * Changing the password while signed in, on the Security page: the current password first,
 * the sign-up's checklist (its maximum length included) for the new one, every other device
 * signed out, a mail to the owner. An account made with Google sets a first password there.
 */

const browser = useBrowser();
const NEW_PASSWORD = 'N3w!Passw0rd-2026';

describe.skipIf(!hasBrowser())('password change on the Security page', () => {
  it('changes the password at 1280 px; the phone at 360 px is signed out; the new one logs in', async () => {
    const user = await registeredUser('Leela Menon', 'password');
    // The wrong current password is part of the journey: Chromium logs its 400.
    const laptop = await browser.newPage(DESKTOP, { allowConsoleErrors: /status of 400/ });
    const phone = await browser.newPage(MOBILE);
    await logIn(laptop, user.email);
    await logIn(phone, user.email);

    await laptop.goto('/account/security');
    const card = laptop.getByRole('region', { name: 'Change your password' });
    await card.getByLabel('Current password').fill('Wr0ng!Password');
    await card.getByLabel('New password').fill(NEW_PASSWORD);
    await card.getByRole('listitem').filter({ hasText: 'Maximum 128 Characters' }).waitFor();
    await card.getByRole('button', { name: 'Change password' }).click();
    await card.getByText(PC.currentWrong).waitFor();

    await card.getByLabel('Current password').fill(PASSWORD);
    await card.getByRole('button', { name: 'Change password' }).click();
    await card.getByText(PC.changed).waitFor();
    await expect(card.getByLabel('New password').inputValue()).resolves.toBe('');
    await screenshotsAtBothWidths(laptop, 'security-password-changed');
    await waitForMail(user.email, 'Your Legend Cloud password was changed');

    // The other device is signed out, and told why: its next page asks it to log in.
    await phone.goto('/dashboard');
    await phone.waitForURL('**/login?next=%2Fdashboard');
    await phone.getByText('You were signed out because the password was changed.').waitFor();
    await screenshotsAtBothWidths(phone, 'signed-out-password-changed');
    // This one stays signed in.
    await laptop.goto('/dashboard');
    await laptop.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor();
    await logInWithPassword(phone, user.email, NEW_PASSWORD);
    await phone.waitForURL(`${baseUrl()}/`);
  });

  it('says an over-long new password is too long, with the maximum on the list (360 px)', async () => {
    const user = await registeredUser('Om Prakash', 'password');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    await page.goto('/account/security');
    const card = page.getByRole('region', { name: 'Change your password' });
    await card.getByLabel('Current password').fill(PASSWORD);
    await card.getByLabel('New password').fill(`Aa1!${'x'.repeat(300)}`);
    const max = card.getByRole('listitem').filter({ hasText: 'Maximum 128 Characters' });
    await expect(max.getAttribute('class')).resolves.toBe('failed');
    await card.getByRole('button', { name: 'Change password' }).click();
    await card.getByText('Password must be at most 128 characters.').waitFor();
    await expectNoHorizontalScroll(page, MOBILE.width);
    await screenshotsAtBothWidths(page, 'security-password-too-long');
  });

  it('lets an account made with Google set a first password (360 px), then log in with it', async () => {
    const email = uniqueEmail('google-pw');
    const page = await browser.newPage(MOBILE);
    await signUpWithGoogle(page, 'Sana Khan', email, '/account/security');
    const card = page.getByRole('region', { name: 'Set a password' });
    await card.getByText('You signed up with Google.').waitFor();
    await expect(card.getByLabel('Current password').count()).resolves.toBe(0);
    await card.getByLabel('New password').fill(NEW_PASSWORD);
    await card.getByRole('button', { name: 'Set password' }).click();
    await page.getByText(PC.set).waitFor();
    await page.getByRole('region', { name: 'Change your password' }).waitFor();
    await screenshotsAtBothWidths(page, 'security-password-set');
    await waitForMail(email, 'A password was set on your Legend Cloud account');

    const other = await browser.newPage(DESKTOP);
    await logInWithPassword(other, email, NEW_PASSWORD);
    await other.waitForURL(`${baseUrl()}/`);
  });
});
