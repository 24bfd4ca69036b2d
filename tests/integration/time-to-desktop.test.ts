import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { MIN_PROVISIONS_FOR_FIGURE, UNMEASURED_STAT } from '../../core/domain/content/timeToDesktop.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The landing page's time-to-desktop figure, served by GET /api/site: the median of the most
 * recent recorded provisions (requested → ready), only once there are enough of them.
 */

const stack = await startTestStack();
const { activePlan } = cloudPcHelpers(stack);

/** A machine that was provisioned in `seconds`, recorded as the worker records it. */
async function recordProvision(seconds: number, readyAt: Date): Promise<void> {
  // No password: hashing one per machine would make the test slow, and nobody logs in here.
  const user = await createUser(stack, { password: null });
  const plan = await activePlan(user.id);
  const requestedAt = new Date(readyAt.getTime() - seconds * 1000);
  await stack.services.db.query(sql.unsafe`
    INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, instance_id,
                     requested_at, ready_at, terminated_at)
    VALUES (${user.id}, ${plan.id}, ${plan.plan_id}, ${plan.instance_type}, ${plan.storage_gb},
            'terminated', ${`i-${Math.random().toString(16).slice(2, 19).padEnd(17, '0')}`},
            ${requestedAt.toISOString()}, ${readyAt.toISOString()}, ${readyAt.toISOString()})`);
}

async function siteFigure() {
  const { status, body } = await stack.api('/api/site');
  expect(status).toBe(200);
  return body.timeToDesktop as { value: string; label: string; measured: boolean };
}

describe('time to desktop on the landing page', () => {
  it('says only the modest wording until enough provisions are recorded', async () => {
    expect(await siteFigure()).toEqual(UNMEASURED_STAT);
    const base = Date.now() - 60 * 60 * 1000;
    for (let i = 0; i < MIN_PROVISIONS_FOR_FIGURE - 1; i++) {
      await recordProvision(60 + i, new Date(base + i * 1000));
    }
    expect(await siteFigure()).toEqual(UNMEASURED_STAT);
  });

  it('shows the median of the recorded provisions once there are enough', async () => {
    // 19 provisions of 60–78 s are recorded; one more of 300 s makes 20, median (69 + 70) / 2.
    await recordProvision(300, new Date());
    expect(await siteFigure()).toEqual({
      value: '70',
      label: `seconds to your desktop (median of our last ${MIN_PROVISIONS_FOR_FIGURE} desktops)`,
      measured: true,
    });
  });

  it('follows the most recent provisions, in minutes when they are slow', async () => {
    const now = Date.now();
    for (let i = 0; i < 50; i++) await recordProvision(400, new Date(now + (i + 1) * 1000));
    const figure = await siteFigure();
    expect(figure).toEqual({
      value: '7',
      label: 'minutes to your desktop (median of our last 50 desktops)',
      measured: true,
    });
  });
});
