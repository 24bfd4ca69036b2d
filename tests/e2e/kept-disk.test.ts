import { describe, expect, it } from 'vitest';
import { DESKTOP, hasBrowser, screenshotsAtBothWidths, useBrowser } from '../support/browser.ts';
import { post, registeredUser, runningLegendMachine, waitForMail } from '../support/e2eUsers.ts';
import { stackDatabase } from '../support/stackDb.ts';
import { formatLongDate } from '../../core/domain/time.ts';

/**
 * After the grace period an expired machine's disk is kept as a snapshot: the dashboard says
 * when it was saved and until when it is kept, and the checkout of a new plan promises the
 * files back. Real stack (`npm start`: worker, sandbox EC2 on the fast profile); a month cannot
 * pass in a test, so the plan's dates are moved in the stack's database and the expiry sweep is
 * run at once with the operators' `npm run jobs -- run plan-expiry`.
 */

const browser = useBrowser();
const db = stackDatabase();

describe.skipIf(!hasBrowser())('kept disk after expiry', () => {
  it('the dashboard shows when the disk was saved and until when it is kept; the checkout promises the files back', async () => {
    const user = await registeredUser('Arjun Rao', 'kept');
    const page = await browser.newPage(DESKTOP);
    await runningLegendMachine(page, user.email);

    // The plan ended more than the grace period ago.
    await db.query(
      `UPDATE subscriptions SET expires_at = now() - interval '30 days', purchased_at = now() - interval '60 days'
       WHERE user_id = (SELECT id FROM users WHERE email = $1) AND status = 'active'`,
      [user.email],
    );
    // EC2 refuses to terminate this machine's instance for half a minute: until it does, the
    // customer reads that the PC is being deleted and the files are saved, never "deleted".
    const machine = await db.one<{ instance_id: string }>(
      `SELECT v.instance_id FROM vms v JOIN users u ON u.id = v.user_id WHERE u.email = $1 AND v.state = 'running'`,
      [user.email],
    );
    const refused = await post('/sandbox/ec2/_control', {
      faults: [
        {
          action: 'TerminateInstances',
          code: 'ServiceUnavailable',
          status: 503,
          instanceId: machine!.instance_id,
          forMs: 30_000,
        },
      ],
    });
    expect(refused.status).toBe(200);
    const saved = await db.untilSwept('plan-expiry', 'the disk kept, the machine still being deleted', () =>
      db.one<{ completed_at: Date }>(
        `SELECT k.completed_at FROM vm_snapshots k JOIN vms v ON v.id = k.vm_id
         WHERE k.user_id = (SELECT id FROM users WHERE email = $1) AND k.state = 'completed'
           AND v.state = 'terminating'`,
        [user.email],
      ),
    );
    await page.goto('/dashboard');
    const deleting = page.locator('.kept-disk');
    await deleting.getByText('Your PC is being deleted; your files are saved.', { exact: false }).waitFor();
    await expect(deleting.textContent()).resolves.toContain(
      `We saved a copy of its disk on ${formatLongDate(saved.completed_at)}`,
    );
    await expect(deleting.textContent()).resolves.not.toMatch(/was deleted/);
    await screenshotsAtBothWidths(page, 'kept-disk-being-deleted');

    const kept = await db.untilSwept('vm-sync', 'the disk kept and the machine deleted', () =>
      db.one<{ completed_at: Date; keep_until: Date }>(
        `SELECT k.completed_at, k.keep_until FROM vm_snapshots k JOIN vms v ON v.id = k.vm_id
         WHERE k.user_id = (SELECT id FROM users WHERE email = $1) AND k.state = 'completed'
           AND v.state = 'terminated'`,
        [user.email],
      ),
    );
    await waitForMail(user.email, 'your files are kept until');

    await page.goto('/dashboard');
    const notice = page.locator('.kept-disk');
    await notice.getByText(formatLongDate(kept.completed_at)).waitFor();
    await expect(notice.textContent()).resolves.toContain(
      `It is kept until ${formatLongDate(kept.keep_until)}: buy any plan before then`,
    );
    await notice.getByText(`The copy will be deleted on ${formatLongDate(kept.keep_until)}.`).waitFor();
    await screenshotsAtBothWidths(page, 'kept-disk-dashboard');

    await notice.getByRole('link', { name: 'Renew Plan' }).click();
    await page.waitForURL('**/select-vm');
    const card = page.getByRole('article', { name: 'PRO LEGEND', exact: true });
    await card.getByRole('radio', { name: '30 h' }).check();
    await card.getByRole('button', { name: /^(Choose Plan|Renew Plan|Renew .+ \d+ h)$/ }).click();
    await page.waitForURL('**/payment');
    await page
      .locator('.checkout-machine')
      .getByText(
        `Your files come back: your new PC starts from the copy of your old PC's disk saved on ${formatLongDate(kept.completed_at)}.`,
      )
      .waitFor();
    await screenshotsAtBothWidths(page, 'kept-disk-checkout');
    // Half a minute of it is EC2 refusing the termination on purpose, then the sweeps that
    // follow: alone it takes about 47 s, over the browser tests' default budget on a busy stack.
  }, 150_000);
});
