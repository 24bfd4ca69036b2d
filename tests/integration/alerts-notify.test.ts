import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { findAlert, raiseAlert } from '../../core/db/operatorAlerts.ts';
import { sendJob } from '../../core/queue.ts';
import { findJob } from '../../scripts/lib/jobs.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

const run = promisify(execFile);

/** A chat webhook: records what is posted, and answers 500 to the next `failNext` posts. */
const hook = { posts: [] as Array<{ status: number; body: unknown }>, failNext: 0 };
const hookServer = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const status = hook.failNext > 0 ? 500 : 200;
    if (hook.failNext > 0) hook.failNext--;
    hook.posts.push({ status, body: JSON.parse(body) });
    res.writeHead(status).end(status === 200 ? 'ok' : 'down');
  });
});
await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
const hookAddress = hookServer.address();
const hookUrl = `http://127.0.0.1:${hookAddress && typeof hookAddress === 'object' ? hookAddress.port : 0}/hook`;
afterAll(() => new Promise<void>((resolve) => hookServer.close(() => resolve())));

const OPS = 'ops-team@legend.test';
const stack = await startTestStack({
  worker: true,
  env: { OPS_EMAIL: OPS, ALERT_WEBHOOK_URL: hookUrl, ALERT_RENOTIFY_MINUTES: '30' },
});
const db = stack.services.db;

/** Runs the notification sweep now (cron runs it each minute) and waits for it to finish. */
async function sweep(): Promise<void> {
  const id = await sendJob(stack.services.boss, 'alert-notify', {});
  await waitFor('the alert sweep', async () => (await findJob(db, id!))?.state === 'completed');
}

/** Jobs the sweep enqueued for people (mail + webhook), whatever their state. */
async function notificationJobs(alertId: string): Promise<number> {
  return db.oneFirst(sql.unsafe`
    SELECT count(*)::int FROM pgboss.job
    WHERE (name = 'alert-webhook' AND data->>'alertId' = ${alertId})
       OR (name IN ('email-send', 'email-code', 'email-alert') AND data->>'to' = ${OPS} AND data->>'text' LIKE ${`%${alertId}%`})`) as Promise<number>;
}

function alertsCli(...args: string[]) {
  return run(process.execPath, ['scripts/alerts.ts', ...args], {
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, NODE_ENV: 'test' },
  });
}

describe('operator alerts reach a person', () => {
  it('mails OPS_EMAIL and posts to the webhook once per alert, retrying a webhook that fails', async () => {
    hook.failNext = 1;
    const { alert } = await raiseAlert(db, {
      kind: 'provision-failed',
      dedupeKey: 'provision-failed:notify-test',
      message: 'Provisioning gave up after 20 launch attempts',
    });
    await sweep();

    const mail = await waitFor('the alert mail', async () =>
      (await stack.mailTo(OPS)).find((m) => m.text.includes(alert.id)),
    );
    expect(mail.subject).toContain('provision-failed');
    expect(mail.subject).toContain('Provisioning gave up after 20 launch attempts');
    const delivered = await waitFor(
      'the webhook post after a failed one',
      async () => hook.posts.find((p) => p.status === 200),
      30_000,
    );
    expect(hook.posts[0]!.status).toBe(500);
    expect(delivered.body).toEqual({
      text: expect.stringContaining('Provisioning gave up after 20 launch attempts'),
    });
    expect((delivered.body as { text: string }).text).toContain(alert.id);

    // The same problem again, within the re-notify interval: counted, not re-sent.
    await raiseAlert(db, {
      kind: 'provision-failed',
      dedupeKey: 'provision-failed:notify-test',
      message: 'Provisioning gave up after 20 launch attempts',
    });
    await sweep();
    expect(await notificationJobs(alert.id)).toBe(2);
    expect(await findAlert(db, alert.id)).toMatchObject({ occurrences: 2, notify_count: 1 });
  });

  it('reminds after the re-notify interval while the problem keeps happening, and stops once acknowledged', async () => {
    const raise = () =>
      raiseAlert(db, {
        kind: 'instance-lost',
        dedupeKey: 'instance-lost:remind-test',
        message: 'Instance vanished',
      });
    const { alert } = await raise();
    await sweep();
    expect(await notificationJobs(alert.id)).toBe(2);

    // Thirty-one minutes later it is still happening.
    await db.query(
      sql.unsafe`UPDATE operator_alerts SET notified_at = now() - interval '31 minutes' WHERE id = ${alert.id}`,
    );
    await raise();
    await sweep();
    expect(await notificationJobs(alert.id)).toBe(4);
    const reminder = await waitFor('the reminder mail', async () =>
      (await stack.mailTo(OPS)).find(
        (m) => m.text.includes(alert.id) && m.subject.includes('still happening'),
      ),
    );
    expect(reminder.subject).toContain('instance-lost');

    // Someone takes it: no more reminders, though it stays open.
    const acked = await alertsCli('ack', alert.id);
    expect(acked.stdout).toContain('acknowledged');
    await db.query(
      sql.unsafe`UPDATE operator_alerts SET notified_at = now() - interval '31 minutes' WHERE id = ${alert.id}`,
    );
    await raise();
    await sweep();
    expect(await notificationJobs(alert.id)).toBe(4);

    const shown = JSON.parse((await alertsCli('show', alert.id)).stdout);
    expect(shown).toMatchObject({
      id: alert.id,
      kind: 'instance-lost',
      state: 'acknowledged',
      notifications: 2,
    });
    const listed = await alertsCli();
    expect(listed.stdout).toContain(alert.id);
    await expect(alertsCli('ack', 'not-an-id')).rejects.toMatchObject({
      stderr: expect.stringContaining('an alert id is needed'),
    });
  });
});
