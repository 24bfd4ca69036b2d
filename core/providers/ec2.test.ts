import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { classifyEc2Error, ec2RequestId, toInstance } from './ec2.ts';

function sdkError(name: string, status = 400): EC2ServiceException {
  return new EC2ServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, requestId: 'req-1' },
    message: 'm',
  });
}

describe('classifyEc2Error', () => {
  it.each([
    ['InsufficientInstanceCapacity', 'capacity'],
    ['InsufficientCapacity', 'capacity'],
    ['Unsupported', 'capacity'],
    ['RequestLimitExceeded', 'throttled'],
    ['EC2ThrottledException', 'throttled'],
    ['InvalidInstanceID.NotFound', 'not-found'],
    ['IncorrectInstanceState', 'incorrect-state'],
    ['VcpuLimitExceeded', 'limit'],
    ['InstanceLimitExceeded', 'limit'],
    ['InvalidParameterValue', 'other'],
    ['InvalidInstanceID.Malformed', 'other'],
    ['UnsupportedOperation', 'other'],
    ['AuthFailure', 'other'],
  ] as const)('%s → %s', (name, kind) => {
    expect(classifyEc2Error(sdkError(name))).toBe(kind);
  });

  it('calls anything that is not an SDK error other', () => {
    for (const value of [
      undefined,
      null,
      'InsufficientInstanceCapacity',
      42,
      {},
      new Error('socket hang up'),
      { name: 7 },
    ]) {
      expect(classifyEc2Error(value)).toBe('other');
    }
  });

  it('reads the request id of a failed call', () => {
    expect(ec2RequestId(sdkError('RequestLimitExceeded', 503))).toBe('req-1');
    expect(ec2RequestId(new Error('x'))).toBeUndefined();
  });
});

describe('toInstance', () => {
  it('maps the SDK shape, with null for what is not known', () => {
    expect(
      toInstance({
        InstanceId: 'i-0123456789abcdef0',
        State: { Code: 16, Name: 'running' },
        InstanceType: 'g4dn.xlarge',
        PublicIpAddress: '203.0.113.9',
        Tags: [{ Key: 'legend:vm', Value: 'vm-1' }, { Key: 'empty' }],
      }),
    ).toEqual({
      instanceId: 'i-0123456789abcdef0',
      state: 'running',
      instanceType: 'g4dn.xlarge',
      imageId: null,
      publicIp: '203.0.113.9',
      privateIp: null,
      subnetId: null,
      availabilityZone: null,
      launchTime: null,
      clientToken: null,
      rootVolumeId: null,
      tags: { 'legend:vm': 'vm-1', empty: '' },
    });
  });

  it('finds the root volume by the root device name', () => {
    expect(
      toInstance({
        InstanceId: 'i-1',
        RootDeviceName: '/dev/sda1',
        BlockDeviceMappings: [
          { DeviceName: 'xvdf', Ebs: { VolumeId: 'vol-data' } },
          { DeviceName: '/dev/sda1', Ebs: { VolumeId: 'vol-root' } },
        ],
      }).rootVolumeId,
    ).toBe('vol-root');
  });

  it('reads the state from the low byte of the code when the name is missing', () => {
    expect(toInstance({ InstanceId: 'i-1', State: { Code: 256 + 80 } }).state).toBe('stopped');
    expect(() => toInstance({})).toThrow();
  });
});
