import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { deriveEndpoint, SANDBOX_EC2 } from './vmConfig.ts';
import { subnetForAttempt } from '../domain/machineProvisioning.ts';
import { PRODUCTION_ENV } from './productionEnv.fixture.ts';

describe('cloud-PC configuration', () => {
  it('defaults to the sandbox EC2 with ids in AWS formats and one warm machine per card plan', () => {
    const config = loadConfig({ PORT: '4100' });
    expect(config.ec2).toMatchObject({
      mode: 'sandbox',
      region: 'ap-south-1',
      endpoint: 'http://127.0.0.1:4100/sandbox/ec2/',
      keyName: SANDBOX_EC2.keyName,
      subnetIds: SANDBOX_EC2.subnetIds,
      fallbackSubnetIds: SANDBOX_EC2.fallbackSubnetIds,
    });
    expect(config.ec2.amiByPlan.legend).toMatch(/^ami-[0-9a-f]{8,17}$/);
    expect(config.vm.warmPoolSize).toEqual({
      legend: 1,
      'pro-legend': 1,
      'ultra-legend': 1,
      'editor-low': 0,
      'editor-high': 0,
    });
    expect(config.vm).toMatchObject({ graceDays: 7, rdpPort: 3389, setupVideoUrl: null, pollSeconds: 1 });
  });

  it('reads per-plan AMIs, subnets, pool sizes and timings', () => {
    const config = loadConfig({
      EC2_AMI_ID: 'ami-00000000000000001',
      EC2_AMI_PRO_LEGEND: 'ami-00000000000000002',
      EC2_SUBNET_IDS: 'subnet-aaa, subnet-bbb',
      EC2_FALLBACK_SUBNET_IDS: 'subnet-ccc',
      WARM_POOL_SIZE: 'legend=3,ultra-legend=0',
      VM_GRACE_DAYS: '10',
      PROVISION_DEADLINE_MINUTES: '20',
      EC2_PRIVATE_KEY_PEM: '-----BEGIN RSA PRIVATE KEY-----\\nabc\\n-----END RSA PRIVATE KEY-----',
    });
    expect(config.ec2.amiByPlan).toMatchObject({
      legend: 'ami-00000000000000001',
      'pro-legend': 'ami-00000000000000002',
    });
    expect(config.ec2.subnetIds).toEqual(['subnet-aaa', 'subnet-bbb']);
    expect(config.vm.warmPoolSize).toMatchObject({ legend: 3, 'pro-legend': 0, 'ultra-legend': 0 });
    expect(config.vm).toMatchObject({ graceDays: 10, provisionDeadlineMinutes: 20 });
    expect(config.ec2.privateKeyPem).toBe(
      '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----',
    );
  });

  it('refuses malformed ids and half a credential pair', () => {
    expect(() => loadConfig({ EC2_AMI_ID: 'ubuntu' })).toThrow(ConfigError);
    expect(() => loadConfig({ EC2_SUBNET_IDS: 'sn-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ AWS_ACCESS_KEY_ID: 'AKIAAAAAAAAAAAAAAAAA' })).toThrow(/both AWS_ACCESS_KEY_ID/);
    expect(() => loadConfig({ WARM_POOL_SIZE: 'gold=2' })).toThrow(/WARM_POOL_SIZE/);
  });

  it('in production names every EC2 setting still missing', () => {
    try {
      loadConfig({ NODE_ENV: 'production' });
      throw new Error('expected a refusal');
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        'AWS_REGION',
        'EC2_KEY_NAME',
        'EC2_PRIVATE_KEY_PEM',
        'EC2_SECURITY_GROUP_IDS',
        'EC2_SUBNET_IDS',
        'EC2_AMI_ID',
        'WORKER_EGRESS_CIDRS',
      ]) {
        expect(message).toContain(name);
      }
    }
  });

  it('uses the SDK default credential chain unless static keys are given, and names the instance profile', () => {
    const aws = {
      EC2_SUBNET_IDS: 'subnet-0aaa',
      EC2_INSTANCE_PROFILE: 'legend-cloud-pc',
      AWS_REGION: 'ap-south-1',
    };
    const chain = loadConfig(aws);
    expect(chain.ec2).toMatchObject({ mode: 'aws', endpoint: undefined, credentials: undefined });
    expect(chain.ec2.instanceProfile).toBe('legend-cloud-pc');
    expect(chain.metrics.cloudWatch).toMatchObject({ endpoint: undefined, credentials: undefined });
    const keys = loadConfig({
      ...aws,
      AWS_ACCESS_KEY_ID: 'AKIAAAAAAAAAAAAAAAAA',
      AWS_SECRET_ACCESS_KEY: 'secret-secret-secret-0000',
      EC2_INSTANCE_PROFILE: 'arn:aws:iam::123456789012:instance-profile/legend-cloud-pc',
    });
    expect(keys.ec2.credentials).toEqual({
      accessKeyId: 'AKIAAAAAAAAAAAAAAAAA',
      secretAccessKey: 'secret-secret-secret-0000',
    });
    expect(keys.ec2.instanceProfile).toBe('arn:aws:iam::123456789012:instance-profile/legend-cloud-pc');
    expect(() => loadConfig({ ...aws, EC2_INSTANCE_PROFILE: 'no spaces allowed' })).toThrow(ConfigError);
    // The sandbox plays EC2 with its dummy keys and a profile name, so launches carry one there too.
    expect(loadConfig({}).ec2).toMatchObject({ mode: 'sandbox', instanceProfile: 'legend-cloud-pc' });
  });

  it('production starts without static keys (an instance or task role supplies them)', () => {
    const production = loadConfig(PRODUCTION_ENV);
    expect(production.ec2).toMatchObject({
      mode: 'aws',
      credentials: undefined,
      instanceProfile: null,
      workerEgressCidrs: ['203.0.113.10/32'],
    });
    expect(() => loadConfig({ WORKER_EGRESS_CIDRS: '203.0.113.10/33' })).toThrow(/WORKER_EGRESS_CIDRS/);
    // The sandbox's machines are loopback addresses this host reaches.
    expect(loadConfig({}).ec2.workerEgressCidrs).toEqual(['127.0.0.0/8']);
  });

  it('launches in the main subnets first, then the fallback subnets, then both in turn', () => {
    const ec2 = {
      ...loadConfig({}).ec2,
      subnetIds: ['subnet-a1', 'subnet-a2'],
      fallbackSubnetIds: ['subnet-b1'],
    };
    expect([0, 1, 2, 3, 4, 5].map((attempt) => subnetForAttempt(ec2, attempt, 2))).toEqual([
      'subnet-a1',
      'subnet-a2',
      'subnet-b1',
      'subnet-a1',
      'subnet-a2',
      'subnet-b1',
    ]);
    expect(subnetForAttempt({ ...ec2, fallbackSubnetIds: [] }, 5, 2)).toBe('subnet-a2');
  });
});

describe('the preflight endpoints and the launch budget', () => {
  it('derives Service Quotas and IAM from EC2_ENDPOINT the way the SDK builds hostnames', () => {
    expect(deriveEndpoint(undefined, 'servicequotas')).toBeUndefined();
    expect(deriveEndpoint('https://ec2.ap-south-1.amazonaws.com', 'servicequotas')).toBe(
      'https://servicequotas.ap-south-1.amazonaws.com/',
    );
    expect(deriveEndpoint('https://ec2-fips.us-east-1.amazonaws.com', 'servicequotas')).toBe(
      'https://servicequotas-fips.us-east-1.amazonaws.com/',
    );
    expect(deriveEndpoint('https://ec2.ap-south-1.amazonaws.com', 'iam')).toBe('https://iam.amazonaws.com/');
    expect(deriveEndpoint('http://127.0.0.1:4100/sandbox/ec2/', 'servicequotas')).toBe(
      'http://127.0.0.1:4100/sandbox/servicequotas/',
    );
    expect(deriveEndpoint('http://127.0.0.1:4100/sandbox/ec2/', 'iam')).toBe(
      'http://127.0.0.1:4100/sandbox/iam/',
    );
    // A VPC endpoint's own hostname names EC2 only.
    expect(
      deriveEndpoint('https://vpce-0a1b2c3d4e5f-abcd1234.ec2.ap-south-1.vpce.amazonaws.com', 'servicequotas'),
    ).toBeNull();
  });

  it('takes SERVICE_QUOTAS_ENDPOINT as given, and says when none can be derived', () => {
    const sandbox = loadConfig({ PORT: '4100' });
    expect(sandbox.ec2.serviceQuotasEndpoint).toBe('http://127.0.0.1:4100/sandbox/servicequotas/');
    expect(sandbox.ec2.iamEndpoint).toBe('http://127.0.0.1:4100/sandbox/iam/');
    const vpce = loadConfig({
      PORT: '4100',
      EC2_ENDPOINT: 'https://vpce-0a1b2c3d4e5f-abcd1234.ec2.ap-south-1.vpce.amazonaws.com',
    });
    expect(vpce.ec2.serviceQuotasEndpoint).toBeNull();
    const given = loadConfig({
      PORT: '4100',
      EC2_ENDPOINT: 'https://vpce-0a1b2c3d4e5f-abcd1234.ec2.ap-south-1.vpce.amazonaws.com',
      SERVICE_QUOTAS_ENDPOINT: 'https://vpce-9f8e-aa11.servicequotas.ap-south-1.vpce.amazonaws.com',
    });
    expect(given.ec2.serviceQuotasEndpoint).toBe(
      'https://vpce-9f8e-aa11.servicequotas.ap-south-1.vpce.amazonaws.com',
    );
  });

  it('reads LAUNCH_BUDGET_PER_HOUR: 4 each by default, one number, or pairs', () => {
    expect(loadConfig({ PORT: '4100' }).vm.launchBudget).toEqual({
      pool: { legend: 4, 'pro-legend': 4, 'ultra-legend': 4, 'editor-low': 4, 'editor-high': 4 },
      machine: 4,
    });
    expect(loadConfig({ PORT: '4100', LAUNCH_BUDGET_PER_HOUR: '2' }).vm.launchBudget.machine).toBe(2);
    expect(
      loadConfig({ PORT: '4100', LAUNCH_BUDGET_PER_HOUR: 'legend=6,machine=3' }).vm.launchBudget,
    ).toMatchObject({ pool: { legend: 6, 'pro-legend': 4 }, machine: 3 });
    expect(() => loadConfig({ PORT: '4100', LAUNCH_BUDGET_PER_HOUR: 'gold=2' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '4100', LAUNCH_BUDGET_PER_HOUR: 'gold=2' })).toThrow(
      /LAUNCH_BUDGET_PER_HOUR: "gold=2" is not plan=count/,
    );
  });
});
