import nodemailer from 'nodemailer';
import { loadConfig } from '../../core/config/config.ts';
import { createDbPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/observability/log.ts';
import type { Mailer } from '../../core/providers/mail.ts';
import { sendJob, startBoss, type Boss } from '../../core/queue.ts';
import { startSmtpCatcher, type CaughtSmtpMail } from '../../sandbox/smtp.ts';
import { emailSend } from '../../worker/jobs/emailSend.ts';
import { startWorker } from '../../worker/worker.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import { fmtMs, heading, median, percentile } from './lib.ts';

const BULK = 1000;
const CODE_EVERY_MS = 100;
/** The baseline takes minutes to drain 1,000 mails; its rate and code delay show well before. */
const PHASE_LIMIT_MS = { base: 30_000, new: 120_000 };

type Phase = {
  mailsPerSecond: number;
  /** Enqueue → arrival of each code; a code still missing counts as its wait so far (a lower bound). */
  codeLatencies: number[];
  codesLost: number;
  limitMs: number;
};

/**
 * Mail under a newsletter: 1,000 bulk mails queued at once, then a sign-in code every 100 ms
 * until the bulk is delivered. Everything goes through the real worker handler, nodemailer and
 * SMTP to the sandbox's SMTP catcher, over real Postgres. Figures: bulk mails a second, and how
 * long a code takes from enqueue to arrival (p50/p99). The baseline, in the same run, is the
 * previous setup: one queue for all mail, one mail per job, four at a time, a new SMTP
 * connection per mail.
 */
export async function benchMail(): Promise<void> {
  heading(
    `Mail: ${BULK} bulk mails queued, a code every ${CODE_EVERY_MS} ms (sandbox SMTP, embedded Postgres)`,
  );
  const arrivals = new Map<string, number>();
  const smtp = await startSmtpCatcher((mail: CaughtSmtpMail) => {
    for (const to of mail.to) arrivals.set(to, mail.receivedAt);
  });
  const database = await startScratchDatabase('bench-mail-', 'bench');
  const log = createLogger({ level: 'silent', name: 'bench' });
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    SMTP_URL: smtp.url,
    WARM_POOL_SIZE: '0',
  });
  try {
    // Baseline: the setup before this change, driven by the same handler.
    const baseline = await (async () => {
      const boss = await startBoss(database.url, 'worker');
      const db = await createDbPool(database.url);
      const transport = nodemailer.createTransport(smtp.url);
      const mailer: Mailer = {
        async send(mail) {
          const info = await transport.sendMail({ from: config.mail.from, ...mail });
          return { messageId: String(info.messageId) };
        },
      };
      const deps = {
        config,
        db,
        boss,
        log,
        mailer,
        vmEc2: undefined as never,
        remoteDesktop: undefined as never,
      };
      await boss.work(
        'email-send',
        { batchSize: 1, localConcurrency: 4, pollingIntervalSeconds: 2, perJobResults: true },
        emailSend(deps),
      );
      try {
        // Codes went to the same queue as everything else.
        return await runPhase('base', boss, arrivals, (to) =>
          boss.send('email-send', codeMail(to)).then(() => undefined),
        );
      } finally {
        await boss.stop({ graceful: true, timeout: 5000 });
        await db.end();
      }
    })();

    const now = await (async () => {
      const worker = await startWorker(config, database.url, log);
      try {
        return await runPhase('new', worker.deps.boss, arrivals, (to) =>
          sendJob(worker.deps.boss, 'email-send', codeMail(to)).then(() => undefined),
        );
      } finally {
        await worker.stop();
      }
    })();

    const line = (name: string, p: Phase) => {
      const atLeast = p.codesLost > 0 ? '≥ ' : '';
      const lost =
        p.codesLost > 0 ? `, ${p.codesLost} still queued when the ${p.limitMs / 1000} s run ended` : '';
      return `${name.padEnd(30)} ${p.mailsPerSecond.toFixed(1).padStart(6)} mails/s   code p50 ${atLeast}${fmtMs(median(p.codeLatencies))}  p99 ${atLeast}${fmtMs(percentile(p.codeLatencies, 99))}  (n=${p.codeLatencies.length}${lost})`;
    };
    console.log(line('baseline (1 queue, no pool)', baseline));
    console.log(line('code queue + batches + pool', now));
    console.log(
      `ratios: throughput ×${(now.mailsPerSecond / baseline.mailsPerSecond).toFixed(1)}, code p99 ≤ ×${(percentile(now.codeLatencies, 99) / percentile(baseline.codeLatencies, 99)).toFixed(3)} of baseline`,
    );
  } finally {
    await database.stop();
    await smtp.close();
  }
}

function codeMail(to: string) {
  return {
    kind: 'login-code',
    to,
    subject: 'Your Legend Cloud login code',
    text: 'Your login code is 123456.',
  };
}

async function runPhase(
  label: 'base' | 'new',
  boss: Boss,
  arrivals: Map<string, number>,
  sendCode: (to: string) => Promise<void>,
): Promise<Phase> {
  const bulk = Array.from({ length: BULK }, (_, i) => `bulk-${label}-${i}@bench.example`);
  const started = Date.now();
  await boss.insert(
    'email-send',
    bulk.map((to) => ({
      data: { kind: 'newsletter', to, subject: 'Legend Cloud news', text: 'What is new this month.' },
    })),
  );
  const sentAt = new Map<string, number>();
  let n = 0;
  const limitMs = PHASE_LIMIT_MS[label];
  const deadline = started + limitMs;
  while (Date.now() < deadline && !bulk.every((to) => arrivals.has(to))) {
    const to = `code-${label}-${n++}@bench.example`;
    sentAt.set(to, Date.now());
    await sendCode(to);
    await new Promise((resolve) => setTimeout(resolve, CODE_EVERY_MS));
  }
  // Codes sent near the end may still be on their way: wait a little for them.
  const codeDeadline = Math.min(Date.now() + 15_000, deadline);
  while (Date.now() < codeDeadline && ![...sentAt.keys()].every((to) => arrivals.has(to))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ended = Date.now();
  const bulkArrived = bulk.map((to) => arrivals.get(to)).filter((t): t is number => t !== undefined);
  const lastBulk = bulkArrived.length === bulk.length ? Math.max(...bulkArrived) : ended;
  const codeLatencies = [...sentAt].map(([to, t]) => (arrivals.get(to) ?? ended) - t);
  return {
    mailsPerSecond: bulkArrived.length / ((lastBulk - started) / 1000),
    codeLatencies,
    codesLost: [...sentAt.keys()].filter((to) => !arrivals.has(to)).length,
    limitMs,
  };
}
