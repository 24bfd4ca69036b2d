import { describe, expect, it } from 'vitest';
import { DESKTOP, hasBrowser, MOBILE, screenshot, useBrowser, type Page } from '../support/browser.ts';
import { openProfileMenu, refundedLegendPlan, registeredUser } from '../support/e2eUsers.ts';

/**
 * The delete-account dialog after a refund ended the plan: the machine is still named by its
 * plan ("LEGEND, stopped", never "(, stopped)"), and at 360 px, where the list is taller than
 * the screen, the buttons stay in view at the dialog's foot, apart from the email field and
 * off the bottom edge.
 */

const browser = useBrowser();

/** Where the dialog, its confirmation field and its buttons are, in CSS pixels. */
async function layout(page: Page) {
  return page.evaluate(() => {
    const dialog = document.querySelector('dialog[open]')!;
    const box = (selector: string) => dialog.querySelector(selector)!.getBoundingClientRect();
    const d = dialog.getBoundingClientRect();
    return {
      dialog: { top: d.top, bottom: d.bottom, height: d.height },
      contentHeight: dialog.scrollHeight,
      field: box('input[name="confirm-email"]'),
      actions: box('.modal-actions'),
      keep: box('.modal-actions .button:not(.danger)'),
      remove: box('.modal-actions .button.danger'),
    };
  });
}

async function scrollDialog(page: Page, to: 'top' | 'bottom') {
  await page.evaluate((where) => {
    const dialog = document.querySelector('dialog[open]')!;
    dialog.scrollTo(0, where === 'top' ? 0 : dialog.scrollHeight);
  }, to);
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

describe.skipIf(!hasBrowser())('the delete-account dialog', () => {
  it('names the machine after a refund and keeps its buttons in view at 360 and 1280 px', async () => {
    const user = await registeredUser('Aarav Shah', 'delete');
    const page = await browser.newPage(MOBILE);
    await refundedLegendPlan(page, user.email);

    for (const viewport of [MOBILE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.waitForFunction((width) => window.innerWidth === width, viewport.width);
      const menu = await openProfileMenu(page);
      await menu.getByRole('button', { name: 'Delete Account' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
      const machine = dialog.locator('[data-item="machine"] strong');
      await machine.waitFor();
      await expect(machine.innerText()).resolves.toMatch(/^Terminates your cloud PC \(LEGEND, [a-z ]+\)\.$/);
      await expect(dialog.getByText('Gives up your').count()).resolves.toBe(0);
      // It opens at its top, the title read first, not scrolled down to its first field.
      await expect(page.evaluate(() => document.querySelector('dialog[open]')!.scrollTop)).resolves.toBe(0);
      await expect(page.evaluate(() => document.activeElement?.className)).resolves.toContain('modal-title');
      await screenshot(page, `delete-dialog-opened-${viewport.width}`);

      // At the top of the list the buttons are already on screen, inside the dialog.
      await scrollDialog(page, 'top');
      const top = await layout(page);
      expect(top.remove.top).toBeGreaterThanOrEqual(top.dialog.top);
      expect(top.remove.bottom).toBeLessThanOrEqual(top.dialog.bottom - 12);
      expect(top.keep.bottom).toBeLessThanOrEqual(top.dialog.bottom - 12);
      await screenshot(page, `delete-dialog-top-${viewport.width}`);

      // At the end, the field and the buttons are apart, and the buttons off the bottom edge.
      await scrollDialog(page, 'bottom');
      const end = await layout(page);
      expect(end.actions.top - end.field.bottom).toBeGreaterThanOrEqual(12);
      expect(Math.min(end.keep.top, end.remove.top) - end.field.bottom).toBeGreaterThanOrEqual(24);
      expect(end.dialog.bottom - Math.max(end.keep.bottom, end.remove.bottom)).toBeGreaterThanOrEqual(12);
      await screenshot(page, `delete-dialog-end-${viewport.width}`);
      console.info(
        `delete dialog at ${viewport.width} px: ${end.contentHeight} px of content in a ${Math.round(end.dialog.height)} px dialog`,
      );
      await dialog.getByRole('button', { name: 'Keep my account' }).click();
      await expect(dialog.count()).resolves.toBe(0);
    }
  });
});
