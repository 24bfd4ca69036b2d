import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshot,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { logIn, paymentVerified, registeredUser, waitForMail } from '../support/e2eUsers.ts';

const browser = useBrowser();

const card = (page: Page, plan: string) => page.getByRole('article', { name: plan, exact: true });

/** On /select-vm: picks the hours on a plan's card and presses its button. */
async function choosePlan(page: Page, plan: string, hours: number) {
  const planCard = card(page, plan);
  await planCard.getByRole('radio', { name: `${hours} h` }).check();
  await planCard.getByRole('button', { name: /^(Choose Plan|Renew Plan)$/ }).click();
}

/** From /payment through the sandbox's PayU page and back. */
async function payOnPayU(page: Page, amount: string, outcome: 'success' | 'failure', shots?: string) {
  await page.getByRole('button', { name: `Pay ${amount}` }).click();
  await page.waitForURL('**/sandbox/payu/_payment');
  await page.getByText('PayU checkout').first().waitFor();
  if (shots) await screenshot(page, shots);
  await page
    .getByRole('button', { name: outcome === 'success' ? `Pay ${amount} (success)` : 'Fail payment' })
    .click();
}

describe.skipIf(!hasBrowser())('plans and payments in the browser', () => {
  it('shows plans to a visitor and sends them to log in on Choose Plan', async () => {
    for (const [viewport, size] of [
      [MOBILE, 360],
      [DESKTOP, 1280],
    ] as const) {
      const page = await browser.newPage(viewport);
      await page.goto('/select-vm');
      await card(page, 'ULTRA LEGEND').waitFor();
      await expect(
        page.getByRole('main').getByRole('heading', { level: 2 }).allTextContents(),
      ).resolves.toEqual(['LEGEND', 'PRO LEGEND', 'ULTRA LEGEND']);
      const legend = card(page, 'LEGEND');
      // Each card starts on the smallest bundle with its price, and says where prices start.
      await expect(legend.getByRole('radio', { name: '30 h' }).isChecked()).resolves.toBe(true);
      await expect(legend.locator('.pricing-price').innerText()).resolves.toContain('₹1,450.00');
      await expect(legend.getByText(/^from ₹1,450\.00/).isVisible()).resolves.toBe(true);
      await expect(legend.getByText('115 GB / month').isVisible()).resolves.toBe(true);
      const info = legend.getByRole('button', { name: 'About LEGEND' });
      await expect(legend.getByText(/everyday high-level work/).isVisible()).resolves.toBe(false);
      await info.click();
      await expect(legend.getByText(/everyday high-level work/).isVisible()).resolves.toBe(true);
      await legend.getByRole('radio', { name: '45 h' }).check();
      await legend.getByText('₹1,830.00').waitFor();
      await card(page, 'ULTRA LEGEND').getByRole('radio', { name: '90 h' }).check();
      await card(page, 'ULTRA LEGEND').getByText('₹4,299.00').waitFor();
      await screenshot(page, `plans-select-vm-visitor-${size}`);
      if (size === 1280) {
        // No native alert: the login page says why, and keeps the choice for afterwards.
        await legend.getByRole('button', { name: 'Choose Plan' }).click();
        await page.waitForURL('**/login?next=%2Fselect-vm');
        await page.getByText(/^Please login or register before purchasing a plan\./).waitFor();
      }
    }
  });

  it('goes straight to payment on Choose Plan with the default hours, no error first', async () => {
    const user = await registeredUser('Meera Iyer', 'buyer');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await page.goto('/select-vm');
    await card(page, 'PRO LEGEND').getByRole('button', { name: 'Choose Plan' }).click();
    await page.waitForURL('**/payment');
    await page.getByText('₹1,899.00').first().waitFor();
  });

  it('buys LEGEND 45 h through the PayU checkout, then sees the plan block, history and the printable invoice', async () => {
    const user = await registeredUser('Meera Iyer', 'buyer');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await page.goto('/select-vm');
    await choosePlan(page, 'LEGEND', 45);

    await page.waitForURL('**/payment');
    await page.getByRole('heading', { name: 'Confirm & Pay' }).waitFor();
    await expect(page.getByRole('region', { name: 'Your plan' }).innerText()).resolves.toContain('LEGEND');
    await page.getByText('₹1,830.00').first().waitFor();
    await screenshot(page, 'plans-payment-1280');
    await payOnPayU(page, '₹1,830.00', 'success', 'plans-payu-checkout-1280');

    await page.waitForURL(/\/payment-success\?txnid=/);
    await paymentVerified(page);
    // A warm-pool machine can move the page on to the dashboard before this line is read.
    await page
      .getByText('Payment verified. Your Virtual Computer is on the way. Please wait…')
      .or(page.getByRole('heading', { name: 'Dashboard', exact: true }))
      .first()
      .waitFor();
    await screenshot(page, 'plans-payment-success-1280');
    const receipt = await waitForMail(user.email, 'Payment received');
    const invoiceId = /Invoice: (LC\/\d{4}-\d{2}\/\d{6})/.exec(receipt.text)![1]!;

    // The plan now blocks another purchase: the note replaces the buttons.
    await page.goto('/select-vm');
    await page
      .getByText(/^You already have a LEGEND plan active until \d{1,2} \w+ \d{4}\.$/)
      .first()
      .waitFor();
    await expect(page.getByRole('button', { name: /Choose Plan|Renew Plan/ }).count()).resolves.toBe(0);
    await screenshot(page, 'plans-select-vm-active-1280');

    // History highlights the invoice named in the URL and scrolls it into view.
    await page.goto(`/history?invoiceId=${encodeURIComponent(invoiceId)}`);
    const highlighted = page.getByRole('article', { name: `Invoice ${invoiceId}` });
    await highlighted.waitFor();
    await expect(highlighted.getAttribute('aria-current')).resolves.toBe('true');
    await expect(highlighted.innerText()).resolves.toContain('₹1,830.00');
    await expect(highlighted.isVisible()).resolves.toBe(true);
    await screenshot(page, 'plans-history-1280');

    await highlighted.getByRole('link', { name: 'View invoice' }).click();
    await page.waitForURL('**/invoice?invoiceId=*');
    await page.getByRole('heading', { name: 'Tax Invoice' }).waitFor();
    const doc = page.getByRole('article', { name: `Tax invoice ${invoiceId}` });
    const text = await doc.innerText();
    expect(text).toContain('GSTIN');
    expect(text).toContain('CGST @ 9%');
    expect(text).toContain('SGST @ 9%');
    expect(text).toContain('₹1,550.85'); // 1830 / 1.18, GST inclusive
    expect(text).toContain('₹1,830.00');
    await screenshot(page, 'plans-invoice-1280');
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('banner').isVisible()).resolves.toBe(false);
    await expect(page.getByRole('button', { name: 'Print / Save as PDF' }).isVisible()).resolves.toBe(false);
    await screenshot(page, 'plans-invoice-print-1280');
  });

  it('on a phone: pays, reads history and the invoice at 360 px', async () => {
    const user = await registeredUser('Dev Patel', 'buyer');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    await page.goto('/select-vm');
    await choosePlan(page, 'ULTRA LEGEND', 30);
    await page.waitForURL('**/payment');
    await page.getByRole('button', { name: 'Pay ₹2,299.00' }).waitFor();
    await screenshot(page, 'plans-payment-360');
    await payOnPayU(page, '₹2,299.00', 'success', 'plans-payu-checkout-360');
    await paymentVerified(page);
    await screenshot(page, 'plans-payment-success-360');
    await page.goto('/history');
    await page.getByRole('article', { name: /^Invoice LC\// }).waitFor();
    await screenshot(page, 'plans-history-360');
    await page.getByRole('link', { name: 'View invoice' }).click();
    await page.getByRole('heading', { name: 'Tax Invoice' }).waitFor();
    await screenshot(page, 'plans-invoice-360');
  });

  it('a failed payment shows "Payment failed" and returns home after 5 seconds', async () => {
    const user = await registeredUser('Meera Iyer', 'buyer');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    await page.goto('/select-vm');
    await choosePlan(page, 'PRO LEGEND', 30);
    await page.waitForURL('**/payment');
    await payOnPayU(page, '₹1,899.00', 'failure');
    await page.waitForURL(/\/payment-failure/);
    await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
    const failedAt = Date.now();
    await screenshot(page, 'plans-payment-failure-360');
    await page.waitForURL(`${baseUrl()}/`, { timeout: 10_000 });
    expect(Date.now() - failedAt).toBeGreaterThan(3_500);
  });

  it('a trial: rotate to PRO LEGEND, Start Now, pay ₹45 through the same checkout', async () => {
    const visitor = await browser.newPage(DESKTOP);
    await visitor.goto('/trial');
    await visitor.getByRole('button', { name: 'Start Now' }).click();
    await visitor.waitForURL('**/login?next=%2Ftrial');
    await visitor.getByText(/^Please login first/).waitFor();

    const user = await registeredUser('Tara Singh', 'buyer');
    const page = await browser.newPage(MOBILE);
    await logIn(page, user.email);
    await page.goto('/trial');
    await page.getByRole('heading', { name: 'LEGEND', exact: true }).waitFor();
    await page.getByText('₹40.00').waitFor();
    await page.getByRole('button', { name: 'Next plan' }).click();
    await page.getByRole('heading', { name: 'PRO LEGEND' }).waitFor();
    await page.getByText('₹45.00').waitFor();
    await screenshot(page, 'plans-trial-360');
    await page.getByRole('button', { name: 'Start Now' }).click();
    await page.waitForURL('**/payment');
    await page.getByText('Trial · PRO LEGEND').waitFor();
    await payOnPayU(page, '₹45.00', 'success');
    await paymentVerified(page);

    // One trial per account: once had, it is no longer offered (no refusal after the click).
    await page.goto('/trial');
    await page.getByText('The 1 hour trial is for newcomers').waitFor();
    await expect(page.getByRole('button', { name: 'Start Now' }).count()).resolves.toBe(0);
  });
});
