import { createHash, createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { readRawBody } from '../body.ts';
import {
  createEngine,
  vcpusOf,
  VPC_ID,
  type ControlInput,
  type Engine,
  type SnapshotView,
} from './engine.ts';
import { Ec2Error } from './errors.ts';
import { createSaver, loadState, type Saver } from './persistence.ts';
import {
  bool,
  filters,
  int,
  parseParams,
  required,
  scalarList,
  str,
  structList,
  tags,
  type Params,
} from './query.ts';
import { createRdpListeners, type RdpListeners } from './rdpListeners.ts';
import { STATE_CODES } from './records.ts';
import { createDcvServers, type DcvServers } from '../dcv/index.ts';
import { createSunshineHosts, type SunshineHosts } from '../sunshine/index.ts';
import { reservationsXml, instanceXml, stateChangeXml } from './render.ts';
import { createSandboxServiceQuotas } from './serviceQuotas.ts';
import { createSandboxIam } from './iam.ts';
import type { ProfileName } from './timing.ts';
import { errorDocument, items, leaf, node, responseDocument } from './xml.ts';

/**
 * A stand-in for the EC2 API that the real `@aws-sdk/client-ec2` talks to: the EC2 Query
 * protocol at `POST /` (mounted at /sandbox/ec2), XML answers and EC2's error format.
 * Signatures are not checked, but a request without an Authorization header is refused as
 * AWS would. Tests and the demo steer it through `/_control`, `/_state` and `/_reset`.
 */

export type SandboxEc2Options = {
  profile?: ProfileName;
  /** Milliseconds since the epoch; tests pass a clock they move by hand. */
  now?: () => number;
  /** In [0, 1): samples transition durations and picks addresses. */
  random?: () => number;
  /** Key pair name → PEM (public, or private whose public half is used). */
  keyPairs?: Record<string, string>;
  /** The key pair generated on first need, its private key available from `defaultPrivateKeyPem()`. */
  defaultKeyName?: string;
  /** Instances of a type that may hold hardware at once; others get `defaultCapacity`. */
  capacity?: Record<string, number>;
  defaultCapacity?: number;
  /** The account's On-Demand vCPU quota; null for none. */
  vcpuLimit?: number | null;
  region?: string;
  ownerId?: string;
  /** How long terminated instances stay visible (AWS: about an hour). */
  terminatedVisibleMs?: number;
  defaultSubnetId?: string;
  /** Keep the world in this JSON file across restarts. */
  stateFile?: string;
  saveDebounceMs?: number;
  warn?: (message: string) => void;
  /**
   * Give every running instance a real TCP listener on this port, at a loopback address the
   * sandbox reports as its public IP (127.16.0.1 and up), so a Remote Desktop probe of
   * `publicIp:port` is a real connection. Off: public IPs come from the documentation ranges.
   */
  rdpListener?: { port: number } | undefined;
  /**
   * Give every running instance (with a loopback address: needs `rdpListener`) an Amazon DCV
   * stand-in on this port, verifying tokens at `verifierUrl` as DCV's `auth-token-verifier`.
   */
  dcv?: { port: number; verifierUrl: string } | undefined;
  /**
   * Give every running instance launched with our user data (with a loopback address: needs
   * `rdpListener`) a Sunshine stand-in on this port and the image's health reporter.
   */
  sunshine?: { port: number } | undefined;
};

export type SandboxEc2 = {
  /** Routes without a prefix: mount at /sandbox/ec2. */
  router: Router;
  control(input: ControlInput & Pick<z.input<typeof ControlSchema>, 'fastLaunch'>): void;
  /** Shut or reopen an instance's Remote Desktop listener, settled when it resolves. */
  setRdp(instanceId: string, state: 'open' | 'closed'): Promise<void>;
  /** Brings the Remote Desktop listeners in line with the instances running now. */
  syncRdp(): Promise<void>;
  state(): ReturnType<Engine['snapshot']>;
  reset(): void;
  defaultKeyName: string;
  defaultPrivateKeyPem(): string;
  /** Writes pending state to the state file now. */
  flush(): Promise<void>;
  /** The Service Quotas stand-in over the same account: mount at /sandbox/servicequotas. */
  serviceQuotas: Router;
  /** The IAM stand-in over the same account (its instance profiles): mount at /sandbox/iam. */
  iam: Router;
  /** The Sunshine stand-ins' control and state (mount at /sandbox/sunshine), when they run. */
  sunshine: Router | null;
  /** Closes the Remote Desktop listeners (and flushes state). */
  close(): Promise<void>;
};

export type { ControlInput } from './engine.ts';

const Range = z
  .tuple([z.number().int().min(0), z.number().int().min(0)])
  .refine(([min, max]) => min <= max, 'min above max');

export const ControlSchema = z.strictObject({
  faults: z
    .array(
      z.strictObject({
        action: z.string().min(1),
        code: z.string().min(1),
        message: z.string().optional(),
        status: z.number().int().min(400).max(599).optional(),
        times: z.number().int().min(1).optional(),
        /** Sandbox milliseconds it answers for (times then unlimited unless given). */
        forMs: z.number().int().min(1).optional(),
        subnetId: z.string().optional(),
        instanceType: z.string().optional(),
        instanceId: z.string().optional(),
      }),
    )
    .optional(),
  clearFaults: z.boolean().optional(),
  /** Events scheduled on instances' hardware (DescribeInstanceStatus): in `inMs`, or at `notBefore`. */
  events: z
    .array(
      z.strictObject({
        instanceId: z.string().regex(/^i-[0-9a-f]{8,17}$/),
        code: z.enum([
          'instance-retirement',
          'instance-stop',
          'instance-reboot',
          'system-reboot',
          'system-maintenance',
        ]),
        description: z.string().max(255).optional(),
        inMs: z.number().int().min(0).optional(),
        notBefore: z.iso.datetime().optional(),
        durationMs: z.number().int().min(0).optional(),
      }),
    )
    .optional(),
  capacity: z.record(z.string(), z.number().int().min(0).nullable()).optional(),
  defaultCapacity: z.number().int().min(0).optional(),
  vcpuLimit: z.number().int().min(0).nullable().optional(),
  profile: z.enum(['fast', 'aws']).optional(),
  timings: z
    .strictObject({ launch: Range, password: Range, start: Range, stop: Range, terminate: Range })
    .partial()
    .optional(),
  advanceMs: z.number().int().min(0).optional(),
  eventualConsistencyMs: z.number().int().min(0).optional(),
  keyPairs: z.record(z.string(), z.string()).optional(),
  deny: z
    .array(z.string().regex(/^[a-z0-9-]+:[A-Za-z]+$/, 'an IAM action such as ec2:RunInstances'))
    .optional(),
  allow: z.array(z.string().regex(/^([a-z0-9-]+:[A-Za-z]+|\*)$/)).optional(),
  /** Instance profiles the account has (IAM GetInstanceProfile), besides `legend-cloud-pc`. */
  instanceProfiles: z.array(z.string().regex(/^[\w+=,.@-]{1,128}$/)).optional(),
  /** Shut or reopen an instance's Remote Desktop listener (it still runs in EC2's eyes). */
  rdp: z.record(z.string().regex(/^i-[0-9a-f]{8,17}$/), z.enum(['open', 'closed'])).optional(),
  /**
   * An image's EC2 Fast Launch state, as DescribeFastLaunchImages reports it. Every image starts
   * `enabled` (the operator did infra/README.md's step); `disabled` leaves it out of the answer.
   */
  fastLaunch: z
    .record(
      z.string().regex(/^ami-[0-9a-f]{8,17}$/),
      z.enum(['enabled', 'enabling', 'enabling-failed', 'enabled-failed', 'disabling', 'disabled']),
    )
    .optional(),
});

/** The instance profile the account has from the start: the one infra/README.md creates. */
const DEFAULT_INSTANCE_PROFILE = 'legend-cloud-pc';

/** Zones the sandbox region has, and the GPU types it offers in each. */
const ZONE_LETTERS = ['a', 'b', 'c'];
const OFFERED_TYPES = [
  'g4dn.xlarge',
  'g4dn.2xlarge',
  'g4dn.4xlarge',
  'g5.xlarge',
  'g5.2xlarge',
  'g5.4xlarge',
];

/**
 * EC2's fingerprint of a key pair: for one EC2 created, the SHA-1 of its private key (PKCS#8
 * DER); for an imported public key, the MD5 of the public key (SubjectPublicKeyInfo DER).
 */
function keyFingerprint(pem: string | null): string {
  if (!pem) return '';
  const hex = pem.includes('PRIVATE KEY')
    ? createHash('sha1')
        .update(createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' }))
        .digest('hex')
    : createHash('md5')
        .update(createPublicKey(pem).export({ type: 'spki', format: 'der' }))
        .digest('hex');
  return hex.match(/../g)?.join(':') ?? hex;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const raw = await readRawBody(
    req,
    () => new Ec2Error('InvalidParameterValue', 'The request body is too large.'),
  );
  return raw.toString('utf8');
}

export function createSandboxEc2(options: SandboxEc2Options = {}): SandboxEc2 {
  const region = options.region ?? 'ap-south-1';
  const ownerId = options.ownerId ?? '123456789012';
  const warn = options.warn ?? ((message: string) => console.warn(message));
  let saver: Saver | null = null;
  const engine = createEngine({
    profile: options.profile ?? 'fast',
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    region,
    ownerId,
    keyPairs: options.keyPairs ?? {},
    defaultKeyName: options.defaultKeyName ?? 'legend-sandbox',
    capacity: options.capacity ?? {},
    defaultCapacity: options.defaultCapacity ?? 50,
    vcpuLimit: options.vcpuLimit ?? null,
    terminatedVisibleMs: options.terminatedVisibleMs ?? 60 * 60 * 1000,
    defaultSubnetId: options.defaultSubnetId ?? 'subnet-0sandbox0000000001',
    publicIps: options.rdpListener ? 'loopback' : 'documentation',
    onChange: () => saver?.schedule(),
  });
  if (options.stateFile) {
    const saved = loadState(options.stateFile, warn);
    if (saved) engine.restore(saved);
    const file = options.stateFile;
    saver = createSaver(file, () => engine.serialize(), options.saveDebounceMs ?? 250, warn);
  }

  const instanceProfiles = new Set<string>();
  const listeners: RdpListeners | null = options.rdpListener
    ? createRdpListeners(options.rdpListener.port, warn)
    : null;
  const dcvServers: DcvServers | null =
    options.dcv && options.rdpListener ? createDcvServers({ ...options.dcv, warn }) : null;
  const sunshineHosts: SunshineHosts | null =
    options.sunshine && options.rdpListener
      ? createSunshineHosts({ port: options.sunshine.port, profile: options.profile ?? 'fast', warn })
      : null;
  const syncListeners = async () => {
    const running = engine.runningAddresses();
    await Promise.all([listeners?.sync(running), dcvServers?.sync(running), sunshineHosts?.sync(running)]);
  };

  function snapshotXml(v: SnapshotView): string {
    const r = v.record;
    return (
      leaf('snapshotId', r.snapshotId) +
      leaf('volumeId', r.volumeId) +
      leaf('status', v.state) +
      leaf('startTime', new Date(r.startedAt).toISOString()) +
      leaf('progress', v.progress) +
      leaf('ownerId', ownerId) +
      leaf('volumeSize', r.volumeSizeGb) +
      leaf('description', r.description) +
      leaf('encrypted', false) +
      leaf('storageTier', 'standard') +
      items(
        'tagSet',
        r.tags.map((tag) => leaf('key', tag.key) + leaf('value', tag.value)),
      )
    );
  }

  // Fast Launch per image: a well-formed image not named here is `enabled`.
  const fastLaunch = new Map<string, NonNullable<z.infer<typeof ControlSchema>['fastLaunch']>[string]>();

  function handle(action: string, params: Params): string {
    engine.checkAuthorized(`ec2:${action}`);
    switch (action) {
      case 'RunInstances': {
        const instanceTags = structList(params, 'TagSpecification')
          .filter((spec) => spec.get('ResourceType') === 'instance')
          .flatMap((spec) => tags(spec));
        const root = structList(params, 'BlockDeviceMapping')[0];
        const volumeSize = root ? int(root, 'Ebs.VolumeSize') : undefined;
        const request = {
          imageId: required(params, 'ImageId'),
          instanceType: str(params, 'InstanceType') ?? 'm1.small',
          minCount: int(params, 'MinCount') ?? 1,
          maxCount: int(params, 'MaxCount') ?? 1,
          keyName: str(params, 'KeyName') ?? null,
          subnetId: str(params, 'SubnetId') ?? null,
          securityGroupIds: scalarList(params, 'SecurityGroupId'),
          clientToken: str(params, 'ClientToken') ?? null,
          instanceTags,
          volumeSizeGb: volumeSize ?? null,
          rootDeviceName: root?.get('DeviceName') ?? null,
          iamInstanceProfile:
            str(params, 'IamInstanceProfile.Arn') ?? str(params, 'IamInstanceProfile.Name') ?? null,
          snapshotId: root?.get('Ebs.SnapshotId') ?? null,
          userData: str(params, 'UserData') ?? null,
        };
        engine.checkFaults(action, { subnetId: request.subnetId, instanceType: request.instanceType });
        dryRun(params);
        const result = engine.runInstances(request);
        return (
          leaf('reservationId', result.reservationId) +
          leaf('ownerId', ownerId) +
          items(
            'instancesSet',
            result.views.map((v) => instanceXml(engine, region, v)),
          )
        );
      }
      case 'DescribeInstances': {
        const instanceIds = scalarList(params, 'InstanceId');
        // Asked by filter (as the worker asks), the ids named there are what a fault can target.
        const filteredIds = filters(params)
          .filter((f) => f.name === 'instance-id')
          .flatMap((f) => f.values);
        engine.checkFaults(action, { instanceIds: [...instanceIds, ...filteredIds] });
        dryRun(params);
        const result = engine.describeInstances({
          instanceIds,
          filters: filters(params),
          maxResults: int(params, 'MaxResults') ?? null,
          nextToken: str(params, 'NextToken') || null,
        });
        return (
          items('reservationSet', reservationsXml(engine, region, ownerId, result.views)) +
          leaf('nextToken', result.nextToken)
        );
      }
      case 'StartInstances':
      case 'StopInstances':
      case 'TerminateInstances': {
        const instanceIds = scalarList(params, 'InstanceId');
        if (instanceIds.length === 0)
          throw new Ec2Error('MissingParameter', 'The request must contain the parameter InstanceId');
        engine.checkFaults(action, { instanceIds });
        dryRun(params);
        const changes =
          action === 'StartInstances'
            ? engine.startInstances(instanceIds)
            : action === 'StopInstances'
              ? engine.stopInstances(instanceIds)
              : engine.terminateInstances(instanceIds);
        return items('instancesSet', changes.map(stateChangeXml));
      }
      case 'GetPasswordData': {
        const instanceId = required(params, 'InstanceId');
        engine.checkFaults(action, { instanceIds: [instanceId] });
        dryRun(params);
        const result = engine.getPasswordData(instanceId);
        return (
          leaf('instanceId', result.instanceId) +
          leaf('timestamp', new Date(result.timestamp).toISOString()) +
          leaf('passwordData', result.passwordData)
        );
      }
      case 'DescribeInstanceStatus': {
        const instanceIds = scalarList(params, 'InstanceId');
        engine.checkFaults(action, { instanceIds });
        dryRun(params);
        const result = engine.describeInstanceStatus({
          instanceIds,
          includeAll: bool(params, 'IncludeAllInstances'),
          filters: filters(params),
          maxResults: int(params, 'MaxResults') ?? null,
          nextToken: str(params, 'NextToken') || null,
        });
        const ok =
          leaf('status', 'ok') + items('details', [leaf('name', 'reachability') + leaf('status', 'passed')]);
        return (
          items(
            'instanceStatusSet',
            result.views.map(
              (v) =>
                leaf('instanceId', v.record.instanceId) +
                leaf('availabilityZone', v.record.availabilityZone) +
                items(
                  'eventsSet',
                  v.events.map(
                    (e) =>
                      leaf('instanceEventId', e.eventId) +
                      leaf('code', e.code) +
                      leaf('description', e.description) +
                      leaf('notBefore', new Date(e.notBefore).toISOString()) +
                      (e.notAfter === null ? '' : leaf('notAfter', new Date(e.notAfter).toISOString())),
                  ),
                ) +
                node('instanceState', leaf('code', STATE_CODES[v.state]), leaf('name', v.state)) +
                (v.state === 'running'
                  ? node('systemStatus', ok) + node('instanceStatus', ok)
                  : node('systemStatus', leaf('status', 'not-applicable')) +
                    node('instanceStatus', leaf('status', 'not-applicable'))),
            ),
          ) + leaf('nextToken', result.nextToken)
        );
      }
      case 'CreateTags': {
        const resourceIds = scalarList(params, 'ResourceId');
        if (resourceIds.length === 0)
          throw new Ec2Error('MissingParameter', 'The request must contain the parameter ResourceId');
        engine.checkFaults(action, { instanceIds: resourceIds.filter((id) => id.startsWith('i-')) });
        dryRun(params);
        engine.createTags(resourceIds, tags(params));
        return leaf('return', true);
      }
      case 'ModifyInstanceAttribute': {
        const instanceId = required(params, 'InstanceId');
        const instanceType = str(params, 'InstanceType.Value');
        if (instanceType === undefined)
          throw new Ec2Error('MissingParameter', 'The request must contain the parameter InstanceType');
        engine.checkFaults(action, { instanceIds: [instanceId], instanceType });
        dryRun(params);
        engine.modifyInstanceType(instanceId, instanceType);
        return leaf('return', true);
      }
      case 'ModifyVolume': {
        const volumeId = required(params, 'VolumeId');
        const size = int(params, 'Size');
        if (size === undefined)
          throw new Ec2Error('MissingParameter', 'The request must contain the parameter Size');
        engine.checkFaults(action, { instanceIds: engine.instancesOfVolume(volumeId) });
        dryRun(params);
        const result = engine.modifyVolume(volumeId, size);
        const startTime = new Date(engine.now()).toISOString();
        return node(
          'volumeModification',
          leaf('volumeId', result.volumeId),
          leaf('modificationState', 'modifying'),
          leaf('targetSize', result.to),
          leaf('originalSize', result.from),
          leaf('targetVolumeType', 'gp3'),
          leaf('originalVolumeType', 'gp3'),
          leaf('progress', 0),
          leaf('startTime', startTime),
        );
      }
      case 'CreateSnapshot': {
        const volumeId = required(params, 'VolumeId');
        const snapshotTags = structList(params, 'TagSpecification')
          .filter((spec) => spec.get('ResourceType') === 'snapshot')
          .flatMap((spec) => tags(spec));
        // A fault aimed at an instance (or its subnet) hits the copy of its volume too.
        engine.checkFaults(action, { instanceIds: engine.instancesOfVolume(volumeId) });
        dryRun(params);
        return snapshotXml(engine.createSnapshot(volumeId, str(params, 'Description') ?? '', snapshotTags));
      }
      case 'DescribeSnapshots': {
        engine.checkFaults(action, {});
        dryRun(params);
        const owners = scalarList(params, 'Owner');
        if (owners.some((owner) => owner !== 'self' && owner !== ownerId)) return '';
        const result = engine.describeSnapshots({
          snapshotIds: scalarList(params, 'SnapshotId'),
          filters: filters(params),
          maxResults: int(params, 'MaxResults') ?? null,
          nextToken: str(params, 'NextToken') || null,
        });
        return items('snapshotSet', result.views.map(snapshotXml)) + leaf('nextToken', result.nextToken);
      }
      case 'DeleteSnapshot': {
        const snapshotId = required(params, 'SnapshotId');
        engine.checkFaults(action, {});
        dryRun(params);
        engine.deleteSnapshot(snapshotId);
        return leaf('return', true);
      }
      case 'DescribeRegions': {
        engine.checkFaults(action, {});
        dryRun(params);
        const names = scalarList(params, 'RegionName');
        const unknown = names.filter((name) => name !== region);
        if (unknown.length > 0)
          throw new Ec2Error('InvalidParameterValue', `Invalid region names: ${unknown.join(', ')}`);
        return items('regionInfo', [
          leaf('regionName', region) +
            leaf('regionEndpoint', `ec2.${region}.amazonaws.com`) +
            leaf('optInStatus', 'opt-in-not-required'),
        ]);
      }
      case 'DescribeImages': {
        engine.checkFaults(action, {});
        dryRun(params);
        const imageIds = scalarList(params, 'ImageId');
        const malformed = imageIds.find((id) => !/^ami-[0-9a-f]{8,17}$/.test(id));
        if (malformed) throw new Ec2Error('InvalidAMIID.Malformed', `Invalid id: "${malformed}"`);
        // Every well-formed id is one of the sandbox's Windows Server images.
        return items(
          'imagesSet',
          imageIds.map(
            (id) =>
              leaf('imageId', id) +
              leaf('imageState', 'available') +
              leaf('imageOwnerId', ownerId) +
              leaf('isPublic', false) +
              leaf('architecture', 'x86_64') +
              leaf('imageType', 'machine') +
              leaf('platform', 'windows') +
              leaf('platformDetails', 'Windows') +
              leaf('name', `legend-cloud-windows-2022-${id.slice(4, 12)}`) +
              leaf('rootDeviceType', 'ebs') +
              leaf('rootDeviceName', '/dev/sda1'),
          ),
        );
      }
      case 'DescribeFastLaunchImages': {
        engine.checkFaults(action, {});
        dryRun(params);
        const imageIds = scalarList(params, 'ImageId');
        const malformed = imageIds.find((id) => !/^ami-[0-9a-f]{8,17}$/.test(id));
        if (malformed) throw new Ec2Error('InvalidAMIID.Malformed', `Invalid id: "${malformed}"`);
        const states = imageIds.map((id) => [id, fastLaunch.get(id) ?? 'enabled'] as const);
        const at = new Date(engine.now()).toISOString();
        return items(
          'fastLaunchImageSet',
          states
            .filter(([, state]) => state !== 'disabled')
            .map(
              ([id, state]) =>
                leaf('imageId', id) +
                leaf('resourceType', 'snapshot') +
                node('snapshotConfiguration', leaf('targetResourceCount', 5)) +
                leaf('maxParallelLaunches', 6) +
                leaf('ownerId', ownerId) +
                leaf('state', state) +
                leaf('stateTransitionReason', state === 'enabled' ? 'Client.UserInitiated' : state) +
                leaf('stateTransitionTime', at),
            ),
        );
      }
      case 'DescribeSubnets': {
        engine.checkFaults(action, {});
        dryRun(params);
        return items(
          'subnetSet',
          scalarList(params, 'SubnetId').map(
            (id) =>
              leaf('subnetId', id) +
              leaf('state', 'available') +
              leaf('vpcId', VPC_ID) +
              leaf('cidrBlock', '10.0.0.0/20') +
              leaf('availableIpAddressCount', 4091) +
              leaf('availabilityZone', engine.zoneOf(id)) +
              leaf('defaultForAz', false) +
              leaf('mapPublicIpOnLaunch', true),
          ),
        );
      }
      case 'DescribeInstanceTypeOfferings': {
        engine.checkFaults(action, {});
        dryRun(params);
        const wanted = Object.fromEntries(filters(params).map((f) => [f.name, f.values]));
        const types = (wanted['instance-type'] ?? OFFERED_TYPES).filter((t) => OFFERED_TYPES.includes(t));
        const zones = ZONE_LETTERS.map((letter) => `${region}${letter}`).filter(
          (zone) => !wanted['location'] || wanted['location'].includes(zone),
        );
        return items(
          'instanceTypeOfferingSet',
          types.flatMap((type) =>
            zones.map(
              (zone) =>
                leaf('instanceType', type) +
                leaf('locationType', 'availability-zone') +
                leaf('location', zone),
            ),
          ),
        );
      }
      case 'DescribeInstanceTypes': {
        engine.checkFaults(action, {});
        dryRun(params);
        return items(
          'instanceTypeSet',
          scalarList(params, 'InstanceType').map(
            (type) => leaf('instanceType', type) + node('vCpuInfo', leaf('defaultVCpus', vcpusOf(type))),
          ),
        );
      }
      case 'DescribeSecurityGroups': {
        engine.checkFaults(action, {});
        dryRun(params);
        // Every group is the one infra/README.md creates: Remote Desktop (and the listener port),
        // DCV's 8443 over TCP and QUIC, Moonlight's ports from anywhere, and Sunshine's API
        // (47990) only from where the sandbox's worker runs (this host: loopback).
        const anywhere = '0.0.0.0/0';
        const rules: Array<[string, number, number, string]> = [
          ...[...new Set([3389, 8443, ...(options.rdpListener ? [options.rdpListener.port] : [])])].map(
            (port): [string, number, number, string] => ['tcp', port, port, anywhere],
          ),
          ['udp', 8443, 8443, anywhere],
          ['tcp', 47984, 47984, anywhere],
          ['tcp', 47989, 47989, anywhere],
          ['tcp', 48010, 48010, anywhere],
          ['udp', 47998, 48000, anywhere],
          ['udp', 48010, 48010, anywhere],
          ['tcp', 47990, 47990, '127.0.0.0/8'],
        ];
        return items(
          'securityGroupInfo',
          scalarList(params, 'GroupId').map(
            (id) =>
              leaf('ownerId', ownerId) +
              leaf('groupId', id) +
              leaf('groupName', id) +
              leaf('groupDescription', 'Legend Cloud desktops') +
              leaf('vpcId', VPC_ID) +
              items(
                'ipPermissions',
                rules.map(
                  ([protocol, from, to, cidr]) =>
                    leaf('ipProtocol', protocol) +
                    leaf('fromPort', from) +
                    leaf('toPort', to) +
                    items('ipRanges', [leaf('cidrIp', cidr)]),
                ),
              ),
          ),
        );
      }
      case 'DescribeKeyPairs': {
        engine.checkFaults(action, {});
        dryRun(params);
        const names = scalarList(params, 'KeyName');
        const missing = names.find((name) => !engine.hasKeyPair(name));
        if (missing)
          throw new Ec2Error('InvalidKeyPair.NotFound', `The key pair '${missing}' does not exist`);
        return items(
          'keySet',
          names.map(
            (name) =>
              leaf('keyPairId', `key-${Buffer.from(name).toString('hex').slice(0, 17).padEnd(17, '0')}`) +
              leaf('keyName', name) +
              leaf('keyType', 'rsa') +
              leaf('keyFingerprint', keyFingerprint(engine.keyPairPem(name))),
          ),
        );
      }
      default:
        engine.checkFaults(action, {});
        throw new Ec2Error('UnsupportedOperation', `The sandbox does not simulate the action ${action}.`);
    }
  }

  function dryRun(params: Params): void {
    if (bool(params, 'DryRun'))
      throw new Ec2Error('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.');
  }

  async function query(ctx: Context): Promise<void> {
    const requestId = randomUUID();
    ctx.set('x-amzn-requestid', requestId);
    ctx.set('Cache-Control', 'no-cache, no-store');
    ctx.type = 'text/xml;charset=UTF-8';
    try {
      const body = ctx.method === 'POST' ? await readBody(ctx.req) : ctx.querystring;
      if (!ctx.get('authorization')) {
        throw new Ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials');
      }
      const params = parseParams(body);
      const action = params.get('Action') ?? '';
      if (!action) throw new Ec2Error('MissingAction', 'The request must contain the parameter Action');
      const answer = handle(action, params);
      // Whatever this request changed or revealed, the listeners match it before the answer.
      await syncListeners();
      ctx.status = 200;
      ctx.body = responseDocument(action, requestId, answer);
    } catch (error) {
      if (!(error instanceof Ec2Error)) throw error;
      ctx.status = error.status;
      ctx.body = errorDocument(error.code, error.message, requestId);
    }
  }

  const router = new Router();
  router.post('/', query);
  router.get('/', query);
  router.get('/_state', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    await syncListeners();
    ctx.body = {
      ...engine.snapshot(),
      rdpListeners: listeners?.listening() ?? null,
      dcvServers: dcvServers?.listening() ?? null,
      sunshineHosts: sunshineHosts?.listening() ?? null,
    };
  });
  router.post('/_control', koaBody({ jsonLimit: '1mb', urlencoded: false, text: false }), async (ctx) => {
    const parsed = ControlSchema.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: 'not a sandbox EC2 control request', issues: parsed.error.issues };
      return;
    }
    try {
      engine.control(parsed.data);
      for (const [imageId, state] of Object.entries(parsed.data.fastLaunch ?? {}))
        fastLaunch.set(imageId, state);
      for (const name of parsed.data.instanceProfiles ?? []) instanceProfiles.add(name);
    } catch (error) {
      ctx.status = 400;
      ctx.body = { message: (error as Error).message };
      return;
    }
    for (const [instanceId, state] of Object.entries(parsed.data.rdp ?? {}))
      listeners?.set(instanceId, state);
    await syncListeners();
    ctx.body = { ...engine.snapshot(), rdpListeners: listeners?.listening() ?? null };
  });
  router.post('/_reset', async (ctx) => {
    engine.reset();
    fastLaunch.clear();
    instanceProfiles.clear();
    await syncListeners();
    ctx.status = 204;
  });

  return {
    router,
    control: (input) => {
      const parsed = ControlSchema.parse(input);
      engine.control(parsed);
      for (const [imageId, state] of Object.entries(parsed.fastLaunch ?? {})) fastLaunch.set(imageId, state);
      for (const name of parsed.instanceProfiles ?? []) instanceProfiles.add(name);
    },
    setRdp: async (instanceId, state) => {
      listeners?.set(instanceId, state);
      await syncListeners();
    },
    syncRdp: syncListeners,
    state: () => engine.snapshot(),
    reset: () => {
      engine.reset();
      instanceProfiles.clear();
    },
    defaultKeyName: options.defaultKeyName ?? 'legend-sandbox',
    defaultPrivateKeyPem: () => engine.defaultPrivateKeyPem(),
    flush: async () => {
      await saver?.flush();
    },
    serviceQuotas: createSandboxServiceQuotas({
      region,
      ownerId,
      vcpuLimit: () => engine.vcpuLimit(),
      checkAuthorized: (action) => engine.checkAuthorized(action),
    }),
    iam: createSandboxIam({
      ownerId,
      instanceProfiles: () => [DEFAULT_INSTANCE_PROFILE, ...instanceProfiles],
      checkAuthorized: (action) => engine.checkAuthorized(action),
    }),
    sunshine: sunshineHosts?.router ?? null,
    close: async () => {
      await listeners?.close();
      await dcvServers?.close();
      await sunshineHosts?.close();
      await saver?.flush();
    },
  };
}
