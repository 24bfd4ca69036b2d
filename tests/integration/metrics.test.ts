import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sql } from '../../core/db/pool.ts';
import { raiseAlert } from '../../core/db/operatorAlerts.ts';
import { createLogger } from '../../core/observability/log.ts';
import { sendJob } from '../../core/queue.ts';
import { startWorker } from '../../worker/worker.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { sampleValue } from '../support/prometheus.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

const stack = await startTestStack();
const helpers = cloudPcHelpers(stack);

async function scrape(url = `${stack.url}/metrics`): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** A machine that became ready `seconds` after it was requested, from the pool or a launch. */
async function readyMachine(source: 'pool' | 'launch', seconds: number, instanceId: string) {
  const user = await createUser(stack);
  const plan = await helpers.activePlan(user.id);
  await helpers.exec(sql.unsafe`
    INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, source, instance_id,
                     requested_at, ready_at)
    VALUES (${user.id}, ${plan.id}, ${plan.plan_id}, ${plan.instance_type}, ${plan.storage_gb}, 'stopped',
            ${source}, ${instanceId}, now() - make_interval(secs => ${seconds}), now())`);
}

describe('GET /metrics', () => {
  it('serves request timings by route pattern and status, and the Node process metrics', async () => {
    await fetch(`${stack.url}/readyz`);
    await fetch(`${stack.url}/api/no/such/thing/123`);
    const text = await scrape();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(
      sampleValue(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/readyz',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    // The raw path never becomes a label value.
    expect(text).not.toContain('/api/no/such/thing/123');
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('reports the fleet from Postgres: queues, dead letters, machines, payments, open alerts, paid → ready', async () => {
    await readyMachine('pool', 70, 'i-0metricswarm0001');
    await readyMachine('launch', 290, 'i-0metricscold0001');
    await raiseAlert(stack.services.db, {
      kind: 'provision-failed',
      message: 'test alert',
      dedupeKey: 'metrics-test',
    });
    // No worker runs here: the job stays queued.
    await sendJob(stack.services.boss, 'payment-verify', { txnid: 'METRICS1', source: 'webhook' });

    // The snapshot is cached for a few seconds: wait for one taken after the rows above.
    const text = await waitFor('a fresh fleet snapshot', async () => {
      const body = await scrape();
      return (
        sampleValue(body, 'legend_queue_jobs', { queue: 'payment-verify', state: 'created' }) === 1 && body
      );
    });
    expect(sampleValue(text, 'legend_queue_jobs', { queue: 'vm-provision', state: 'active' })).toBe(0);
    expect(sampleValue(text, 'legend_dead_letter_jobs', { queue: 'payment-verify' })).toBe(0);
    expect(sampleValue(text, 'legend_machines', { state: 'stopped' })).toBe(2);
    expect(sampleValue(text, 'legend_machines', { state: 'running' })).toBe(0);
    expect(sampleValue(text, 'legend_alerts_open', { kind: 'provision-failed' })).toBe(1);
    expect(sampleValue(text, 'legend_alerts_open', { kind: 'instance-lost' })).toBe(0);
    expect(sampleValue(text, 'legend_payments_total', { outcome: 'success' })).toBe(0);

    expect(text).toContain('# TYPE legend_provision_seconds histogram');
    const bucket = (source: string, le: string) =>
      sampleValue(text, 'legend_provision_seconds_bucket', { source, le });
    expect([bucket('warm', '60'), bucket('warm', '90'), bucket('warm', '+Inf')]).toEqual([0, 1, 1]);
    expect([bucket('cold', '240'), bucket('cold', '300'), bucket('cold', '+Inf')]).toEqual([0, 1, 1]);
    expect(sampleValue(text, 'legend_provision_seconds_count', { source: 'cold' })).toBe(1);
    expect(sampleValue(text, 'legend_provision_seconds_sum', { source: 'warm' })).toBeCloseTo(70, 0);
  });

  it('the worker serves its own process and job metrics on WORKER_METRICS_PORT', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(address && typeof address === 'object' ? address.port : 0));
      });
    });
    const config = { ...stack.config, ops: { ...stack.config.ops, workerMetricsPort: port } };
    const worker = await startWorker(
      config,
      stack.databaseUrl,
      createLogger({ level: 'silent', name: 'test' }),
      {
        mailer: { send: async () => ({ messageId: 'test' }) },
        pollingIntervalSeconds: 0.5,
      },
    );
    try {
      await sendJob(stack.services.boss, 'email-send', {
        kind: 'test',
        to: 'ops@example.com',
        subject: 's',
        text: 't',
      });
      const text = await waitFor('a timed mail job', async () => {
        const body = await scrape(`http://127.0.0.1:${port}/metrics`);
        return (
          (sampleValue(body, 'legend_job_duration_seconds_count', { queue: 'email-send' }) ?? 0) >= 1 && body
        );
      });
      expect(sampleValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await worker.stop();
    }
  });
});
