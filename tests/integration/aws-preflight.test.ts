import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createEc2Client, type LaunchInput } from '../../core/providers/ec2.ts';
import { probeRdp } from '../../core/providers/rdpProbe.ts';
import { startTestStack, waitFor } from '../support/stack.ts';

/**
 * `npm run aws:check` against the sandbox EC2 of a running stack, as an operator runs it in
 * development; the sandbox answers DryRun and denials the way AWS does. And the Remote Desktop
 * probe against the sandbox's real per-instance listeners.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const RDP_PORT = 3389;

const stack = await startTestStack({ sandboxEc2: { rdpListener: { port: RDP_PORT } } });
const ec2 = createEc2Client({
  region: stack.config.ec2.region,
  endpoint: stack.config.ec2.endpoint,
  credentials: stack.config.ec2.credentials,
  instanceProfile: stack.config.ec2.instanceProfile,
  maxAttempts: 1,
});
afterAll(async () => {
  ec2.destroy();
  await stack.sandboxEc2.close();
});

/** The preflight as `npm run aws:check` runs it, with no AWS settings: the sandbox of the stack. */
async function awsCheck(
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; lines: string[]; stderr: string }> {
  const port = new URL(stack.url).port;
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    PORT: port,
    SANDBOX_URL: stack.url,
    ...extraEnv,
  };
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/awsCheck.ts'], { cwd: ROOT, env });
    return { code: 0, lines: stdout.trim().split('\n'), stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return {
      code: failed.code,
      lines: (failed.stdout ?? '').trim().split('\n'),
      stderr: failed.stderr ?? '',
    };
  }
}

/** A loopback port nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 1;
}

function launchInput(overrides: Partial<LaunchInput> = {}): LaunchInput {
  return {
    clientToken: `preflight-test-${Math.random().toString(36).slice(2)}`,
    instanceType: 'g4dn.xlarge',
    imageId: stack.config.ec2.amiByPlan.legend,
    keyName: stack.config.ec2.keyName,
    securityGroupIds: stack.config.ec2.securityGroupIds,
    subnetId: stack.config.ec2.subnetIds[0] ?? '',
    volumeSizeGb: 115,
    tags: { 'legend:app': 'legend-cloud', 'legend:deployment': stack.config.ec2.deploymentTag },
    ...overrides,
  };
}

describe('npm run aws:check against the sandbox', () => {
  it('prints one OK line per check and exits 0 when everything is in place', async () => {
    const { code, lines } = await awsCheck();
    const checks = lines.filter((line) => /^(OK|FAIL) /.test(line));
    expect(checks.map((line) => line.slice(0, 5).trim())).toEqual(checks.map(() => 'OK'));
    for (const name of [
      'credentials and region',
      'AMI ami-',
      'instance types offered',
      'G-instance vCPU quota',
      `security group allows ${RDP_PORT}`,
      'security group allows 8443 (Amazon DCV)',
      'security group allows Moonlight',
      'security group allows UDP 8443 (DCV over QUIC)',
      'security group keeps 47990 (Sunshine API) to WORKER_EGRESS_CIDRS',
      'key pair',
      'instance profile',
      'RunInstances DryRun',
      'EC2 Fast Launch',
    ]) {
      expect(
        checks.some((line) => line.startsWith(`OK   ${name}`)),
        name,
      ).toBe(true);
    }
    expect(code).toBe(0);
  });

  it("fails when Sunshine's API is open to more than the worker's egress addresses", async () => {
    // The sandbox's group lets 47990 in from loopback (where its worker runs); say the worker is elsewhere.
    const { code, lines } = await awsCheck({ WORKER_EGRESS_CIDRS: '198.51.100.7/32' });
    expect(lines.find((line) => line.startsWith('FAIL security group keeps 47990'))).toMatch(
      /TCP 47990 is open to 127\.0\.0\.0\/8.*fix: allow TCP 47990 only from WORKER_EGRESS_CIDRS \(198\.51\.100\.7\/32\)/,
    );
    expect(lines.filter((line) => line.startsWith('FAIL '))).toHaveLength(1);
    expect(code).toBe(1);
  });

  it('names each denied action in a FAIL line with the policy fix, and exits non-zero', async () => {
    stack.sandboxEc2.control({
      deny: ['ec2:RunInstances', 'ec2:DescribeKeyPairs', 'servicequotas:GetServiceQuota'],
    });
    try {
      const { code, lines } = await awsCheck();
      const fail = (name: string) => lines.find((line) => line.startsWith(`FAIL ${name}`));
      expect(fail('RunInstances DryRun')).toMatch(
        /not authorized to perform: ec2:RunInstances.*fix: attach infra\/iam\/worker-policy\.json/,
      );
      expect(fail('key pair')).toMatch(/ec2:DescribeKeyPairs.*fix: attach infra\/iam\/worker-policy\.json/);
      expect(fail('G-instance vCPU quota')).toMatch(/servicequotas:GetServiceQuota/);
      expect(lines.find((line) => line.startsWith('OK   credentials and region'))).toBeDefined();
      expect(lines.filter((line) => line.startsWith('FAIL '))).toHaveLength(3);
      expect(code).toBe(1);
    } finally {
      stack.sandboxEc2.control({ allow: ['*'] });
    }
  });

  it('fails the quota check with the figure to ask for when CAPACITY_LIMITS outgrows the quota', async () => {
    stack.sandboxEc2.control({ vcpuLimit: 8 });
    try {
      const { code, lines } = await awsCheck();
      expect(lines.find((line) => line.startsWith('FAIL G-instance vCPU quota'))).toMatch(
        /8 vCPUs, CAPACITY_LIMITS sells machines needing \d+ — fix: request \d+ vCPUs \(L-DB2E81BA\)/,
      );
      expect(code).toBe(1);
    } finally {
      stack.sandboxEc2.control({ vcpuLimit: null });
    }
  });
});

describe('npm run aws:check and EC2 Fast Launch', () => {
  const image = () => stack.config.ec2.amiByPlan.legend;

  it('says whether the image launches from pre-provisioned snapshots, and how to turn it on', async () => {
    const on = await awsCheck();
    expect(on.lines.find((line) => line.startsWith('OK   EC2 Fast Launch'))).toMatch(
      new RegExp(`on for ${image()} \\(legend.*5 pre-provisioned snapshots, up to 6 launches at once`),
    );
    stack.sandboxEc2.control({ fastLaunch: { [image()]: 'disabled' } });
    try {
      const off = await awsCheck();
      expect(off.lines.find((line) => line.startsWith('FAIL EC2 Fast Launch'))).toMatch(
        new RegExp(`off for ${image()}.*— fix: .*aws ec2 enable-fast-launch --image-id ${image()}`),
      );
      expect(off.code).toBe(1);
    } finally {
      stack.sandboxEc2.control({ fastLaunch: { [image()]: 'enabled' } });
    }
  });

  it('names the policy when the worker may not ask', async () => {
    stack.sandboxEc2.control({ deny: ['ec2:DescribeFastLaunchImages'] });
    try {
      const { code, lines } = await awsCheck();
      expect(lines.find((line) => line.startsWith('FAIL EC2 Fast Launch'))).toMatch(
        /denied: .*ec2:DescribeFastLaunchImages.*— fix: attach infra\/iam\/worker-policy\.json/,
      );
      expect(code).toBe(1);
    } finally {
      stack.sandboxEc2.control({ allow: ['ec2:DescribeFastLaunchImages'] });
    }
  });
});

/** A stack trace's frames, wherever they show. */
const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

describe('npm run aws:check follows its endpoints and says only the truth', () => {
  it('checks the instance types in the fallback subnets’ zones too, and that the instance profile exists', async () => {
    const { lines } = await awsCheck();
    const offered = lines.find((line) => line.startsWith('OK   instance types offered'));
    expect(offered).toMatch(/\(primary and fallback subnets\)/);
    expect(lines.find((line) => line.startsWith('OK   instance profile'))).toMatch(
      /legend-cloud-pc exists \(role legend-cloud-pc\)/,
    );
    const missing = await awsCheck({ EC2_INSTANCE_PROFILE: 'no-such-profile' });
    expect(missing.lines.find((line) => line.startsWith('FAIL instance profile'))).toMatch(
      /no-such-profile does not exist in this account — fix: create it with infra\/iam\/instance-policy\.json/,
    );
    expect(missing.code).toBe(1);
  });

  it('a Service Quotas endpoint that refuses: one FAIL line naming SERVICE_QUOTAS_ENDPOINT, no stack trace', async () => {
    const refusing = await closedPort();
    const { code, lines, stderr } = await awsCheck({
      SERVICE_QUOTAS_ENDPOINT: `http://127.0.0.1:${refusing}/`,
    });
    const quota = lines.filter((line) => line.includes('G-instance vCPU quota'));
    expect(quota).toHaveLength(1);
    expect(quota[0]).toMatch(
      new RegExp(
        `^FAIL G-instance vCPU quota: ECONNREFUSED at http://127\\.0\\.0\\.1:${refusing}/: .* — fix: make the endpoint reachable from here, or set SERVICE_QUOTAS_ENDPOINT$`,
      ),
    );
    // The other checks still ran against the sandbox.
    expect(lines.find((line) => line.startsWith('OK   RunInstances DryRun'))).toBeDefined();
    expect(`${lines.join('\n')}\n${stderr}`).not.toMatch(STACK_FRAME);
    expect(code).toBe(1);
  });

  it('an endpoint that answers, but not as Service Quotas does: one FAIL line, no stack trace', async () => {
    // The stack's own web process: an HTML page, not the service.
    const { code, lines, stderr } = await awsCheck({ SERVICE_QUOTAS_ENDPOINT: `${stack.url}/` });
    const quota = lines.filter((line) => line.includes('G-instance vCPU quota'));
    expect(quota).toHaveLength(1);
    expect(quota[0]).toMatch(/^FAIL G-instance vCPU quota: /);
    expect(quota[0]).not.toMatch(/\n/);
    expect(`${lines.join('\n')}\n${stderr}`).not.toMatch(STACK_FRAME);
    expect(code).toBe(1);
  });

  it('bad configuration: one sentence, as npm start gives it, no stack trace', async () => {
    const { code, lines, stderr } = await awsCheck({
      EC2_ENDPOINT: 'not a url',
      LAUNCH_BUDGET_PER_HOUR: 'gold=2',
    });
    expect(code).toBe(1);
    expect(lines.filter((line) => /^(OK|FAIL) /.test(line))).toHaveLength(0);
    const said = stderr.trim();
    expect(said.split('\n')).toHaveLength(1);
    expect(said).toMatch(/^aws:check cannot start: Invalid configuration: .*EC2_ENDPOINT/);
    expect(said).not.toMatch(STACK_FRAME);
  });

  it('against AWS (not the sandbox), an unreachable endpoint is never blamed on the sandbox', async () => {
    const refusing = await closedPort();
    const { code, lines, stderr } = await awsCheck({
      EC2_ENDPOINT: `http://127.0.0.1:${refusing}/`,
      EC2_SUBNET_IDS: 'subnet-0aaaa1111bbbb2222',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEEXAMPLE00',
      AWS_SECRET_ACCESS_KEY: 'example-secret-example-secret-0000',
      EC2_INSTANCE_PROFILE: 'legend-cloud-pc',
      EC2_KEY_NAME: 'legend-prod',
    });
    expect(lines[0]).toMatch(/^checking AWS ap-south-1 via http:\/\/127\.0\.0\.1:\d+\//);
    const fails = lines.filter((line) => line.startsWith('FAIL '));
    expect(fails.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(/sandbox|npm start/);
    expect(lines.find((line) => line.startsWith('FAIL credentials and region'))).toMatch(
      /ECONNREFUSED at http:\/\/127\.0\.0\.1:\d+\/.*fix: make the endpoint reachable from here, or set EC2_ENDPOINT/,
    );
    expect(`${lines.join('\n')}\n${stderr}`).not.toMatch(STACK_FRAME);
    expect(code).toBe(1);
  });
});

describe('npm run aws:check and the key pair', () => {
  it("passes with the key pair's own private key and fails with another's", async () => {
    const own = await awsCheck({ EC2_PRIVATE_KEY_PEM: stack.sandboxEc2.defaultPrivateKeyPem() });
    expect(own.lines.find((line) => line.startsWith('OK   key pair'))).toMatch(/private key loaded/);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const other = await awsCheck({
      EC2_PRIVATE_KEY_PEM: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    });
    expect(other.lines.find((line) => line.startsWith('FAIL key pair'))).toMatch(
      /EC2_PRIVATE_KEY_PEM is not the private half of legend-sandbox .*— fix: set EC2_PRIVATE_KEY_PEM/,
    );
    expect(other.code).toBe(1);
  });
});

describe("npm run aws:check and the machines' DNS zone", () => {
  const zone = { MACHINE_DNS_ZONE_ID: 'Z0SANDBOXLEGENDPLAY01', MACHINE_DNS_SUFFIX: 'play.legendcloud.test' };

  it('says names are off without a zone, and what that means', async () => {
    const { lines } = await awsCheck();
    expect(lines.find((line) => line.startsWith('OK   machine names'))).toMatch(
      /off \(MACHINE_DNS_ZONE_ID is unset\): customers reach their PC by an IP address that changes at every start/,
    );
  });

  it('checks the zone exists, is the suffix, is public and its records can be read', async () => {
    const { code, lines } = await awsCheck(zone);
    expect(lines.find((line) => line.startsWith('OK   machine names: Route 53 zone'))).toMatch(
      /Z0SANDBOXLEGENDPLAY01 is play\.legendcloud\.test\./,
    );
    expect(lines.some((line) => line.startsWith('OK   machine names: zone is public'))).toBe(true);
    expect(lines.some((line) => line.startsWith('OK   machine names: records readable'))).toBe(true);
    expect(code).toBe(0);
  });

  it('fails on a zone that does not exist, or is another domain, with the fix', async () => {
    const missing = await awsCheck({ ...zone, MACHINE_DNS_ZONE_ID: 'Z0NOSUCHZONE' });
    expect(missing.lines.find((line) => line.startsWith('FAIL machine names: Route 53 zone'))).toMatch(
      /NoSuchHostedZone.*fix: create a public hosted zone for play\.legendcloud\.test in Route 53 and set MACHINE_DNS_ZONE_ID/,
    );
    expect(missing.code).toBe(1);
    const other = await awsCheck({ ...zone, MACHINE_DNS_SUFFIX: 'play.example.in' });
    expect(other.lines.find((line) => line.startsWith('FAIL machine names: Route 53 zone'))).toMatch(
      /is play\.legendcloud\.test\., not MACHINE_DNS_SUFFIX play\.example\.in.*fix: set MACHINE_DNS_SUFFIX to play\.legendcloud\.test/,
    );
    expect(other.code).toBe(1);
  });
});

describe('the sandbox EC2 answers DryRun and IAM denials like AWS', () => {
  it('DryRun launches nothing; a denied action is UnauthorizedOperation with or without DryRun', async () => {
    const before = stack.sandboxEc2.state().instances.length;
    expect(await ec2.dryRunLaunch(launchInput())).toEqual({ allowed: true });
    expect(stack.sandboxEc2.state().instances).toHaveLength(before);

    stack.sandboxEc2.control({ deny: ['ec2:RunInstances'] });
    try {
      const denied = await ec2.dryRunLaunch(launchInput());
      expect(denied).toMatchObject({ allowed: false, code: 'UnauthorizedOperation' });
      await expect(ec2.launchInstance(launchInput())).rejects.toMatchObject({
        name: 'UnauthorizedOperation',
        $metadata: { httpStatusCode: 403 },
      });
    } finally {
      stack.sandboxEc2.control({ allow: ['ec2:RunInstances'] });
    }
    expect(stack.sandboxEc2.state().denied).toEqual([]);
  });

  it('launches carry the configured instance profile', async () => {
    const launched = await ec2.launchInstance(launchInput());
    const recorded = stack.sandboxEc2.state().instances.find((i) => i.instanceId === launched.instanceId);
    expect(recorded?.iamInstanceProfile).toBe(stack.config.ec2.instanceProfile);
    await ec2.terminateInstance(launched.instanceId);
  });
});

describe('the Remote Desktop probe against the sandbox listeners', () => {
  it('opens once the machine runs, follows the listener shut and reopened, and closes on stop', async () => {
    const launched = await ec2.launchInstance(launchInput());
    const running = await waitFor('the instance to run with a public IP', async () => {
      const [found] = await ec2.describeInstances({ instanceIds: [launched.instanceId] });
      return found?.state === 'running' && found.publicIp ? found : null;
    });
    const ip = running.publicIp as string;
    expect(ip).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(await probeRdp(ip, RDP_PORT, { timeoutMs: 2_000 })).toEqual({ state: 'open' });

    // Windows up, Remote Desktop not yet: EC2 still says running, the port refuses.
    await stack.sandboxEc2.setRdp(launched.instanceId, 'closed');
    expect(await probeRdp(ip, RDP_PORT, { timeoutMs: 2_000 })).toMatchObject({
      state: 'closed',
      reason: 'refused',
    });
    const [stillRunning] = await ec2.describeInstances({ instanceIds: [launched.instanceId] });
    expect(stillRunning?.state).toBe('running');

    await stack.sandboxEc2.setRdp(launched.instanceId, 'open');
    expect(await probeRdp(ip, RDP_PORT, { timeoutMs: 2_000 })).toEqual({ state: 'open' });

    await ec2.stopInstance(launched.instanceId);
    await waitFor('the listener to close after the stop', async () => {
      await stack.sandboxEc2.syncRdp();
      return (await probeRdp(ip, RDP_PORT, { timeoutMs: 2_000 })).state === 'closed';
    });
  });

  it('reports an address nobody listens on as closed within its timeout', async () => {
    const result = await probeRdp('127.0.0.1', 9, { timeoutMs: 1_000 });
    expect(result.state).toBe('closed');
  });
});
