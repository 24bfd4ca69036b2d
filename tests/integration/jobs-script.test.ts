import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { sendJob } from '../../core/queue.ts';
import type { Mailer } from '../../core/providers/mail.ts';
import { findJob, listDeadLetters, listFailed } from '../../scripts/lib/jobs.ts';
import { deadLetterAlertKey } from '../../core/db/deadLetters.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { raiseDeadLetters } from '../../core/commands/alertNotify.ts';
import { startWorker } from '../../worker/worker.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

const run = promisify(execFile);
const stack = await startTestStack();
const log = createLogger({ level: 'silent', name: 'test' });

/** A mailer that fails while `broken` is true and records what it delivered. */
function flakyMailer() {
  const state = { broken: true, sent: [] as string[] };
  const mailer: Mailer = {
    async send(mail) {
      if (state.broken) throw new Error('SMTP 421 service not available');
      state.sent.push(mail.subject);
      return { messageId: `<${state.sent.length}@test>` };
    },
  };
  return { state, mailer };
}

function cli(...args: string[]) {
  return run(process.execPath, ['scripts/jobs.ts', ...args], {
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, NODE_ENV: 'test' },
  });
}

const mail = (subject: string) => ({ kind: 'test', to: 'ops@example.com', subject, text: 'hello' });

describe('npm run jobs', () => {
  it('lists a job that failed after its retries, shows it and replays it once the cause is fixed', async () => {
    const { state, mailer } = flakyMailer();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: stack.databaseUrl });
    const worker = await startWorker(config, stack.databaseUrl, log, { mailer, pollingIntervalSeconds: 0.5 });
    try {
      const id = await sendJob(stack.services.boss, 'email-send', mail('first'), { retryLimit: 0 });
      expect(id).toBeTruthy();
      await waitFor(
        'the job to fail',
        async () => (await findJob(stack.services.db, id!))?.state === 'failed',
      );

      const failed = await cli('failed', 'email-send');
      expect(failed.stdout).toContain(id);
      expect(failed.stdout).toContain('SMTP 421 service not available');

      // Its dead letter is listed with the error that finished it.
      const dead = await cli('dead', 'email-send');
      expect(dead.stdout).toContain('email-send-dlq');
      expect(dead.stdout).toContain('SMTP 421 service not available');

      const shown = JSON.parse((await cli('show', id!)).stdout);
      expect(shown).toMatchObject({
        id,
        queue: 'email-send',
        state: 'failed',
        payloadValid: true,
        data: { subject: 'first' },
      });

      state.broken = false;
      const replayed = await cli('replay', id!);
      expect(replayed.stdout).toContain(`retried email-send job ${id}`);
      await waitFor(
        'the replayed job to complete',
        async () => (await findJob(stack.services.db, id!))?.state === 'completed',
      );
      expect(state.sent).toEqual(['first']);
      expect(await listFailed(stack.services.db, 'email-send')).toHaveLength(0);
      expect(await listDeadLetters(stack.services.db, 'email-send')).toHaveLength(0);

      // Replaying a job that is not failed is refused and changes nothing.
      await expect(cli('replay', id!)).rejects.toMatchObject({
        stderr: expect.stringContaining('is completed, not failed'),
      });
      expect(state.sent).toEqual(['first']);
    } finally {
      await worker.stop();
    }
  });

  it('replays every failed job of a queue with --all', async () => {
    const { state, mailer } = flakyMailer();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: stack.databaseUrl });
    const worker = await startWorker(config, stack.databaseUrl, log, { mailer, pollingIntervalSeconds: 0.5 });
    try {
      const ids = await Promise.all(
        ['a', 'b', 'c'].map((s) => sendJob(stack.services.boss, 'email-send', mail(s), { retryLimit: 0 })),
      );
      await waitFor(
        'three failures',
        async () => (await listFailed(stack.services.db, 'email-send')).length === 3,
      );
      state.broken = false;
      const out = await cli('replay', '--all', 'email-send');
      expect(out.stdout).toContain('replayed 3 job(s) from email-send');
      await waitFor('all three sent', async () => state.sent.length === 3);
      expect([...state.sent].sort()).toEqual(['a', 'b', 'c']);
      // Sent comes before pg-boss records the batch as done.
      for (const id of ids) {
        await waitFor(
          `job ${id} completed`,
          async () => (await findJob(stack.services.db, id!))?.state === 'completed',
        );
      }
    } finally {
      await worker.stop();
    }
  });

  it('replays a dead letter whose failed original was already cleaned away', async () => {
    const { state, mailer } = flakyMailer();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: stack.databaseUrl });
    const worker = await startWorker(config, stack.databaseUrl, log, { mailer, pollingIntervalSeconds: 0.5 });
    try {
      const id = await sendJob(stack.services.boss, 'email-send', mail('orphaned'), { retryLimit: 0 });
      const [letter] = await waitFor('its dead letter', async () => {
        const letters = await listDeadLetters(stack.services.db, 'email-send');
        return letters.length > 0 && letters;
      });
      // pg-boss's retention deletes failed jobs before their dead letters.
      await stack.services.boss.deleteJob('email-send', id!);
      state.broken = false;
      const out = await cli('replay', '--all', 'email-send');
      expect(out.stdout).toContain('replayed 1 job(s) from email-send');
      await waitFor('the resent mail', async () => state.sent.includes('orphaned'));
      expect(await findJob(stack.services.db, letter!.id)).toBeNull();
      expect(await listDeadLetters(stack.services.db, 'email-send')).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });

  it('raises an operator alert when jobs exhaust their retries, again only when more do', async () => {
    const { mailer } = flakyMailer();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: stack.databaseUrl });
    const worker = await startWorker(config, stack.databaseUrl, log, { mailer, pollingIntervalSeconds: 0.5 });
    const deps = { db: stack.services.db, log };
    const alertOf = async () =>
      (await listAlerts(stack.services.db)).find((a) => a.dedupe_key === deadLetterAlertKey('email-send'));
    const deadLetterOf = (id: string) =>
      waitFor('its dead letter', async () =>
        (await listDeadLetters(stack.services.db, 'email-send')).some((letter) => letter.source_id === id),
      );
    try {
      const first = await sendJob(stack.services.boss, 'email-send', mail('lost'), { retryLimit: 0 });
      await deadLetterOf(first!);
      // alert-notify raises it (the worker's own minute cron may have got there first).
      await raiseDeadLetters(deps);
      const raised = await alertOf();
      expect(raised).toMatchObject({ kind: 'job-dead-lettered', resolved_at: null });
      expect(raised!.message).toMatch(/email-send jobs? exhausted .*SMTP 421 service not available/);
      expect(raised!.message).toContain('npm run jobs -- dead email-send');
      // Nothing new: nothing raised, so a resolved alert stays resolved.
      await expect(raiseDeadLetters(deps)).resolves.toBe(0);

      const second = await sendJob(stack.services.boss, 'email-send', mail('lost again'), { retryLimit: 0 });
      await deadLetterOf(second!);
      await raiseDeadLetters(deps);
      expect((await alertOf())!.occurrences).toBeGreaterThan(raised!.occurrences);
    } finally {
      await worker.stop();
    }
  });

  it('prints its help without a database or any configuration', async () => {
    const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: 'production' };
    delete env.DATABASE_URL;
    for (const flag of ['--help', 'help']) {
      const help = await run(process.execPath, ['scripts/jobs.ts', flag], { env });
      expect(help.stdout).toContain('usage: npm run jobs');
      expect(help.stdout).toContain('dead [queue]');
    }
  });

  it('explains bad usage', async () => {
    await expect(cli('failed', 'no-such-queue')).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown queue no-such-queue'),
    });
    await expect(cli('show', '00000000-0000-0000-0000-000000000000')).rejects.toMatchObject({
      stderr: expect.stringContaining('no job'),
    });
    const help = await cli();
    expect(help.stdout).toContain('usage: npm run jobs');
  });
});
