import { describe, expect, it } from 'vitest';
import { DESKTOP, hasBrowser, screenshotsAtBothWidths, useBrowser } from '../support/browser.ts';
import { post, registeredUser, runningLegendMachine } from '../support/e2eUsers.ts';
import { stackDatabase } from '../support/stackDb.ts';
import { formatLongDate } from '../../core/domain/time.ts';

/**
 * EC2 schedules the retirement of the hardware a customer's running PC is on: the dashboard says
 * so with the date, and that the PC restarts on new hardware while they are not connected, or
 * before then at the latest. Real stack (`npm start`: worker, sandbox EC2); the event is
 * scheduled through the sandbox's `_control`, and the `vm-events` sweep run now with the
 * operators' `npm run jobs -- run vm-events`.
 */

const browser = useBrowser();
const db = stackDatabase();

describe.skipIf(!hasBrowser())('a hardware event on a running PC', () => {
  it('the dashboard says the date and what will happen', async () => {
    const user = await registeredUser('Kavya Menon', 'retiring');
    const page = await browser.newPage(DESKTOP);
    await runningLegendMachine(page, user.email);
    const machine = await db.one<{ id: string; instance_id: string }>(
      `SELECT v.id, v.instance_id FROM vms v JOIN users u ON u.id = v.user_id WHERE u.email = $1 AND v.state = 'running'`,
      [user.email],
    );
    const scheduled = await post('/sandbox/ec2/_control', {
      events: [{ instanceId: machine!.instance_id, code: 'instance-retirement', inMs: 3 * 86_400_000 }],
    });
    expect(scheduled.status).toBe(200);
    const event = await db.untilSwept('vm-events', 'the event seen and the customer warned', () =>
      db.one<{ not_before: Date }>(
        `SELECT e.not_before FROM machine_events e JOIN vms v ON v.id = e.vm_id
         WHERE e.vm_id = $1 AND v.problem IS NOT NULL`,
        [machine!.id],
      ),
    );

    await page.goto('/dashboard');
    const notice = page.locator('.dashboard-notice').first();
    await notice
      .getByText(`Amazon is retiring the hardware your PC runs on, on ${formatLongDate(event.not_before)}`, {
        exact: false,
      })
      .waitFor();
    await expect(notice.textContent()).resolves.toMatch(/the next time you are not connected/);
    // Still running: nothing is stopped while the customer may be using it.
    await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor();
    await screenshotsAtBothWidths(page, 'hardware-event-dashboard');
  });
});
