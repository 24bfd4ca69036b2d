import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openHealthSecret, signHealthReport } from '../../core/crypto/machineSecrets.ts';
import { createSmokeRun, endSmokeRun } from '../../core/db/imageSmokeRuns.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import {
  SMOKE_CHECK_LABELS,
  SMOKE_CHECKS,
  SMOKE_RUN_MAX_MINUTES,
  type SmokeCheck,
} from '../../core/domain/imageSmoke.ts';
import { smokeTags } from '../../core/providers/vmEc2.ts';
import { reconcileInstances } from '../../worker/jobs/vmReconcile.ts';
import { loopbackAddress, requestFrom } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * `npm run aws:smoke` against the sandbox, as an operator runs it in development: the real script
 * as a child process with the stack's environment, launching through the sandbox EC2 a machine
 * whose image's reporter (the sandbox's) posts signed reports to this stack's web process.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const APP_SECRET = 'test-secret-test-secret-test-secret-000';
const stack = await startTestStack({ env: { APP_SECRET } });
const cloud = cloudPcHelpers(stack);
afterAll(() => cloud.destroy());
const db = stack.services.db;
const image = stack.config.ec2.amiByPlan.legend;

type Smoke = { code: number | null; lines: string[] };

/**
 * Runs the script to its end. `whenLine` is called with each line as it is printed, with the child
 * (so a test can interrupt it at a given point).
 */
function smoke(
  args: string[],
  whenLine: (line: string, child: ReturnType<typeof spawn>) => void = () => {},
): Promise<Smoke> {
  const child = spawn(process.execPath, ['scripts/awsSmoke.ts', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: new URL(stack.url).port,
      DATABASE_URL: stack.databaseUrl,
      APP_SECRET,
      SANDBOX_URL: stack.url,
      EC2_PRIVATE_KEY_PEM: stack.sandboxEc2.defaultPrivateKeyPem(),
      VM_POLL_SECONDS: '0.5',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let pending = '';
  const take = (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const line of complete) {
      lines.push(line);
      whenLine(line, child);
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (pending) lines.push(pending);
      resolve({ code, lines });
    });
  });
}

const sunshineDefaults = async (defaults: Record<string, unknown>) => {
  const reply = await stack.api('/sandbox/sunshine/_control', { method: 'POST', body: { defaults } });
  expect(reply.status).toBe(204);
};
afterEach(() => sunshineDefaults({}));

const SmokeRunRow = z.object({
  id: z.uuid(),
  instance_id: z.string().nullable(),
  outcome: z.string().nullable(),
  ended_at: z.date().nullable(),
});
const lastRun = () =>
  db.maybeOne(sql.type(SmokeRunRow)`
    SELECT id, instance_id, outcome, ended_at FROM image_smoke_runs ORDER BY started_at DESC LIMIT 1`);

/** What the sandbox EC2 says of an instance now. */
const ec2State = (instanceId: string) =>
  stack.sandboxEc2.state().instances.find((i) => i.instanceId === instanceId)?.state;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const line = (lines: string[], check: SmokeCheck) =>
  lines.find((l) => / {0,2}(OK|FAIL) +/.test(l) && l.includes(` ${SMOKE_CHECK_LABELS[check]}`)) ?? '';

describe('npm run aws:smoke against the sandbox', () => {
  it('says what it will cost and launches nothing without --yes', async () => {
    const before = stack.sandboxEc2.state().instances.length;
    const { code, lines } = await smoke(['--ami', image]);
    expect(code).toBe(2);
    expect(lines.join('\n')).toMatch(
      new RegExp(
        `one g4dn\\.xlarge \\(LEGEND\\) from ${image} in ap-south-1 with a 115 GB disk.*US\\$0\\.76 an hour`,
      ),
    );
    expect(lines).toContain('Nothing was launched. Run again with --yes to go ahead.');
    expect(stack.sandboxEc2.state().instances).toHaveLength(before);
    expect(await lastRun()).toBeNull();
  });

  it('refuses arguments it cannot use, with the usage', async () => {
    const bad = await smoke(['--ami', 'ubuntu', '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.lines[0]).toBe('--ami must be an image id such as ami-0123456789abcdef0.');
    const plan = await smoke(['--ami', image, '--plan', 'MEGA', '--yes']);
    expect(plan.code).toBe(2);
    expect(plan.lines[0]).toMatch(/--plan must be one of LEGEND, PRO LEGEND/);
  });

  it('passes a healthy machine: one OK line per check with its minutes, and the machine terminated', async () => {
    const { code, lines } = await smoke(['--ami', image, '--plan', 'LEGEND', '--yes']);
    expect(lines).toContainEqual(expect.stringMatching(/^PASSED: every check passed/));
    for (const check of SMOKE_CHECKS)
      expect(line(lines, check), check).toMatch(
        new RegExp(`^OK   ${escape(SMOKE_CHECK_LABELS[check])} \\(\\d+\\.\\d min\\): `),
      );
    expect(line(lines, 'gpu')).toContain('NVIDIA T4, as g4dn.xlarge carries');
    expect(line(lines, 'audio')).toContain('Steam Streaming Speakers; Windows Audio running');
    const run = await lastRun();
    expect(run).toMatchObject({ outcome: 'passed' });
    expect(run?.ended_at).not.toBeNull();
    expect(lines).toContain(`Terminated ${run?.instance_id} (shutting-down).`);
    expect(ec2State(run?.instance_id ?? '')).toMatch(/shutting-down|terminated/);
    expect(code).toBe(0);
  }, 120_000);

  it('fails each check whose fault the machine reports, and still terminates it', async () => {
    await sunshineDefaults({
      health: {
        driverLicensed: false,
        gpuName: 'NVIDIA A10G',
        displayModes: false,
        audio: false,
        gamepad: false,
        sunshineApi: false,
        dcvRunning: false,
        consoleHandoff: false,
        partitionExtended: false,
      },
    });
    const { code, lines } = await smoke(['--ami', image, '--yes', '--settle-minutes', '0.05']);
    expect(line(lines, 'password')).toMatch(/^OK /);
    const expected: Array<[SmokeCheck, RegExp]> = [
      ['licence', /reports unlicensed/],
      ['gpu', /NVIDIA A10G, but g4dn\.xlarge carries an NVIDIA T4/],
      ['display', /missing 8 of 32 modes: 1280x720@144/],
      ['audio', /no audio endpoint; Windows Audio not running/],
      ['gamepad', /ViGEmBus missing/],
      ['sunshine-api', /refused the machine’s own credentials/],
      ['dcv', /dcvserver not running/],
      ['remote-desktop', /console hand-back task is missing/],
      ['disk', /partition not extended: C: 59\.4 GB of a 115 GB volume, 55\.6 GB unallocated/],
    ];
    for (const [check, seen] of expected) {
      expect(line(lines, check), check).toMatch(new RegExp(`^FAIL ${escape(SMOKE_CHECK_LABELS[check])}: `));
      expect(line(lines, check), check).toMatch(seen);
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/^FAILED: gaming driver licence, GPU of the plan, .* still failing/),
    );
    const run = await lastRun();
    expect(run).toMatchObject({ outcome: 'failed' });
    expect(ec2State(run?.instance_id ?? '')).toMatch(/shutting-down|terminated/);
    expect(code).toBe(1);
  }, 120_000);

  it('terminates the machine and exits non-zero when no report comes by the deadline', async () => {
    await sunshineDefaults({ reporting: 'off' });
    const { code, lines } = await smoke(['--ami', image, '--yes', '--deadline-minutes', '0.1']);
    expect(lines).toContainEqual(expect.stringMatching(/^FAILED: no health report within 0\.1 minutes \(/));
    const run = await lastRun();
    expect(run).toMatchObject({ outcome: 'no-report' });
    expect(ec2State(run?.instance_id ?? '')).toMatch(/shutting-down|terminated/);
    expect(code).toBe(1);
  }, 120_000);

  it('terminates the machine on Ctrl-C (SIGINT) and exits 130', async () => {
    await sunshineDefaults({ reporting: 'off' });
    let sent = false;
    const { code, lines } = await smoke(['--ami', image, '--yes'], (printed, child) => {
      // Interrupted while it waits for the first report, its machine running.
      if (!sent && / runs at 127\./.test(printed)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(lines).toContain('SIGINT: ending the run and terminating the machine…');
    const run = await lastRun();
    expect(run).toMatchObject({ outcome: 'interrupted' });
    expect(lines).toContain(`Terminated ${run?.instance_id} (shutting-down).`);
    expect(ec2State(run?.instance_id ?? '')).toMatch(/shutting-down|terminated/);
    expect(code).toBe(130);
  }, 120_000);
});

describe("the health endpoint and a smoke run's machine", () => {
  it("takes the run's report only from the run's machine and only while the run is open", async () => {
    await sunshineDefaults({ reporting: 'off' });
    let runAddress = '';
    const checkWhileOpen = new Promise<void>((resolve, reject) => {
      void smoke(['--ami', image, '--yes', '--deadline-minutes', '0.3'], (printed) => {
        const running = / runs at (127\.[\d.]+) /.exec(printed);
        if (!running) return;
        runAddress = running[1] ?? '';
        resolve();
      }).catch(reject);
    });
    await checkWhileOpen;
    const run = await waitFor('the run recorded with its address', async () => {
      const row = await db.maybeOne(sql.type(z.object({ id: z.uuid(), instance_id: z.string() }))`
        SELECT id, instance_id FROM image_smoke_runs WHERE public_ip = ${runAddress} AND ended_at IS NULL`);
      return row;
    });
    const runId = run.id;
    const sealed = await db.oneFirst(sql.type(z.object({ health_secret_sealed: z.string() }))`
      SELECT health_secret_sealed FROM machine_secrets WHERE launch_token = ${runId}`);
    const secret = openHealthSecret(APP_SECRET, sealed);
    const post = (from: string) => {
      const body = JSON.stringify({
        instanceId: run.instance_id,
        gpu: { name: 'NVIDIA T4', driverVersion: '591.59', licensed: true },
        display: { present: true, width: 1920, height: 1080, refreshHz: 60 },
        sunshine: { running: true, certSha256: null },
        dcv: { running: true },
        rdp: { listening: true },
        disk: { freeBytes: 50 * 1024 ** 3, totalBytes: 115 * 1024 ** 3 },
      });
      const timestamp = Math.floor(Date.now() / 1000);
      return requestFrom(from, `${stack.url}/api/machine/health`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-legend-timestamp': String(timestamp),
          'x-legend-signature': signHealthReport(secret, timestamp, body),
        },
        body,
      });
    };
    expect((await post(loopbackAddress())).status).toBe(403);
    expect((await post(runAddress)).status).toBe(200);
    await waitFor('the run to end', async () => (await lastRun())?.ended_at ?? null, 60_000);
    // Over: its secrets prove nothing any more.
    expect((await post(runAddress)).status).toBe(401);
  }, 120_000);
});

describe("the orphan sweep and a smoke run's machine", () => {
  it('leaves the machine to its open run, and takes it once the run is over or has held it too long', async () => {
    const deps = cloud.deps();
    async function runWithMachine(startedAt: Date) {
      const runId = randomUUID();
      await createSmokeRun(db, {
        id: runId,
        imageId: image,
        planId: 'legend',
        instanceType: 'g4dn.xlarge',
        startedAt,
      });
      const launched = await deps.vmEc2.launcher.launchInstance({
        clientToken: runId,
        instanceType: 'g4dn.xlarge',
        imageId: image,
        keyName: stack.config.ec2.keyName,
        securityGroupIds: stack.config.ec2.securityGroupIds,
        subnetId: stack.config.ec2.subnetIds[0] ?? '',
        volumeSizeGb: 115,
        tags: smokeTags(stack.config.ec2, { id: runId, planId: 'legend' }),
      });
      return { runId, instanceId: launched.instanceId };
    }
    const open = await runWithMachine(new Date());
    const over = await runWithMachine(new Date());
    await endSmokeRun(db, over.runId, 'interrupted', new Date());
    // A run killed outright never ends: past its longest, its machine is any stray's.
    const abandoned = await runWithMachine(new Date(Date.now() - (SMOKE_RUN_MAX_MINUTES + 1) * 60_000));

    await reconcileInstances(deps);
    const reported = new Set(
      (await listAlerts(db)).filter((a) => a.kind === 'orphan-instance').map((a) => a.instance_id),
    );
    expect(reported.has(open.instanceId)).toBe(false);
    expect(reported.has(over.instanceId)).toBe(true);
    expect(reported.has(abandoned.instanceId)).toBe(true);
    for (const { instanceId } of [open, over, abandoned]) await deps.vmEc2.ec2.terminateInstance(instanceId);
  });
});
