import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { QUEUES, sendJob, type QueueName } from '../../core/queue.ts';
import { findJob } from '../../scripts/lib/jobs.ts';
import { startSmtpCatcher, type CaughtSmtpMail } from '../../sandbox/smtp.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * An operator alert's mail survives an SMTP outage of an hour. The worker sends through a real
 * SMTP server (the sandbox's catcher) that turns every connection away (421) when the alert is
 * raised. The hour passes
 * as the queue's own retry schedule: each time the failed mail waits for its next try, that
 * wait is counted and the try is brought forward, until the waits add up to more than an
 * hour; then the server comes back and the mail must arrive.
 */

const OPS = 'ops-outage@legend.test';
let smtpUp = false;
const caught: CaughtSmtpMail[] = [];
const smtp = await startSmtpCatcher((mail) => caught.push(mail), { accepting: () => smtpUp });
afterAll(() => smtp.close());
const stack = await startTestStack({ worker: true, env: { OPS_EMAIL: OPS, SMTP_URL: smtp.url } });
const db = stack.services.db;

const AlertMailJob = z.object({
  id: z.uuid(),
  name: z.string(),
  state: z.string(),
  tries: z.number(),
  waits: z.number(),
});

/** The alert's mail job, in whichever queue it travels, with how long it waits until its next try. */
function alertMailJob(alertId: string) {
  return db.maybeOne(sql.type(AlertMailJob)`
    SELECT id, name, state::text AS state, retry_count AS tries,
      greatest(0, extract(epoch FROM start_after - now()))::float8 AS waits
    FROM pgboss.job
    WHERE name IN ('email-send', 'email-code', 'email-alert') AND data->>'to' = ${OPS} AND data->>'text' LIKE ${`%${alertId}%`}`);
}

/**
 * The shortest time a queue's retries span, from the first failure to the last try: pg-boss waits
 * `retryDelay × 2^n` (capped at `retryDelayMax`) before retry n, plus up to as much again at random.
 */
function shortestRetrySpanSeconds(name: QueueName): number {
  const { retryLimit, retryDelay, retryBackoff, retryDelayMax } = QUEUES[name].options;
  let total = 0;
  for (let n = 0; n < retryLimit; n++) {
    const delay = retryBackoff ? Math.max(retryDelay, 1) * 2 ** Math.min(16, n) : retryDelay;
    total += Math.min(retryDelayMax ?? Infinity, delay);
  }
  return total;
}

describe('an operator alert mailed through an SMTP outage', () => {
  it('its queue retries for more than an hour', () => {
    expect(shortestRetrySpanSeconds('email-alert')).toBeGreaterThan(2 * 3600);
  });

  it('arrives when SMTP comes back after an hour down', async () => {
    const { alert } = await raiseAlert(db, {
      kind: 'provision-failed',
      dedupeKey: 'provision-failed:smtp-outage',
      message: 'Provisioning gave up while mail was down',
    });
    const sweep = await sendJob(stack.services.boss, 'alert-notify', {});
    await waitFor('the alert sweep', async () => (await findJob(db, sweep!))?.state === 'completed');

    let downFor = 0;
    let tries = 0;
    while (downFor <= 3600) {
      const job = await waitFor(`try ${tries + 1} of the alert mail to fail`, async () => {
        const found = await alertMailJob(alert.id);
        return found && found.state !== 'active' && found.state !== 'created' && found.tries >= tries
          ? found
          : undefined;
      });
      expect(job.state, `after ${tries} tries and ${Math.round(downFor)} s down`).toBe('retry');
      tries = job.tries + 1;
      downFor += job.waits;
      // The wait passes: the next try is due now.
      await db.query(sql.unsafe`UPDATE pgboss.job SET start_after = now() WHERE id = ${job.id}`);
    }
    console.log(`alert mail: ${tries - 1} retries over ${Math.round(downFor / 60)} minutes of SMTP outage`);

    smtpUp = true;
    const job = await waitFor('the try after the outage', async () => {
      const found = await alertMailJob(alert.id);
      return found && found.state !== 'active' ? found : undefined;
    });
    if (job.state === 'retry') {
      await db.query(sql.unsafe`UPDATE pgboss.job SET start_after = now() WHERE id = ${job.id}`);
    }
    await waitFor(
      'the alert mail to be delivered',
      async () => caught.some((m) => m.to.includes(OPS)),
      60_000,
    );
    await waitFor('its job to complete', async () => (await alertMailJob(alert.id))?.state === 'completed');
  }, 180_000);
});
