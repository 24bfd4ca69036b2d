import { describe, expect, it } from 'vitest';
import { createEngine, vcpusOf, type EngineOptions, type RunRequest } from './engine.ts';
import { Ec2Error } from './errors.ts';

function engine(overrides: Partial<EngineOptions> = {}) {
  const clock = { t: 1_000_000 };
  const e = createEngine({
    profile: 'fast',
    now: () => clock.t,
    random: () => 0.5,
    region: 'ap-south-1',
    ownerId: '123456789012',
    keyPairs: {},
    defaultKeyName: 'legend-sandbox',
    capacity: {},
    defaultCapacity: 50,
    vcpuLimit: null,
    terminatedVisibleMs: 3_600_000,
    defaultSubnetId: 'subnet-0default',
    publicIps: 'documentation',
    onChange: () => {},
    ...overrides,
  });
  return { e, clock };
}

function run(overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    imageId: 'ami-0abcdef1234567890',
    instanceType: 'g4dn.xlarge',
    minCount: 1,
    maxCount: 1,
    keyName: null,
    subnetId: null,
    securityGroupIds: [],
    clientToken: null,
    instanceTags: [],
    volumeSizeGb: null,
    rootDeviceName: null,
    iamInstanceProfile: null,
    ...overrides,
  };
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof Ec2Error) return error.code;
    throw error;
  }
  throw new Error('expected an Ec2Error');
}

describe('sandbox EC2 engine', () => {
  it('gives running instances distinct public IPs from the documentation ranges, even with a constant random source', () => {
    const { e, clock } = engine({ defaultCapacity: 1000 });
    e.runInstances(run({ minCount: 400, maxCount: 400 }));
    clock.t += 5_000;
    const ips = e
      .describeInstances({ instanceIds: [], filters: [], maxResults: null, nextToken: null })
      .views.map((v) => v.publicIp);
    expect(
      ips.every(
        (ip) => ip !== null && /^(203\.0\.113|198\.51\.100)\.([1-9]\d?|1\d\d|2[0-4]\d|25[0-4])$/.test(ip),
      ),
    ).toBe(true);
    expect(new Set(ips).size).toBe(400);
  });

  it('counts stopping and shutting-down machines against capacity until they settle', () => {
    const { e, clock } = engine({ capacity: { 'g5.xlarge': 1 } });
    const [first] = e.runInstances(run({ instanceType: 'g5.xlarge' })).views;
    clock.t += 5_000;
    e.stopInstances([first!.record.instanceId]);
    expect(codeOf(() => e.runInstances(run({ instanceType: 'g5.xlarge' })))).toBe(
      'InsufficientInstanceCapacity',
    );
    clock.t += 5_000;
    expect(e.runInstances(run({ instanceType: 'g5.xlarge' })).views).toHaveLength(1);
  });

  it('launches as many as fit between MinCount and MaxCount', () => {
    const { e } = engine({ capacity: { 'g4dn.xlarge': 3 } });
    expect(e.runInstances(run({ minCount: 1, maxCount: 5 })).views).toHaveLength(3);
    expect(codeOf(() => e.runInstances(run({ minCount: 1, maxCount: 5 })))).toBe(
      'InsufficientInstanceCapacity',
    );
  });

  it('refuses malformed requests with the EC2 codes', () => {
    const { e } = engine();
    expect(codeOf(() => e.runInstances(run({ imageId: 'windows' })))).toBe('InvalidAMIID.Malformed');
    expect(codeOf(() => e.runInstances(run({ keyName: 'missing' })))).toBe('InvalidKeyPair.NotFound');
    expect(codeOf(() => e.runInstances(run({ volumeSizeGb: 10 })))).toBe('InvalidParameterValue');
    expect(codeOf(() => e.runInstances(run({ minCount: 2, maxCount: 1 })))).toBe('InvalidParameterValue');
    expect(codeOf(() => e.startInstances(['bogus']))).toBe('InvalidInstanceID.Malformed');
    const describe = (request: Partial<Parameters<typeof e.describeInstances>[0]>) =>
      codeOf(() =>
        e.describeInstances({ instanceIds: [], filters: [], maxResults: null, nextToken: null, ...request }),
      );
    expect(describe({ filters: [{ name: 'colour', values: ['red'] }] })).toBe('InvalidParameterValue');
    expect(describe({ maxResults: 2 })).toBe('InvalidParameterValue');
    expect(describe({ nextToken: 'nonsense' })).toBe('InvalidParameterValue');
    expect(describe({ maxResults: 10, instanceIds: ['i-0123456789abcdef0'] })).toBe(
      'InvalidParameterCombination',
    );
  });

  it('spends a fault only on matching requests, and only as many times as asked', () => {
    const { e } = engine();
    e.control({
      faults: [
        { action: 'RunInstances', code: 'InsufficientInstanceCapacity', times: 2, subnetId: 'subnet-0aaa' },
      ],
    });
    e.checkFaults('RunInstances', { subnetId: 'subnet-0bbb', instanceType: 'g4dn.xlarge' });
    e.checkFaults('StartInstances', { instanceIds: [] });
    expect(codeOf(() => e.checkFaults('RunInstances', { subnetId: 'subnet-0aaa' }))).toBe(
      'InsufficientInstanceCapacity',
    );
    expect(codeOf(() => e.checkFaults('RunInstances', { subnetId: 'subnet-0aaa' }))).toBe(
      'InsufficientInstanceCapacity',
    );
    e.checkFaults('RunInstances', { subnetId: 'subnet-0aaa' });
    expect(e.snapshot().faults).toEqual([]);
  });

  it('knows the vCPUs of the plan types', () => {
    expect(vcpusOf('g4dn.xlarge')).toBe(4);
    expect(vcpusOf('g4dn.2xlarge')).toBe(8);
    expect(vcpusOf('g5.xlarge')).toBe(4);
  });
});
