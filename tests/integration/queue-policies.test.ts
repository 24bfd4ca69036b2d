import { afterAll, describe, expect, it } from 'vitest';
import { declaredPolicy, deadLetterQueue, ensureQueues, QUEUE_NAMES, startBoss } from '../../core/queue.ts';
import { freshDatabase } from '../support/db.ts';

const databaseUrl = await freshDatabase();
const boss = await startBoss(databaseUrl, 'script');
afterAll(() => boss.stop({ graceful: false }));

describe('queue policies', () => {
  it('every queue in the database carries the retry, expiry, retention and dead letter it declares', async () => {
    for (const name of QUEUE_NAMES) {
      const queue = await boss.getQueue(name);
      const wanted = declaredPolicy(name);
      expect(queue, name).toMatchObject({
        ...wanted,
        retryDelayMax: wanted.retryDelayMax ?? null,
        deadLetter: deadLetterQueue(name),
      });
      expect(await boss.getQueue(deadLetterQueue(name)), `${name} dead letter`).toMatchObject({
        retryLimit: 0,
      });
    }
  });

  it('a queue left with an older policy is brought to the declared one on start', async () => {
    // What a database created by an earlier release holds: pg-boss's 15-minute expiry, fewer
    // retries, no backoff cap and no dead letter.
    await boss.updateQueue('payment-verify', {
      expireInSeconds: 900,
      retryLimit: 2,
      retryDelayMax: null,
      retentionSeconds: 3600,
      deadLetter: null,
    });
    await boss.updateQueue('vm-provision', { expireInSeconds: 900 });
    expect(await boss.getQueue('payment-verify')).toMatchObject({ expireInSeconds: 900, retryLimit: 2 });

    const changed = await ensureQueues(boss);

    expect(changed.updated.sort()).toEqual(['payment-verify', 'vm-provision']);
    expect(changed.created).toEqual([]);
    expect(await boss.getQueue('payment-verify')).toMatchObject({
      expireInSeconds: 60,
      retryLimit: 15,
      retryDelayMax: 600,
      retentionSeconds: declaredPolicy('payment-verify').retentionSeconds,
      deadLetter: 'payment-verify-dlq',
    });
    expect(await boss.getQueue('vm-provision')).toMatchObject({ expireInSeconds: 120 });
    // Converged: a second start changes nothing.
    expect(await ensureQueues(boss)).toEqual({ created: [], updated: [], policyMismatch: [] });
  });

  it('stuck work is handed on within two minutes: payment checks expire in 60 s, provisioning steps in 120 s', () => {
    expect(declaredPolicy('payment-verify').expireInSeconds).toBeLessThanOrEqual(60);
    expect(declaredPolicy('vm-provision').expireInSeconds).toBeLessThanOrEqual(120);
  });
});
