import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import {
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  RunInstancesCommand,
  StartInstancesCommand,
} from '@aws-sdk/client-ec2';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyEc2Error, createEc2Client, type Ec2, type LaunchInput } from '../../core/providers/ec2.ts';
import { decryptWindowsPassword, WindowsPasswordError } from '../../core/providers/windowsPassword.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2, type SandboxEc2, type SandboxEc2Options } from '../../sandbox/ec2/index.ts';

/**
 * The EC2 sandbox driven only through the real @aws-sdk/client-ec2 (via our provider), so
 * what passes here is what the jobs will see from the SDK against AWS.
 */

type Harness = {
  url: string;
  endpoint: string;
  sandbox: SandboxEc2;
  clock: { t: number };
  ec2: Ec2;
  /** Another client with SDK retries, to show what the SDK retries by itself. */
  retrying: Ec2;
  close(): Promise<void>;
};

const servers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of servers) await close();
});

/** A small seeded generator: durations vary like the real thing, yet every run is the same. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function listen(app: Koa): Promise<{ server: Server; url: string }> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}` };
}

async function start(options: SandboxEc2Options = {}): Promise<Harness> {
  const clock = { t: Date.parse('2030-01-01T00:00:00.000Z') };
  const sandbox = createSandboxEc2({ now: () => clock.t, random: seeded(7), ...options });
  const app = new Koa();
  const router = new Router();
  router.use('/sandbox/ec2', sandbox.router.routes(), sandbox.router.allowedMethods());
  app.use(router.routes());
  const { server, url } = await listen(app);
  const endpoint = `${url}/sandbox/ec2/`;
  const credentials = { accessKeyId: 'AKIASANDBOX', secretAccessKey: 'sandbox-secret' };
  const ec2 = createEc2Client({ region: 'ap-south-1', endpoint, credentials, maxAttempts: 1 });
  const retrying = createEc2Client({ region: 'ap-south-1', endpoint, credentials, maxAttempts: 3 });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    ec2.destroy();
    retrying.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await sandbox.flush();
  };
  servers.push(close);
  return { url, endpoint, sandbox, clock, ec2, retrying, close };
}

function launchInput(overrides: Partial<LaunchInput> = {}): LaunchInput {
  return {
    clientToken: `vm-${Math.random().toString(36).slice(2)}`,
    instanceType: 'g4dn.xlarge',
    imageId: 'ami-0abcdef1234567890',
    keyName: 'legend-sandbox',
    securityGroupIds: ['sg-0123456789abcdef0'],
    subnetId: 'subnet-0aaa1111',
    volumeSizeGb: 60,
    tags: { 'legend:vm': 'vm-x', 'legend:owner': 'user@example.com' },
    ...overrides,
  };
}

async function failure(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

const MINUTE = 60_000;

describe('sandbox EC2 through @aws-sdk/client-ec2', () => {
  it('launches once per ClientToken and refuses the token with other parameters', async () => {
    const h = await start();
    const input = launchInput({
      clientToken: 'vm-0001',
      tags: { 'legend:vm': 'vm-x', 'legend:owner': 'user@example.com', note: `O'Brien & <Co> "₹ 499"` },
    });
    const first = await h.ec2.launchInstance(input);
    const again = await h.ec2.launchInstance(input);
    expect(again.instanceId).toBe(first.instanceId);
    expect(first).toMatchObject({
      state: 'pending',
      instanceType: 'g4dn.xlarge',
      imageId: 'ami-0abcdef1234567890',
      publicIp: null,
      subnetId: 'subnet-0aaa1111',
      clientToken: 'vm-0001',
      tags: { 'legend:vm': 'vm-x', 'legend:owner': 'user@example.com', note: `O'Brien & <Co> "₹ 499"` },
    });
    expect(first.privateIp).toMatch(/^10\./);
    expect(first.availabilityZone).toMatch(/^ap-south-1[abc]$/);
    expect(h.sandbox.state().instances).toHaveLength(1);
    expect(h.sandbox.state().instances[0]).toMatchObject({ volumeSizeGb: 60, keyName: 'legend-sandbox' });

    const mismatch = await failure(h.ec2.launchInstance({ ...input, instanceType: 'g5.xlarge' }));
    expect(mismatch.name).toBe('IdempotentParameterMismatch');
    expect(h.sandbox.state().instances).toHaveLength(1);
  });

  it('describes by tag filters and states across pages of 1200 instances, and by ids in batches', async () => {
    const h = await start({ defaultCapacity: 5000 });
    for (let batch = 0; batch < 12; batch++) {
      await h.ec2.client.send(
        new RunInstancesCommand({
          ImageId: 'ami-0abcdef1234567890',
          InstanceType: 'g4dn.xlarge',
          MinCount: 100,
          MaxCount: 100,
          KeyName: 'legend-sandbox',
          SubnetId: 'subnet-0aaa1111',
          ClientToken: `batch-${batch}`,
          TagSpecifications: [
            {
              ResourceType: 'instance',
              Tags: [
                { Key: 'legend:env', Value: 'test' },
                { Key: 'legend:pool', Value: batch % 2 === 0 ? 'warm' : 'cold' },
              ],
            },
          ],
        }),
      );
    }
    h.clock.t += MINUTE;

    // Raw pages first, to see that the sandbox really pages.
    let pages = 0;
    let seen = 0;
    let nextToken: string | undefined;
    do {
      const page = await h.ec2.client.send(
        new DescribeInstancesCommand({
          Filters: [{ Name: 'tag:legend:env', Values: ['test'] }],
          MaxResults: 250,
          NextToken: nextToken,
        }),
      );
      pages += 1;
      seen += (page.Reservations ?? []).reduce((n, r) => n + (r.Instances?.length ?? 0), 0);
      nextToken = page.NextToken || undefined;
    } while (nextToken);
    expect(pages).toBe(5);
    expect(seen).toBe(1200);

    const all = await h.ec2.describeInstances({ tags: { 'legend:env': 'test' } });
    expect(all).toHaveLength(1200);
    expect(new Set(all.map((i) => i.instanceId)).size).toBe(1200);
    expect(all.every((i) => i.state === 'running' && i.publicIp !== null)).toBe(true);

    const warm = await h.ec2.describeInstances({ tags: { 'legend:pool': 'warm' } });
    expect(warm).toHaveLength(600);
    expect(await h.ec2.describeInstances({ tags: { 'legend:pool': ['warm', 'cold'] } })).toHaveLength(1200);
    expect(await h.ec2.describeInstances({ tagKeys: ['legend:pool'] })).toHaveLength(1200);
    expect(await h.ec2.describeInstances({ tags: { 'legend:pool': 'wa*' } })).toHaveLength(600);
    expect(await h.ec2.describeInstances({ tags: { 'legend:pool': 'hot' } })).toHaveLength(0);
    expect(await h.ec2.describeInstances({ instanceTypes: ['g5.xlarge'] })).toHaveLength(0);

    for (const instance of warm.slice(0, 30)) await h.ec2.stopInstance(instance.instanceId);
    expect(
      await h.ec2.describeInstances({ tags: { 'legend:pool': 'warm' }, states: ['stopping'] }),
    ).toHaveLength(30);
    h.clock.t += MINUTE;
    expect(
      await h.ec2.describeInstances({ tags: { 'legend:pool': 'warm' }, states: ['stopped'] }),
    ).toHaveLength(30);
    expect(await h.ec2.describeInstances({ states: ['running'] })).toHaveLength(1170);

    // By ids: 450 known ids plus one unknown, in batches; the unknown one is just absent.
    const ids = all.slice(0, 450).map((i) => i.instanceId);
    const byId = await h.ec2.describeInstances({ instanceIds: [...ids, 'i-0000000000000dead'] });
    expect(byId.map((i) => i.instanceId).sort()).toEqual([...ids].sort());
    expect(await h.ec2.describeInstances({ instanceIds: [] })).toEqual([]);
  });

  it('moves through the states with the injected clock, a new public IP on every start', async () => {
    const h = await start();
    const launched = await h.ec2.launchInstance(launchInput());
    const id = launched.instanceId;
    const describe = async () => {
      const [instance] = await h.ec2.describeInstances({ instanceIds: [id] });
      if (!instance) throw new Error('instance not described');
      return instance;
    };
    expect(await describe()).toMatchObject({ state: 'pending', publicIp: null });

    h.clock.t += 2_000; // fast profile: pending → running within 1–2 s
    const running = await describe();
    expect(running.state).toBe('running');
    expect(running.publicIp).toMatch(/^(203\.0\.113|198\.51\.100)\.\d+$/);

    const stopping = await h.ec2.stopInstance(id);
    expect(stopping).toEqual({ instanceId: id, previous: 'running', current: 'stopping' });
    expect(await h.ec2.stopInstance(id)).toEqual({
      instanceId: id,
      previous: 'stopping',
      current: 'stopping',
    });
    h.clock.t += 1_200;
    expect(await describe()).toMatchObject({ state: 'stopped', publicIp: null });
    expect(await h.ec2.stopInstance(id)).toEqual({ instanceId: id, previous: 'stopped', current: 'stopped' });

    h.clock.t += 10 * MINUTE;
    expect(await h.ec2.startInstance(id)).toEqual({
      instanceId: id,
      previous: 'stopped',
      current: 'pending',
    });
    expect(await describe()).toMatchObject({ state: 'pending', publicIp: null });
    h.clock.t += 2_000;
    const restarted = await describe();
    expect(restarted.state).toBe('running');
    expect(restarted.publicIp).toMatch(/^(203\.0\.113|198\.51\.100)\.\d+$/);
    expect(restarted.publicIp).not.toBe(running.publicIp);
    expect(restarted.privateIp).toBe(running.privateIp);
    // EC2's LaunchTime is the last start.
    expect(restarted.launchTime!.getTime()).toBeGreaterThan(running.launchTime!.getTime());
    expect(await h.ec2.startInstance(id)).toEqual({
      instanceId: id,
      previous: 'running',
      current: 'running',
    });

    expect(await h.ec2.terminateInstance(id)).toEqual({
      instanceId: id,
      previous: 'running',
      current: 'shutting-down',
    });
    h.clock.t += 1_200;
    expect(await describe()).toMatchObject({ state: 'terminated', publicIp: null });
    expect(await h.ec2.terminateInstance(id)).toEqual({
      instanceId: id,
      previous: 'terminated',
      current: 'terminated',
    });
    const restart = await failure(h.ec2.startInstance(id));
    expect(restart.name).toBe('IncorrectInstanceState');
    expect(classifyEc2Error(restart)).toBe('incorrect-state');

    // Terminated instances stay visible for about an hour, then are gone.
    h.clock.t += 30 * MINUTE;
    expect(await h.ec2.describeInstances({ instanceIds: [id] })).toHaveLength(1);
    h.clock.t += 31 * MINUTE;
    expect(await h.ec2.describeInstances({ instanceIds: [id] })).toHaveLength(0);
    const gone = await failure(h.ec2.terminateInstance(id));
    expect(gone.name).toBe('InvalidInstanceID.NotFound');
  });

  it('has no password data until first boot is done, then data the key pair decrypts', async () => {
    const h = await start({ profile: 'aws' });
    const { instanceId } = await h.ec2.launchInstance(launchInput());
    expect((await h.ec2.getPasswordData(instanceId)).passwordData).toBe('');

    h.clock.t += MINUTE; // running by now (aws: 20–40 s), Windows still in first boot
    expect((await h.ec2.describeInstances({ instanceIds: [instanceId] }))[0]?.state).toBe('running');
    const early = await h.ec2.getPasswordData(instanceId);
    expect(early.passwordData).toBe('');
    expect(decryptWindowsPassword(early.passwordData, h.sandbox.defaultPrivateKeyPem())).toEqual({
      status: 'not-ready',
    });

    h.clock.t += 5 * MINUTE; // 6 minutes after launch: always ready under the aws profile
    const data = await h.ec2.getPasswordData(instanceId);
    expect(data.passwordData).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(data.timestamp).toBeInstanceOf(Date);
    const decrypted = decryptWindowsPassword(data.passwordData, h.sandbox.defaultPrivateKeyPem());
    expect(decrypted.status).toBe('ready');
    if (decrypted.status !== 'ready') return;
    expect(decrypted.password).toMatch(/^[\x21-\x7e]{32}$/);
    // The same password every time, as AWS keeps the same data.
    expect((await h.ec2.getPasswordData(instanceId)).passwordData).toBe(data.passwordData);

    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(() => decryptWindowsPassword(data.passwordData, stranger)).toThrow(WindowsPasswordError);
  });

  it('encrypts to a configured key pair, and a stop before first boot ends delays the password', async () => {
    const ops = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicPem = ops.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const privatePem = ops.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const h = await start({ keyPairs: { 'ops-key': publicPem } });
    const { instanceId } = await h.ec2.launchInstance(launchInput({ keyName: 'ops-key' }));
    h.clock.t += 2_500; // running for at most 1.5 s: first boot (2–3 s) not done
    await h.ec2.stopInstance(instanceId);
    h.clock.t += 10 * MINUTE;
    expect((await h.ec2.getPasswordData(instanceId)).passwordData).toBe('');
    await h.ec2.startInstance(instanceId);
    h.clock.t += 2_000 + 3_000; // started, then the rest of first boot
    const data = await h.ec2.getPasswordData(instanceId);
    expect(decryptWindowsPassword(data.passwordData, privatePem).status).toBe('ready');

    const unknownKey = await failure(h.ec2.launchInstance(launchInput({ keyName: 'nobody' })));
    expect(unknownKey.name).toBe('InvalidKeyPair.NotFound');
  });

  it('surfaces every error code in the SDK as err.name, with AWS status codes and the request id', async () => {
    const h = await start({ capacity: { 'g5.xlarge': 0 } });
    const check = async (
      promise: Promise<unknown>,
      code: string,
      status: number,
      kind: ReturnType<typeof classifyEc2Error>,
    ) => {
      const error = await failure(promise);
      expect(error.name).toBe(code);
      expect(error.$metadata?.httpStatusCode).toBe(status);
      expect(error.$metadata?.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(classifyEc2Error(error)).toBe(kind);
      return error;
    };

    await check(
      h.ec2.launchInstance(launchInput({ instanceType: 'g5.xlarge' })),
      'InsufficientInstanceCapacity',
      500,
      'capacity',
    );

    h.sandbox.control({ faults: [{ action: 'DescribeInstances', code: 'RequestLimitExceeded', times: 1 }] });
    await check(h.ec2.describeInstances({ states: ['running'] }), 'RequestLimitExceeded', 503, 'throttled');

    await check(h.ec2.stopInstance('i-0123456789abcdef0'), 'InvalidInstanceID.NotFound', 400, 'not-found');

    const { instanceId } = await h.ec2.launchInstance(launchInput());
    await check(h.ec2.stopInstance(instanceId), 'IncorrectInstanceState', 400, 'incorrect-state'); // still pending

    h.sandbox.control({ vcpuLimit: 4 });
    await check(h.ec2.launchInstance(launchInput()), 'VcpuLimitExceeded', 400, 'limit');
    h.sandbox.control({ vcpuLimit: null });

    await check(
      h.ec2.launchInstance(launchInput({ instanceType: 'not a type' })),
      'InvalidParameterValue',
      400,
      'other',
    );
    await check(h.ec2.client.send(new DescribeVolumesCommand({})), 'UnsupportedOperation', 400, 'other');

    // Injected faults carry any code, with AWS's status for it.
    h.sandbox.control({ faults: [{ action: 'StartInstances', code: 'InsufficientInstanceCapacity' }] });
    await check(h.ec2.startInstance(instanceId), 'InsufficientInstanceCapacity', 500, 'capacity');
  });

  it('lets the SDK retry throttling and server errors by itself', async () => {
    const h = await start();
    h.sandbox.control({ faults: [{ action: 'DescribeInstances', code: 'RequestLimitExceeded', times: 1 }] });
    const output = await h.retrying.client.send(new DescribeInstancesCommand({}));
    expect(output.$metadata.attempts).toBe(2);

    h.sandbox.control({
      faults: [{ action: 'RunInstances', code: 'InsufficientInstanceCapacity', times: 1 }],
    });
    const input = launchInput();
    const launched = await h.retrying.launchInstance(input);
    expect(launched.clientToken).toBe(input.clientToken);
    expect(h.sandbox.state().faults).toEqual([]);
  });

  it('answers EC2 error XML with AuthFailure when the request is not signed', async () => {
    const h = await start();
    const response = await fetch(h.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=DescribeInstances&Version=2016-11-15',
    });
    expect(response.status).toBe(401);
    const requestId = response.headers.get('x-amzn-requestid');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.text()).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>AuthFailure</Code><Message>AWS was not able to validate the provided access credentials</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`,
    );
  });

  it('refuses a launch and a start beyond the capacity of an instance type', async () => {
    const h = await start({ capacity: { 'g5.xlarge': 1 } });
    const first = await h.ec2.launchInstance(launchInput({ instanceType: 'g5.xlarge' }));
    const full = await failure(h.ec2.launchInstance(launchInput({ instanceType: 'g5.xlarge' })));
    expect(full.name).toBe('InsufficientInstanceCapacity');
    expect(full.message).toContain('g5.xlarge');

    h.clock.t += 2_000;
    await h.ec2.stopInstance(first.instanceId);
    h.clock.t += 1_200;
    // Stopped, the machine gives its hardware back: someone else takes it…
    await h.ec2.launchInstance(launchInput({ instanceType: 'g5.xlarge' }));
    // …and the stopped one cannot start again.
    const noRoom = await failure(h.ec2.startInstance(first.instanceId));
    expect(noRoom.name).toBe('InsufficientInstanceCapacity');
    expect(classifyEc2Error(noRoom)).toBe('capacity');
    expect((await h.ec2.describeInstances({ instanceIds: [first.instanceId] }))[0]?.state).toBe('stopped');

    h.sandbox.control({ capacity: { 'g5.xlarge': 2 } });
    expect((await h.ec2.startInstance(first.instanceId)).current).toBe('pending');
  });

  it('changes a type only while stopped, grows a volume but never shrinks it, and restores a launch from a completed snapshot', async () => {
    const h = await start();
    const launched = await h.ec2.launchInstance(launchInput({ volumeSizeGb: 100 }));
    h.clock.t += 10 * MINUTE;
    const [running] = await h.ec2.describeInstances({ instanceIds: [launched.instanceId] });
    const volumeId = running!.rootVolumeId!;
    expect(volumeId).toMatch(/^vol-/);

    // As AWS: ModifyInstanceAttribute on a running instance is refused with the state error.
    const refused = await failure(h.ec2.modifyInstanceType(launched.instanceId, 'g4dn.2xlarge'));
    expect(refused.name).toBe('IncorrectInstanceState');
    expect(classifyEc2Error(refused)).toBe('incorrect-state');
    await h.ec2.stopInstance(launched.instanceId);
    h.clock.t += 5 * MINUTE;
    await h.ec2.modifyInstanceType(launched.instanceId, 'g4dn.2xlarge');
    expect(h.sandbox.state().instances[0]).toMatchObject({ instanceType: 'g4dn.2xlarge', state: 'stopped' });

    await h.ec2.growVolume(volumeId, 150);
    expect((await failure(h.ec2.growVolume(volumeId, 120))).name).toBe('InvalidParameterValue');
    expect((await failure(h.ec2.growVolume('vol-0000000000000000', 200))).name).toBe(
      'InvalidVolume.NotFound',
    );
    expect(h.sandbox.state().instances[0]?.volumeSizeGb).toBe(150);

    const snapshot = await h.ec2.createSnapshot(volumeId, 'kept disk', { 'legend:owner': 'u-1' });
    expect(snapshot).toMatchObject({
      state: 'pending',
      volumeId,
      volumeSizeGb: 150,
      tags: { 'legend:owner': 'u-1' },
    });
    // A pending snapshot cannot seed a volume yet.
    const early = await failure(
      h.ec2.launchInstance(launchInput({ snapshotId: snapshot.snapshotId, volumeSizeGb: 150 })),
    );
    expect(early.name).toBe('IncorrectState');
    h.clock.t += 10 * MINUTE;
    expect(await h.ec2.describeSnapshots({ tags: { 'legend:owner': 'u-1' } })).toMatchObject([
      { snapshotId: snapshot.snapshotId, state: 'completed' },
    ]);
    expect(await h.ec2.describeSnapshots({ snapshotIds: ['snap-0000000000000000'] })).toEqual([]);
    const small = await failure(
      h.ec2.launchInstance(launchInput({ snapshotId: snapshot.snapshotId, volumeSizeGb: 100 })),
    );
    expect(small.name).toBe('InvalidBlockDeviceMapping');
    const restored = await h.ec2.launchInstance(
      launchInput({ snapshotId: snapshot.snapshotId, volumeSizeGb: 150 }),
    );
    expect(h.sandbox.state().instances.find((i) => i.instanceId === restored.instanceId)).toMatchObject({
      restoredFromSnapshot: snapshot.snapshotId,
      volumeSizeGb: 150,
    });

    await h.ec2.deleteSnapshot(snapshot.snapshotId);
    // Deleting it again is success for our provider (already gone), NotFound on the wire.
    await h.ec2.deleteSnapshot(snapshot.snapshotId);
    expect(h.sandbox.state().snapshots).toEqual([]);
  });

  it('takes faults per subnet through the control API, so a launch can fall back to another subnet', async () => {
    const h = await start();
    const control = async (body: unknown) => {
      const response = await fetch(`${h.url}/sandbox/ec2/_control`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const set = await control({
      faults: [
        {
          action: 'RunInstances',
          code: 'InsufficientInstanceCapacity',
          times: 3,
          subnetId: 'subnet-0aaa1111',
        },
      ],
    });
    expect(set.status).toBe(200);

    const input = launchInput({ clientToken: 'vm-fallback', subnetId: 'subnet-0aaa1111' });
    const refused = await failure(h.ec2.launchInstance(input));
    expect(classifyEc2Error(refused)).toBe('capacity');
    // The failed launch did not use up the token: the same VM id launches in the fallback subnet.
    const fallback = await h.ec2.launchInstance({ ...input, subnetId: 'subnet-0bbb2222' });
    expect(fallback.subnetId).toBe('subnet-0bbb2222');

    const state = (await (await fetch(`${h.url}/sandbox/ec2/_state`)).json()) as {
      instances: Array<{ subnetId: string; clientToken: string }>;
      faults: Array<{ times: number }>;
    };
    expect(state.instances).toEqual([
      expect.objectContaining({ subnetId: 'subnet-0bbb2222', clientToken: 'vm-fallback' }),
    ]);
    expect(state.faults).toEqual([expect.objectContaining({ times: 2 })]);

    expect((await control({ faults: [{ action: 'RunInstances' }] })).status).toBe(400);
    expect((await control({ profile: 'slow' })).status).toBe(400);

    // advanceMs moves the sandbox's clock for HTTP-only callers such as the demo.
    expect((await h.ec2.describeInstances({ instanceIds: [fallback.instanceId] }))[0]?.state).toBe('pending');
    await control({ advanceMs: 5_000 });
    expect((await h.ec2.describeInstances({ instanceIds: [fallback.instanceId] }))[0]?.state).toBe('running');

    const reset = await fetch(`${h.url}/sandbox/ec2/_reset`, { method: 'POST' });
    expect(reset.status).toBe(204);
    expect(h.sandbox.state()).toMatchObject({ instances: [], faults: [] });
  });

  it('can hide a fresh instance for a while, like EC2 right after a launch', async () => {
    const h = await start();
    h.sandbox.control({ eventualConsistencyMs: 1_500 });
    const { instanceId } = await h.ec2.launchInstance(launchInput());
    const early = await failure(h.ec2.getPasswordData(instanceId));
    expect(early.name).toBe('InvalidInstanceID.NotFound');
    expect(classifyEc2Error(early)).toBe('not-found');
    expect(await h.ec2.describeInstances({ instanceIds: [instanceId] })).toEqual([]);
    h.clock.t += 1_500;
    expect(await h.ec2.describeInstances({ instanceIds: [instanceId] })).toHaveLength(1);
  });

  it('keeps instances, tokens and the key pair in the state file across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ec2-'));
    try {
      const stateFile = join(dir, 'ec2.json');
      const a = await start({ stateFile });
      const kept = await a.ec2.launchInstance(
        launchInput({ clientToken: 'vm-kept', tags: { 'legend:vm': 'kept' } }),
      );
      const stopped = await a.ec2.launchInstance(launchInput({ clientToken: 'vm-stopped' }));
      a.clock.t += 10_000;
      await a.ec2.stopInstance(stopped.instanceId);
      await a.ec2.tagInstances([kept.instanceId], { 'legend:note': 'renamed' });
      const password = decryptWindowsPassword(
        (await a.ec2.getPasswordData(kept.instanceId)).passwordData,
        a.sandbox.defaultPrivateKeyPem(),
      );
      const privateKey = a.sandbox.defaultPrivateKeyPem();
      await a.close();
      expect(existsSync(stateFile)).toBe(true);

      const b = await start({ stateFile });
      b.clock.t = a.clock.t + MINUTE;
      expect(b.sandbox.defaultPrivateKeyPem()).toBe(privateKey);
      const [keptAgain] = await b.ec2.describeInstances({ tags: { 'legend:vm': 'kept' } });
      expect(keptAgain).toMatchObject({
        instanceId: kept.instanceId,
        state: 'running',
        tags: { 'legend:note': 'renamed' },
      });
      expect((await b.ec2.describeInstances({ instanceIds: [stopped.instanceId] }))[0]?.state).toBe(
        'stopped',
      );
      expect(
        (await b.ec2.launchInstance(launchInput({ clientToken: 'vm-kept', tags: { 'legend:vm': 'kept' } })))
          .instanceId,
      ).toBe(kept.instanceId);
      expect(
        decryptWindowsPassword((await b.ec2.getPasswordData(kept.instanceId)).passwordData, privateKey),
      ).toEqual(password);
      // The stopped machine's old address may not come back on the next start.
      await b.ec2.startInstance(stopped.instanceId);
      await b.close();

      // A file that does not parse is moved aside, not trusted.
      writeFileSync(stateFile, '{"version": 1, "instan');
      const warnings: string[] = [];
      const c = await start({ stateFile, warn: (m) => warnings.push(m) });
      expect(c.sandbox.state().instances).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(readdirSync(dir).some((f) => f.startsWith('ec2.json.unreadable-'))).toBe(true);
      await c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is mounted by the sandbox at /sandbox/ec2, with or without the trailing slash', async () => {
    const clock = { t: Date.parse('2030-01-01T00:00:00.000Z') };
    const ec2Sandbox = createSandboxEc2({ now: () => clock.t });
    const app = new Koa();
    app.use(createSandbox({ profile: 'fast', ec2: ec2Sandbox }));
    const { server, url } = await listen(app);
    servers.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    for (const endpoint of [`${url}/sandbox/ec2`, `${url}/sandbox/ec2/`]) {
      const client = createEc2Client({
        region: 'ap-south-1',
        endpoint,
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
        maxAttempts: 1,
      });
      const launched = await client.launchInstance(launchInput());
      expect(launched.state).toBe('pending');
      const output = await client.client.send(
        new StartInstancesCommand({ InstanceIds: [launched.instanceId] }),
      );
      expect(output.StartingInstances?.[0]?.CurrentState).toEqual({ Code: 0, Name: 'pending' });
      client.destroy();
    }
    expect(ec2Sandbox.state().instances).toHaveLength(2);
  });
});
