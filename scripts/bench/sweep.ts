import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { loadConfig } from '../../core/config/config.ts';
import { createDbPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createVmEc2, TAGS } from '../../core/providers/vmEc2.ts';
import { startBoss } from '../../core/queue.ts';
import type { WorkerDeps } from '../../worker/deps.ts';
import { sweepFleet, type SweepStats } from '../../worker/lifecycle/sweep.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import { fmtMs, fmtRatio, heading, median, record } from './lib.ts';

/**
 * vm-sync at fleet size: COUNT machine rows (half running, half stopped, each on an active plan)
 * and COUNT instances in the sandbox EC2 (its own process, as EC2 is elsewhere), reached over
 * HTTP through the real SDK. Timed: one
 * minute-sweep pass (`sweepFleet`, as the cron runs it) against the bare cost of reading the
 * same fleet from EC2 (DescribeInstances by tag, every page), measured in the same run. Then
 * 1 % of the machines change (shut down from inside Windows) and a pass is timed again, to
 * show the work follows what changed. Each figure is the median of PASSES passes.
 *
 * Also printed: reading the same fleet by instance id (200 per call, how the sweep used to
 * ask), as a second baseline.
 */

const COUNT = Number(process.env.BENCH_SWEEP_MACHINES ?? 10_000);
const PASSES = Number(process.env.BENCH_SWEEP_PASSES ?? 3);
const HOUR = 3_600_000;

export async function benchSweep(): Promise<void> {
  heading(`vm-sync: one sweep pass over ${COUNT.toLocaleString('en')} machines and instances`);
  const database = await startScratchDatabase('bench-sweep-', 'bench_sweep');
  const child: ChildProcess = spawn(process.execPath, ['scripts/bench/sweepEc2Server.ts'], {
    env: { ...process.env, BENCH_SWEEP_CAPACITY: String(COUNT * 2) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = await new Promise<{ port: number; privateKeyPem: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as never));
    child.once('exit', (code) => reject(new Error(`the sandbox EC2 exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${started.port}`;
  const advance = async (ms: number) => {
    const answer = await fetch(`${base}/sandbox/ec2/_control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceMs: ms }),
    });
    if (!answer.ok) throw new Error(`the sandbox refused to move its clock: ${answer.status}`);
    await answer.arrayBuffer();
  };
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    SANDBOX_URL: base,
    EC2_PRIVATE_KEY_PEM: started.privateKeyPem,
  });
  const db = await createDbPool(database.url, { maximumPoolSize: 4 });
  const boss = await startBoss(database.url, 'script');
  const vmEc2 = createVmEc2(config.ec2);
  const deps: WorkerDeps = {
    config,
    db,
    boss,
    log: createLogger({ level: 'silent', name: 'bench' }),
    mailer: null as never,
    vmEc2,
    cloudWatch: null as never,
    remoteDesktop: null as never,
  };
  try {
    const seedStart = performance.now();
    const instanceIds = await seedInstances(base, config.ec2.deploymentTag, advance);
    await seedRows(database.url, instanceIds);
    console.log(
      `seeded ${instanceIds.length.toLocaleString('en')} instances (half running, half stopped) and as many machine rows in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    const listByTag = () =>
      vmEc2.ec2.describeInstances({ tags: { [TAGS.deployment]: config.ec2.deploymentTag } });
    const timed = async <T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> => {
      const started = performance.now();
      const value = await run();
      return { ms: performance.now() - started, value };
    };
    await listByTag(); // warm-up: connections, JIT
    const bare: number[] = [];
    const steady: Array<{ ms: number; value: SweepStats }> = [];
    for (let i = 0; i < PASSES; i++) {
      const listed = await timed(listByTag);
      if (listed.value.length !== COUNT) throw new Error(`EC2 listed ${listed.value.length} instances`);
      bare.push(listed.ms);
      steady.push(await timed(() => sweepFleet(deps)));
    }
    const byId = await timed(() => vmEc2.ec2.describeInstances({ instanceIds }));

    // 1 % shut down from inside Windows: their rows must follow, the rest stays untouched.
    const running = instanceIds.filter((_, i) => i % 2 === 0);
    const changedCount = Math.max(1, Math.floor(COUNT / 100));
    const changed: Array<{ ms: number; value: SweepStats }> = [];
    for (let i = 0; i < PASSES; i++) {
      const batch = running.slice(i * changedCount, (i + 1) * changedCount);
      await stopAll(base, batch);
      await advance(HOUR);
      changed.push(await timed(() => sweepFleet(deps)));
    }

    const bareMs = median(bare);
    const steadyMs = median(steady.map((s) => s.ms));
    const changedMs = median(changed.map((s) => s.ms));
    const stats = steady[steady.length - 1]!.value;
    const changedStats = changed[changed.length - 1]!.value;
    const pass = record('sweep', {
      name: `vm-sync pass, ${COUNT} machines, nothing changed but usage`,
      value: steadyMs,
      unit: 'ms',
      baseline: { name: `DescribeInstances by tag, every page of ${COUNT}`, value: bareMs, unit: 'ms' },
      detail: { passes: steady.map((s) => Math.round(s.ms)), stats },
    });
    const afterChange = record('sweep', {
      name: `vm-sync pass, ${COUNT} machines, ${changedCount} shut down since the last pass`,
      value: changedMs,
      unit: 'ms',
      baseline: { name: `DescribeInstances by tag, every page of ${COUNT}`, value: bareMs, unit: 'ms' },
      detail: { passes: changed.map((s) => Math.round(s.ms)), stats: changedStats },
    });
    const viaIds = record('sweep', {
      name: `DescribeInstances by id (200 per call), ${COUNT} instances`,
      value: byId.ms,
      unit: 'ms',
      baseline: { name: `DescribeInstances by tag, every page of ${COUNT}`, value: bareMs, unit: 'ms' },
    });
    console.log(
      `EC2 alone: DescribeInstances by tag, ${stats.instances.toLocaleString('en')} instances in ${Math.ceil(COUNT / 1000)} pages: ${fmtMs(bareMs)} (median of ${PASSES}); ` +
        `by id, 200 per call: ${fmtMs(byId.ms)} (${fmtRatio(viaIds.ratio)})`,
    );
    console.log(
      `sweep pass, steady: ${fmtMs(steadyMs)} (${fmtRatio(pass.ratio)} the bare listing; passes ${steady.map((s) => fmtMs(s.ms)).join(' / ')}) — ` +
        `${stats.pages} pages, ${stats.unchanged} unchanged (no write), ${stats.accrued} running accrued in ${stats.pages} batched writes, ${stats.stepped} stepped one by one`,
    );
    console.log(
      `sweep pass, ${changedCount} shut down since the last: ${fmtMs(changedMs)} (${fmtRatio(afterChange.ratio)}; passes ${changed.map((s) => fmtMs(s.ms)).join(' / ')}) — ` +
        `${changedStats.stepped} stepped one by one, ${changedStats.accrued} accrued, ${changedStats.unchanged} unchanged`,
    );
  } finally {
    vmEc2.destroy();
    await boss.stop({ graceful: false });
    await db.end();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await database.stop();
  }
}

/**
 * EC2 Query calls for seeding only (the product calls EC2 through core/providers, one instance
 * at a time): RunInstances of 1,000 and StopInstances of 1,000 ids, as a script would send them.
 */
async function ec2Call(base: string, params: Record<string, string>): Promise<string> {
  const answer = await fetch(`${base}/sandbox/ec2/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'AWS4-HMAC-SHA256 Credential=bench/seed',
    },
    body: new URLSearchParams({ Version: '2016-11-15', ...params }),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${params.Action} answered ${answer.status}: ${text.slice(0, 300)}`);
  return text;
}

/** COUNT instances of this deployment through RunInstances (1,000 a call), then every other one stopped. */
async function seedInstances(
  base: string,
  deploymentTag: string,
  advance: (ms: number) => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < COUNT) {
    const n = String(Math.min(1000, COUNT - ids.length));
    const xml = await ec2Call(base, {
      Action: 'RunInstances',
      ImageId: 'ami-0be0c0000000000f1',
      InstanceType: 'g4dn.xlarge',
      MinCount: n,
      MaxCount: n,
      'TagSpecification.1.ResourceType': 'instance',
      'TagSpecification.1.Tag.1.Key': TAGS.app,
      'TagSpecification.1.Tag.1.Value': 'legend-cloud',
      'TagSpecification.1.Tag.2.Key': TAGS.deployment,
      'TagSpecification.1.Tag.2.Value': deploymentTag,
    });
    for (const match of xml.matchAll(/<instanceId>(i-[0-9a-f]+)<\/instanceId>/g)) ids.push(match[1]!);
  }
  await advance(HOUR);
  await stopAll(
    base,
    ids.filter((_, i) => i % 2 === 1),
  );
  await advance(HOUR);
  return ids;
}

async function stopAll(base: string, instanceIds: string[]): Promise<void> {
  for (let i = 0; i < instanceIds.length; i += 1000) {
    const params: Record<string, string> = { Action: 'StopInstances' };
    instanceIds.slice(i, i + 1000).forEach((id, n) => (params[`InstanceId.${n + 1}`] = id));
    await ec2Call(base, params);
  }
}

/** One user, active 30 h plan and machine per instance: even ones running (a minute since the last count), odd ones stopped. */
async function seedRows(url: string, instanceIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMPORARY TABLE seed ON COMMIT DROP AS
       SELECT n, instance_id, gen_random_uuid() AS user_id, gen_random_uuid() AS sub_id
       FROM unnest($1::text[]) WITH ORDINALITY AS t(instance_id, n)`,
      [instanceIds],
    );
    await client.query(`
      INSERT INTO users (id, email, name) SELECT user_id, 'sweep' || n || '@example.com', 'Sweep ' || n FROM seed`);
    await client.query(`
      INSERT INTO subscriptions (id, user_id, plan_id, plan_name, hours, storage_gb, instance_type, price_paise,
                                 status, purchased_at, expires_at)
      SELECT sub_id, user_id, 'legend', 'LEGEND', 30, 115, 'g4dn.xlarge', 145000, 'active',
             now() - interval '1 day', now() + interval '29 days'
      FROM seed`);
    await client.query(`
      INSERT INTO vms (user_id, subscription_id, plan_id, instance_type, storage_gb, state, source, instance_id,
                       public_ip, password_encrypted, usage_seconds, usage_counted_at, launched_at, stopped_at)
      SELECT user_id, sub_id, 'legend', 'g4dn.xlarge', 115,
             CASE WHEN n % 2 = 1 THEN 'running' ELSE 'stopped' END, 'launch', instance_id,
             CASE WHEN n % 2 = 1 THEN '203.0.113.1' END, 'sealed', 3600,
             CASE WHEN n % 2 = 1 THEN now() - interval '1 minute' END,
             now() - interval '1 day',
             CASE WHEN n % 2 = 0 THEN now() - interval '1 hour' END
      FROM seed`);
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
