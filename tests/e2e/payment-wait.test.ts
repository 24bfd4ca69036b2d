import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  hasBrowser,
  screenshotsAtBothWidths,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { logIn, registeredUser } from '../support/e2eUsers.ts';
import { useOwnStack } from '../support/ownStack.ts';
import { stackDatabase } from '../support/stackDb.ts';
import { waitFor } from '../support/waitFor.ts';

/**
 * The wait after paying on the `aws` sandbox timings (a start from stopped 40–90 s, a Windows
 * launch 4–6 minutes to its password), at 360 and 1280 px: the payment-success page shows each
 * phase (checking the payment, the machine being prepared or started, Remote Desktop being
 * checked), an estimate from the recorded provisions, a link to the dashboard after 20 s, and the
 * dashboard the same progress. The sandbox's clock is moved on (`advanceMs`) between phases
 * rather than waited for, and a machine's Remote Desktop listener is held shut so that phase can
 * be seen.
 *
 * Its stack is its own: a sandbox on the `aws` timings whose clock has moved minutes on would
 * change what every later file sees of its machines (CloudWatch answers from a machine's launch up
 * to the sandbox's clock). Only PRO LEGEND keeps a warm pool there, so a PRO LEGEND purchase
 * claims a spare and a LEGEND purchase is a fresh launch, by configuration, whatever the pool's
 * timing.
 */

useOwnStack(
  {
    SANDBOX_PROFILE: 'aws',
    WARM_POOL_SIZE: 'pro-legend=1',
    // The machines' states are what this test waits on, and the sandbox's clock is moved rather
    // than waited for: the worker looks every second (as on the fast profile), not every 10 s.
    VM_POLL_SECONDS: '1',
  },
  'payment-wait',
);
const browser = useBrowser();
const db = stackDatabase();
/** Two machines through every phase, each wait one for a state: generous on a shared, loaded machine. */
const TEST_TIMEOUT_MS = 300_000;
const userId = `(SELECT id FROM users WHERE email = $1)`;

async function ec2(body: Record<string, unknown>) {
  const response = await fetch(`${baseUrl()}/sandbox/ec2/_control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function payu(body: Record<string, unknown>) {
  const response = await fetch(`${baseUrl()}/sandbox/payu/_control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/**
 * Provisions as the `aws` profile records them (spares ready 60–110 s after payment, launches
 * 260–340 s), so the estimate is a measured one: what the landing page's figure is made from too.
 */
async function recordAwsProvisions() {
  const owner = await registeredUser('Recorded Provisions', 'wait-history');
  await db.query(
    `INSERT INTO subscriptions (user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                status, purchased_at, expires_at)
     VALUES (${userId}, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000, 'expired',
             now() - interval '40 days', now() - interval '10 days')`,
    [owner.email],
  );
  await db.query(
    `INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, instance_id, source,
                      requested_at, ready_at, terminated_at)
     SELECT u.id, s.id, 'legend', 'g4dn.xlarge', 115, 'terminated', 'i-' || lpad(to_hex(n + kind * 1000), 17, '0'),
            CASE kind WHEN 0 THEN 'pool' ELSE 'launch' END,
            now() - interval '2 hours' - make_interval(secs => CASE kind WHEN 0 THEN 60 + 2 * n ELSE 260 + 3 * n END),
            now() - interval '2 hours', now() - interval '2 hours'
     FROM users u JOIN subscriptions s ON s.user_id = u.id, generate_series(0, 24) AS n, generate_series(0, 1) AS kind
     WHERE u.email = $1`,
    [owner.email],
  );
}

/** /select-vm → `plan` 30 h → /payment → PayU's page; answers the payment's txnid (not yet paid). */
async function toPayU(page: Page, email: string, plan: string, amount: string): Promise<string> {
  await page.goto('/select-vm');
  const card = page.getByRole('article', { name: plan, exact: true });
  await card.getByRole('radio', { name: '30 h' }).check();
  await card.getByRole('button', { name: /^(Choose Plan|Renew Plan)$/ }).click();
  await page.waitForURL('**/payment');
  await page.getByRole('button', { name: `Pay ${amount}` }).click();
  await page.waitForURL('**/sandbox/payu/_payment');
  const payment = await db.one<{ txnid: string }>(
    `SELECT txnid FROM payments WHERE user_id = ${userId} ORDER BY created_at DESC LIMIT 1`,
    [email],
  );
  return payment!.txnid;
}

/**
 * The stack's PRO LEGEND spare through its first boot (4–6 sandbox minutes) and its stop: the
 * sandbox's clock moved on a minute at a time while it is launched and not yet ready.
 */
async function readySpare(): Promise<void> {
  let last: { state: string; instance_id: string | null; problem: string | null } | undefined;
  await waitFor(
    () => `the PRO LEGEND spare to be ready (last seen: ${JSON.stringify(last ?? null)})`,
    async () => {
      last = await db.one(
        `SELECT state, instance_id, problem FROM pool_instances WHERE plan_id = 'pro-legend'
         ORDER BY created_at LIMIT 1`,
        [],
      );
      if (last?.state === 'failed') throw new Error(`the PRO LEGEND spare failed: ${last.problem}`);
      if (last?.state === 'ready') return true;
      if (last?.instance_id) await ec2({ advanceMs: 60_000 });
      return false;
    },
    120_000,
    1_000,
  );
}

const step = (page: Page, name: string) => page.locator('.setup-steps li.is-current', { hasText: name });

async function instanceOf(email: string): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      async () =>
        (found =
          (
            await db.one<{ instance_id: string | null }>(
              `SELECT instance_id FROM vms WHERE user_id = ${userId} AND state <> 'terminated'`,
              [email],
            )
          )?.instance_id ?? undefined),
      { timeout: 20_000 },
    )
    .toBeDefined();
  return found!;
}

describe.skipIf(!hasBrowser())('the wait after paying (aws timings)', { timeout: TEST_TIMEOUT_MS }, () => {
  it('shows each phase with an estimate, links to the dashboard after 20 s, and the dashboard shows the same', async () => {
    await recordAwsProvisions();
    await readySpare();
    // Only PRO LEGEND has a warm pool here: the LEGEND purchase below can only be a launch.
    await expect(
      db.one<{ count: number }>(
        `SELECT count(*)::int AS count FROM pool_instances WHERE plan_id <> 'pro-legend'`,
        [],
      ),
    ).resolves.toEqual({ count: 0 });

    // A warm-pool spare: checking the payment → starting → checking Remote Desktop → ready.
    const user = await registeredUser('Vikram Sethi', 'wait-spare');
    const page = await browser.newPage(DESKTOP);
    await logIn(page, user.email);
    const txnid = await toPayU(page, user.email, 'PRO LEGEND', '₹1,899.00');
    // The bank keeps it pending at the first check: the page waits on the payment.
    await payu({ action: 'script-verify', txnid, statuses: ['pending', 'success'] });
    await page.getByRole('button', { name: 'Pay ₹1,899.00 (success)' }).click();
    await page.waitForURL(/\/payment-success\?txnid=/);
    await step(page, 'Checking your payment with PayU…').waitFor();
    await screenshotsAtBothWidths(page, 'wait-phase-payment');

    // Once PayU has answered "pending" (its first check done), its webhook comes again: checked,
    // paid; the claimed spare is starting.
    await expect
      .poll(
        async () => {
          const state = (await (await fetch(`${baseUrl()}/sandbox/payu/_state?txnid=${txnid}`)).json()) as {
            transactions: Array<{ verifyCalls: number }>;
          };
          return state.transactions[0]?.verifyCalls ?? 0;
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
    await payu({ action: 'replay', txnid, to: 'webhook' });
    await page.getByRole('heading', { name: 'Payment successful!' }).waitFor({ timeout: 20_000 });
    await step(page, 'Starting').waitFor({ timeout: 20_000 });
    await expect(
      page.locator('.setup-steps li', { hasText: 'Machine being prepared' }).count(),
    ).resolves.toBe(0);
    const estimate = page.locator('.setup-estimate');
    await expect(estimate.getAttribute('data-measured')).resolves.toBe('true');
    await expect(estimate.innerText()).resolves.toMatch(
      /^Usually ready about \d+ (seconds|minutes?) after payment\. About \d+ (seconds|minutes?) to go; 9 in 10 are ready within \d+ (seconds|minutes?)\.$/,
    );
    await screenshotsAtBothWidths(page, 'wait-phase-starting');

    // After 20 s the dashboard is offered.
    const link = page.getByRole('link', { name: 'go to your dashboard' });
    await link.waitFor({ timeout: 30_000 });

    // Its start done (the clock moved on), Remote Desktop does not answer yet: that is the phase.
    const instance = await instanceOf(user.email);
    await ec2({ rdp: { [instance]: 'closed' } });
    await ec2({ advanceMs: 100_000 });
    await step(page, 'Checking Remote Desktop').waitFor({ timeout: 30_000 });
    await screenshotsAtBothWidths(page, 'wait-phase-remote-desktop');

    // The dashboard shows the same progress.
    await link.click();
    await page.waitForURL('**/dashboard');
    await step(page, 'Checking Remote Desktop').waitFor();
    await page.locator('.setup-estimate').waitFor();
    await screenshotsAtBothWidths(page, 'wait-dashboard-progress');
    await ec2({ rdp: { [instance]: 'open' } });
    await page.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    await expect(page.locator('.setup-steps').count()).resolves.toBe(0);

    // LEGEND has no warm pool: a fresh launch, the machine being prepared.
    const second = await registeredUser('Sunita Rao', 'wait-launch');
    const other = await browser.newPage(DESKTOP);
    await logIn(other, second.email);
    await toPayU(other, second.email, 'LEGEND', '₹1,450.00');
    await other.getByRole('button', { name: 'Pay ₹1,450.00 (success)' }).click();
    await other.waitForURL(/\/payment-success\?txnid=/);
    await step(other, 'Machine being prepared').waitFor({ timeout: 20_000 });
    // Once it is known to be a launch, the start a spare would need is not listed.
    await expect
      .poll(() => other.locator('.setup-steps li', { hasText: 'Starting' }).count(), { timeout: 20_000 })
      .toBe(0);
    await expect(other.locator('.setup-estimate').innerText()).resolves.toMatch(
      /^Usually ready about [45] minutes after payment\./,
    );
    await screenshotsAtBothWidths(other, 'wait-phase-preparing');

    // Its first boot over: ready, and the page goes on to the dashboard by itself.
    await ec2({ advanceMs: 400_000 });
    await other.waitForURL('**/dashboard', { timeout: 30_000 });
    await other.locator('[data-field="status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
  });
});
