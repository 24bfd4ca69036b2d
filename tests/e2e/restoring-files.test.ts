import pg from 'pg';
import { afterAll, describe, inject, it } from 'vitest';
import { DESKTOP, hasBrowser, screenshotsAtBothWidths, useBrowser } from '../support/browser.ts';
import { logIn, registeredUser } from '../support/e2eUsers.ts';
import { VM_MESSAGES } from '../../core/domain/vm.ts';

/**
 * A customer who renews while the copy of their expired machine's disk is still being saved:
 * the dashboard says the files are coming back and the new PC waits for the copy. Real stack
 * (`npm start`: worker, sandbox EC2); the expiry, the deleted machine and the copy in the
 * making are written in the stack's database, since a month and a snapshot's minutes cannot
 * pass in a test. The worker leaves the new machine waiting (the lifecycle's `wait`).
 */

const browser = useBrowser();
const db = hasBrowser() ? new pg.Pool({ connectionString: inject('stackDatabaseUrl'), max: 2 }) : null;
afterAll(async () => {
  await db?.end();
});

describe.skipIf(!hasBrowser())('renewal while the old disk is being copied', () => {
  it('the dashboard says the files are coming back while the new PC waits for the copy', async () => {
    const user = await registeredUser('Meera Iyer', 'restoring');
    await db!.query(
      `WITH u AS (SELECT id FROM users WHERE email = $1),
       old_plan AS (
         INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                    status, purchased_at, expires_at)
         SELECT id, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 149900, 'expired',
                now() - interval '40 days', now() - interval '10 days' FROM u
         RETURNING id, user_id),
       old_vm AS (
         INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state)
         SELECT user_id, id, 'legend', 'g4dn.xlarge', 115, 'terminated' FROM old_plan
         RETURNING id, user_id),
       copy AS (
         INSERT INTO vm_snapshots (user_id, vm_id, volume_gb, instance_type, created_at, keep_until)
         SELECT user_id, id, 115, 'g4dn.xlarge', now(), now() + interval '30 days' FROM old_vm
         RETURNING id, user_id),
       new_plan AS (
         INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                    status, purchased_at, expires_at)
         SELECT id, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 149900, 'active',
                now(), now() + interval '30 days' FROM u
         RETURNING id, user_id)
       INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, restore_snapshot_id)
       SELECT new_plan.user_id, new_plan.id, 'legend', 'g4dn.xlarge', 115, 'requested', copy.id
       FROM new_plan, copy`,
      [user.email],
    );

    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    await page.goto('/dashboard');
    await page.locator('.dashboard-notice').getByText(VM_MESSAGES.restoringFiles).waitFor();
    // The card says what it waits for, not "first boot takes a few minutes".
    await page.locator('[data-field="status"]').getByText(VM_MESSAGES.waitingForDiskCopy).waitFor();
    await screenshotsAtBothWidths(page, 'restoring-files-dashboard');
  });
});
