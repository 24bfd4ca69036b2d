import {
  CloudWatchClient,
  GetMetricDataCommand,
  InternalServiceFault,
  InvalidParameterValueException,
  PutMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, describe, expect, it } from 'vitest';
import { upsertMetricSamples } from '../../core/db/usage.ts';
import {
  beginLaunch,
  findVmBySubscription,
  insertVm,
  markVmRunning,
  markVmStopped,
  recordLaunch,
  requestVmStart,
  requestVmStop,
  storeVmPassword,
  type Vm,
} from '../../core/db/vms.ts';
import { planSeconds } from '../../core/domain/usage.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createCloudWatch, MAX_QUERIES_PER_CALL, type CloudWatch } from '../../core/providers/cloudwatch.ts';
import { metricsPull, pullMetrics } from '../../worker/jobs/metricsPull.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { createUser, logIn, newClient } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack } from '../support/stack.ts';
import { countSamples } from '../support/rows.ts';

/**
 * The usage page's data: GET /api/vm/usage/{email} computed from recorded running time, the
 * `metrics-pull` job against the CloudWatch sandbox, and our CloudWatch provider through the
 * real @aws-sdk/client-cloudwatch (so what passes here is what the job sees from AWS).
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const cloudWatch = createCloudWatch({ ...stack.config.metrics.cloudWatch, maxAttempts: 1 });
const log = createLogger({ level: 'silent', name: 'test' });
const pullDeps = { db: stack.services.db, log, config: stack.config, cloudWatch };
afterAll(() => {
  cloud.destroy();
  cloudWatch.destroy();
});

const MINUTE = 60_000;
const HOUR = 3_600_000;
const IST = 5.5 * HOUR;
/** India midnight starting the day of `ms`, `days` days later (negative: earlier). */
const istMidnight = (ms: number, days = 0) =>
  Math.floor((ms + IST) / 86_400_000) * 86_400_000 - IST + days * 86_400_000;
const istDay = (ms: number) => new Date(ms + IST).toISOString().slice(0, 10);

async function customer(hours: 30 | 45 | 65 | 90 = 45) {
  const user = await createUser(stack);
  const client = newClient(stack);
  await logIn(client, user.email);
  const plan = await cloud.activePlan(user.id, { hours, purchasedAt: new Date(Date.now() - 5 * 86_400_000) });
  return { user, client, plan };
}

/**
 * A machine whose running history is exactly `runs` (the last may be open), written through
 * the cloud-PC transitions as the jobs would write them. The instance is not in EC2 and no
 * worker runs, so nothing else moves it.
 */
async function machineWithHistory(
  userId: string,
  subscriptionId: string,
  runs: Array<[number, number | null]>,
) {
  const db = stack.services.db;
  const first = runs[0]![0];
  let vm: Vm | null = await insertVm(
    db,
    { userId, subscriptionId, planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 },
    new Date(first - 10 * MINUTE),
  );
  await beginLaunch(
    db,
    vm.id,
    { subnetId: 'subnet-0sandbox0000000001', imageId: 'ami-0a1b2c3d4e5f60718' },
    new Date(first - 9 * MINUTE),
  );
  await recordLaunch(
    db,
    vm.id,
    { instanceId: `i-${vm.id.replaceAll('-', '').slice(0, 17)}`, subnetId: null, availabilityZone: null },
    new Date(first - 8 * MINUTE),
  );
  await storeVmPassword(db, vm.id, 'sealed-for-test', new Date(first - 2 * MINUTE));
  for (const [index, [start, end]] of runs.entries()) {
    if (index > 0) vm = await requestVmStart(db, vm!.id, 'user', new Date(start - MINUTE));
    vm = await markVmRunning(db, vm!.id, '13.233.0.10', new Date(start));
    if (end !== null) {
      vm = await requestVmStop(db, vm!.id, 'user', new Date(end), planSeconds(90));
      vm = await markVmStopped(db, vm!.id, 'stopped', null, new Date(end));
    }
    if (!vm) throw new Error(`transition ${index} did not apply`);
  }
  return vm!;
}

describe('GET /api/vm/usage/{email}', () => {
  it('splits the machine’s running time into the last 7 India days and today’s hours', async () => {
    const { user, client, plan } = await customer(45);
    const now = Date.now();
    const today = istMidnight(now);
    // Running now for the last 40 minutes (or since midnight, if that is later).
    const runningSince = Math.max(today, now - 40 * MINUTE);
    await machineWithHistory(user.id, plan.id, [
      [istMidnight(now, -3) + 10 * HOUR, istMidnight(now, -3) + 12.5 * HOUR],
      // 23:00 to 01:30 across India midnight: 1 h on one day, 1.5 h on the next.
      [istMidnight(now, -1) - HOUR, istMidnight(now, -1) + 1.5 * HOUR],
      [runningSince, null],
    ]);

    const reply = await client.call(`/api/vm/usage/${encodeURIComponent(user.email)}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const body = reply.body;
    const servedAt = Date.parse(body.now);
    expect(body).toMatchObject({
      email: user.email,
      vmLastState: 'running',
      isRunning: true,
      selectedPlan: 'LEGEND',
      selectedDuration: 45,
      selectedPrice: 1830,
      planActive: true,
      cpu: [],
      gpu: [],
    });
    expect(body.daily.map((d: { day: string }) => d.day)).toEqual(
      [-6, -5, -4, -3, -2, -1, 0].map((days) => istDay(istMidnight(now, days))),
    );
    const byDay = Object.fromEntries(body.daily.map((d: { day: string; usage: number }) => [d.day, d.usage]));
    expect(byDay[istDay(istMidnight(now, -3))]).toBe(2.5);
    expect(byDay[istDay(istMidnight(now, -2))]).toBe(1);
    expect(byDay[istDay(istMidnight(now, -1))]).toBe(1.5);
    expect(byDay[istDay(today)]).toBeCloseTo((servedAt - runningSince) / HOUR, 3);
    expect(body.daily.filter((d: { usage: number }) => d.usage > 0)).toHaveLength(
      runningSince < servedAt ? 4 : 3,
    );

    expect(body.hourly.map((h: { hour: number }) => h.hour)).toEqual([...Array(24).keys()]);
    for (const { hour, usage } of body.hourly as Array<{ hour: number; usage: number }>) {
      const from = Math.max(runningSince, today + hour * HOUR);
      const to = Math.min(servedAt, today + (hour + 1) * HOUR);
      expect(usage, `hour ${hour}`).toBeCloseTo(Math.max(0, to - from) / HOUR, 3);
    }
  });

  it('answers a stopped machine with its state and history, and no one but its owner', async () => {
    const { user, client, plan } = await customer(30);
    const now = Date.now();
    await machineWithHistory(user.id, plan.id, [[now - 3 * HOUR, now - 2 * HOUR]]);
    const reply = await client.call(`/api/vm/usage/${encodeURIComponent(user.email.toUpperCase())}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ vmLastState: 'stopped', isRunning: false, selectedDuration: 30 });
    expect(reply.body.vmUsageSeconds).toBe(3600);
    expect(reply.body.daily.reduce((sum: number, d: { usage: number }) => sum + d.usage, 0)).toBeCloseTo(
      1,
      4,
    );

    const other = await createUser(stack);
    const forbidden = await client.call(`/api/vm/usage/${encodeURIComponent(other.email)}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe('You can only see and change your own account.');

    const anonymous = await stack.api(`/api/vm/usage/${encodeURIComponent(user.email)}`);
    expect(anonymous.status).toBe(401);
  });

  it('answers someone without a plan or machine with empty history', async () => {
    const user = await createUser(stack);
    const client = newClient(stack);
    await logIn(client, user.email);
    const reply = await client.call(`/api/vm/usage/${encodeURIComponent(user.email)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ selectedPlan: '', isRunning: false, vmLastState: 'none', cpu: [] });
    expect(reply.body.daily).toHaveLength(7);
    expect(reply.body.hourly.every((h: { usage: number }) => h.usage === 0)).toBe(true);
  });
});

/** A user whose machine really runs in the sandbox EC2 (provisioned and synced by the jobs). */
async function runningInSandbox() {
  const deps = cloud.deps();
  const { user, client, plan } = await customer(45);
  await provisionVm(deps, { subscriptionId: plan.id, userId: user.id });
  const launched = await findVmBySubscription(stack.services.db, plan.id);
  if (!launched) throw new Error('no vm');
  cloud.advance(10 * MINUTE);
  await syncVms(deps, { vmId: launched.id });
  const vm = await cloud.vm(launched.id);
  expect(vm.state).toBe('running');
  return { user, client, vm };
}

/** The sandbox world's time: its EC2 clock moves when tests advance it. */
const worldNow = () => new Date(stack.sandboxEc2.state().now);

describe('metrics-pull', () => {
  it('stores each CPU and GPU sample once however often it runs, and the usage page shows them', async () => {
    const { user, client, vm } = await runningInSandbox();
    const now = worldNow();

    const first = await pullMetrics(pullDeps, now);
    expect(first.vms).toBeGreaterThanOrEqual(1);
    expect(first.samples).toBeGreaterThanOrEqual(2);
    expect(first.written).toBe(first.samples);
    const stored = await countSamples(stack.services.db, vm.id);
    expect(stored).toBeGreaterThanOrEqual(2);

    const second = await pullMetrics(pullDeps, now);
    expect(second.samples).toBe(first.samples);
    expect(second.written).toBe(0);
    expect(await countSamples(stack.services.db, vm.id)).toBe(stored);

    // Through the handler, as the worker runs it (twice in one batch).
    await metricsPull({ ...cloud.deps(), cloudWatch })([{ data: {} }, { data: {} }] as never);
    expect(await countSamples(stack.services.db, vm.id)).toBeGreaterThanOrEqual(stored);

    const page = await client.call(`/api/vm/usage/${encodeURIComponent(user.email)}`);
    expect(page.body.cpu.length).toBeGreaterThanOrEqual(1);
    expect(page.body.gpu.length).toBeGreaterThanOrEqual(1);
    for (const sample of [...page.body.cpu, ...page.body.gpu]) {
      expect(sample.value).toBeGreaterThanOrEqual(0);
      expect(sample.value).toBeLessThanOrEqual(100);
    }
  });

  it('leaves machines that stopped before the window out and deletes samples past retention', async () => {
    const { user, plan } = await customer(30);
    const now = worldNow();
    const old = await machineWithHistory(user.id, plan.id, [
      [now.getTime() - 5 * HOUR, now.getTime() - 4 * HOUR],
    ]);
    await upsertMetricSamples(stack.services.db, [
      { vmId: old.id, metric: 'cpu', at: new Date(now.getTime() - 9 * 86_400_000), value: 40 },
      { vmId: old.id, metric: 'cpu', at: new Date(now.getTime() - 4.5 * HOUR), value: 20 },
    ]);
    const report = await pullMetrics(pullDeps, now);
    expect(report.pruned).toBeGreaterThanOrEqual(1);
    // The recent one stays; the machine itself was not asked about (it ran hours ago).
    expect(await countSamples(stack.services.db, old.id)).toBe(1);
  });
});

describe('CloudWatch provider against the sandbox, through the real SDK', () => {
  const raw = new CloudWatchClient({
    region: stack.config.metrics.cloudWatch.region,
    endpoint: stack.config.metrics.cloudWatch.endpoint,
    credentials: stack.config.metrics.cloudWatch.credentials,
    maxAttempts: 1,
  });
  afterAll(() => raw.destroy());

  async function control(body: unknown) {
    const response = await fetch(`${stack.url}/sandbox/cloudwatch/_control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
  }

  it('reads CPU and GPU of a running instance and nothing for one EC2 does not run', async () => {
    const { vm } = await runningInSandbox();
    const end = worldNow();
    const samples = await cloudWatch.utilisation({
      instanceIds: [vm.instance_id!, 'i-0000000000000dead'],
      start: new Date(end.getTime() - 30 * MINUTE),
      end,
      periodSeconds: 60,
    });
    expect(new Set(samples.map((s) => s.instanceId))).toEqual(new Set([vm.instance_id]));
    expect(new Set(samples.map((s) => s.metric))).toEqual(new Set(['cpu', 'gpu']));
    for (const sample of samples) {
      expect(sample.at.getTime() % MINUTE).toBe(0);
      expect(sample.value).toBeGreaterThanOrEqual(0);
      expect(sample.value).toBeLessThanOrEqual(100);
    }
  });

  it('returns what a GPU poller put with PutMetricData, following every page', async () => {
    const instanceId = 'i-0aaaabbbbccccdddd';
    const end = Math.floor(worldNow().getTime() / MINUTE) * MINUTE;
    const values = Array.from({ length: 20 }, (_, i) => 30 + i);
    await raw.send(
      new PutMetricDataCommand({
        Namespace: 'LegendCloud/GPU',
        MetricData: values.map((value, i) => ({
          MetricName: 'GPUUtilization',
          Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
          Timestamp: new Date(end - (20 - i) * MINUTE),
          Value: value,
          Unit: 'Percent',
        })),
      }),
    );
    const samples = await cloudWatch.utilisation({
      instanceIds: [instanceId],
      start: new Date(end - 30 * MINUTE),
      end: new Date(end),
      periodSeconds: 60,
      maxDatapoints: 3,
    });
    expect(samples.filter((s) => s.metric === 'gpu').map((s) => s.value)).toEqual(values);
    expect(samples.filter((s) => s.metric === 'cpu')).toEqual([]);
  });

  it('asks about hundreds of machines in calls of at most 500 queries', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `i-${String(i).padStart(17, '0')}`);
    const end = worldNow();
    await expect(
      cloudWatch.utilisation({
        instanceIds: ids,
        start: new Date(end.getTime() - 10 * MINUTE),
        end,
        periodSeconds: 60,
      }),
    ).resolves.toEqual([]);
    // What one call of more would meet.
    const tooMany = raw.send(
      new GetMetricDataCommand({
        StartTime: new Date(end.getTime() - 10 * MINUTE),
        EndTime: end,
        MetricDataQueries: Array.from({ length: MAX_QUERIES_PER_CALL + 1 }, (_, i) => ({
          Id: `q${i}`,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/EC2',
              MetricName: 'CPUUtilization',
              Dimensions: [{ Name: 'InstanceId', Value: `i-${i}` }],
            },
            Period: 60,
            Stat: 'Average',
          },
        })),
      }),
    );
    await expect(tooMany).rejects.toBeInstanceOf(InvalidParameterValueException);
    await expect(tooMany).rejects.toMatchObject({
      Code: 'InvalidParameterValue',
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('surfaces CloudWatch’s errors as the SDK’s typed exceptions, and the SDK retries throttling', async () => {
    const end = worldNow();
    const request = {
      instanceIds: ['i-0123456789abcdef0'],
      start: new Date(end.getTime() - 10 * MINUTE),
      end,
      periodSeconds: 60,
    };

    await expect(cloudWatch.utilisation({ ...request, start: end })).rejects.toBeInstanceOf(
      InvalidParameterValueException,
    );

    await control({
      faults: [{ action: 'GetMetricData', code: 'InternalServiceError', message: 'Injected outage.' }],
    });
    const failed = cloudWatch.utilisation(request);
    await expect(failed).rejects.toBeInstanceOf(InternalServiceFault);
    await expect(failed).rejects.toMatchObject({ message: 'Injected outage.', $fault: 'server' });

    const retrying: CloudWatch = createCloudWatch({ ...stack.config.metrics.cloudWatch, maxAttempts: 3 });
    try {
      await control({
        faults: [{ action: 'GetMetricData', code: 'Throttling', message: 'Rate exceeded', times: 1 }],
      });
      await expect(retrying.utilisation(request)).resolves.toEqual([]);
    } finally {
      retrying.destroy();
    }
  });
});
