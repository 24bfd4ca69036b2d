import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/observability/log.ts';
import type { Mailer } from '../../core/providers/mail.ts';
import { sendJob } from '../../core/queue.ts';
import { findJob } from '../../scripts/lib/jobs.ts';
import { startWorker } from '../../worker/worker.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

const stack = await startTestStack();

/** An SMTP server that takes a while per message, recording the order mails were delivered in. */
function slowMailer(delayMs: number) {
  const delivered: string[] = [];
  const mailer: Mailer = {
    async send(mail) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delivered.push(mail.to);
      return { messageId: `<${delivered.length}@test>` };
    },
  };
  return { delivered, mailer };
}

describe('mail queues', () => {
  it('a sign-in code overtakes a newsletter backlog: it travels on its own queue', async () => {
    const bulk = Array.from({ length: 300 }, (_, i) => `reader-${i}@mail.test`);
    await stack.services.boss.insert(
      'email-send',
      bulk.map((to) => ({ data: { kind: 'newsletter', to, subject: 'News', text: 'This month' } })),
    );
    const codeJob = await sendJob(stack.services.boss, 'email-send', {
      kind: 'login-code',
      to: 'waiting@mail.test',
      subject: 'Your Legend Cloud login code',
      text: 'Your login code is 123456.',
    });
    expect((await findJob(stack.services.db, codeJob!))?.name).toBe('email-code');

    const { delivered, mailer } = slowMailer(20);
    const worker = await startWorker(
      stack.config,
      stack.databaseUrl,
      createLogger({ level: 'silent', name: 'test' }),
      {
        mailer,
      },
    );
    try {
      await waitFor('the code to be delivered', async () => delivered.includes('waiting@mail.test'));
      const bulkBefore = delivered.indexOf('waiting@mail.test');
      // Most of the newsletter is still queued when the code goes out.
      expect(bulkBefore).toBeLessThan(bulk.length / 2);
      await waitFor('the newsletter to drain', async () => delivered.length === bulk.length + 1, 60_000);
    } finally {
      await worker.stop();
    }
  });

  it('other mail stays on email-send', async () => {
    const id = await sendJob(stack.services.boss, 'email-send', {
      kind: 'payment-receipt',
      to: 'buyer@mail.test',
      subject: 'Receipt',
      text: 'Thank you',
    });
    expect((await findJob(stack.services.db, id!))?.name).toBe('email-send');
  });
});
