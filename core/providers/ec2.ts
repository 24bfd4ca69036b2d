import {
  CreateSnapshotCommand,
  CreateTagsCommand,
  DeleteSnapshotCommand,
  DescribeInstanceStatusCommand,
  DescribeInstancesCommand,
  DescribeSnapshotsCommand,
  EC2Client,
  GetPasswordDataCommand,
  ModifyInstanceAttributeCommand,
  ModifyVolumeCommand,
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
  type _InstanceType,
  type Filter,
  type Instance,
  type InstanceStateChange,
  type Snapshot,
} from '@aws-sdk/client-ec2';
import { awsClientConfig, type AwsClientOptions } from './awsClientConfig.ts';

/**
 * EC2 through the real `@aws-sdk/client-ec2`, against AWS or the sandbox (same wire
 * protocol; only the endpoint and keys differ). Small typed helpers for what the jobs do;
 * the raw client stays available for anything else.
 */

const EC2_STATES = ['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped'] as const;
export type Ec2State = (typeof EC2_STATES)[number];

const STATE_BY_CODE: Record<number, Ec2State> = {
  0: 'pending',
  16: 'running',
  32: 'shutting-down',
  48: 'terminated',
  64: 'stopping',
  80: 'stopped',
};

export type Ec2Instance = {
  instanceId: string;
  state: Ec2State;
  instanceType: string;
  imageId: string | null;
  /** Changes on every start; null while stopped or not yet known. */
  publicIp: string | null;
  privateIp: string | null;
  subnetId: string | null;
  availabilityZone: string | null;
  /** The last launch or start. */
  launchTime: Date | null;
  clientToken: string | null;
  tags: Record<string, string>;
  /** The EBS volume at the root device: what a snapshot copies and a plan change grows. */
  rootVolumeId: string | null;
};

export type Ec2Snapshot = {
  snapshotId: string;
  volumeId: string | null;
  state: 'pending' | 'completed' | 'error' | 'recoverable' | 'recovering';
  progress: string | null;
  startTime: Date | null;
  volumeSizeGb: number | null;
  tags: Record<string, string>;
};

export type Ec2StateChange = { instanceId: string; previous: Ec2State; current: Ec2State };

/** An event EC2 scheduled on an instance's hardware (retirement, a scheduled stop, maintenance). */
export type Ec2ScheduledEvent = {
  eventId: string;
  code: string;
  description: string | null;
  notBefore: Date;
  notAfter: Date | null;
};

export type LaunchInput = {
  /** Idempotency key: our VM id, so a retried or replayed job never launches twice. */
  clientToken: string;
  instanceType: string;
  imageId: string;
  keyName: string;
  securityGroupIds: string[];
  subnetId: string;
  volumeSizeGb: number;
  tags: Record<string, string>;
  /** Windows AMIs boot from /dev/sda1. */
  rootDeviceName?: string | undefined;
  /** The root volume is created from this snapshot (the customer's files kept at expiry). */
  snapshotId?: string | null | undefined;
  /** What the machine reads at boot (core/domain/machineSetup.ts); sent base64 as EC2 wants it. */
  userData?: string | null | undefined;
};

/**
 * What EC2 said to a request sent with `DryRun`: `allowed` (it answered DryRunOperation: the
 * caller may do it and the parameters are valid) or `denied` (UnauthorizedOperation: IAM says
 * no). Any other error is thrown, as it would be without DryRun.
 */
export type DryRunAnswer = { allowed: true } | { allowed: false; code: string; message: string };

export type Ec2ClientOptions = AwsClientOptions & {
  /**
   * Name or ARN of the instance profile every launch carries, so software on the machine (the
   * CloudWatch agent, the GPU poller) can publish metrics without keys of its own.
   */
  instanceProfile?: string | null | undefined;
};

export type DescribeQuery =
  | { instanceIds: string[] }
  | {
      /** Every key must match one of its values. */
      tags?: Record<string, string | string[]> | undefined;
      tagKeys?: string[] | undefined;
      states?: Ec2State[] | undefined;
      instanceTypes?: string[] | undefined;
    };

export type Ec2 = {
  client: EC2Client;
  launchInstance(input: LaunchInput): Promise<Ec2Instance>;
  /** The same RunInstances with DryRun: would this launch be allowed? Launches nothing. */
  dryRunLaunch(input: LaunchInput): Promise<DryRunAnswer>;
  /** Every page. Ids that AWS does not know (yet) are simply absent, never an error. */
  describeInstances(query: DescribeQuery): Promise<Ec2Instance[]>;
  startInstance(instanceId: string): Promise<Ec2StateChange>;
  stopInstance(instanceId: string, options?: { force?: boolean }): Promise<Ec2StateChange>;
  terminateInstance(instanceId: string): Promise<Ec2StateChange>;
  /** `passwordData` is '' until Windows' first boot has produced one. */
  getPasswordData(instanceId: string): Promise<{ passwordData: string; timestamp: Date | null }>;
  tagInstances(instanceIds: string[], tags: Record<string, string>): Promise<void>;
  /**
   * Instances by the ClientToken they were launched with (our VM or pool row id): how a lost
   * RunInstances answer, or a worker that died before recording it, is recovered. A terminated
   * duplicate never hides a live one.
   */
  findByClientTokens(clientTokens: string[]): Promise<Map<string, Ec2Instance>>;
  /** Changes the instance type; EC2 allows it only while the instance is stopped. */
  modifyInstanceType(instanceId: string, instanceType: string): Promise<void>;
  /** Grows a volume in place (Windows extends the partition on the next boot). */
  growVolume(volumeId: string, sizeGb: number): Promise<void>;
  createSnapshot(volumeId: string, description: string, tags: Record<string, string>): Promise<Ec2Snapshot>;
  /** Our snapshots by id (unknown ids are absent, not an error) or by tags; every page. */
  describeSnapshots(
    query: { snapshotIds: string[] } | { tags: Record<string, string> },
  ): Promise<Ec2Snapshot[]>;
  /** Deleting a snapshot that is already gone is success. */
  deleteSnapshot(snapshotId: string): Promise<void>;
  /**
   * Instances of the account with events scheduled on their hardware, stopped ones included
   * (DescribeInstanceStatus, every page). Events already completed or cancelled are left out.
   */
  scheduledEvents(): Promise<Array<{ instanceId: string; state: Ec2State; events: Ec2ScheduledEvent[] }>>;
  destroy(): void;
};

/** Ids per DescribeInstances call when asking by id (through a filter: see describeInstances). */
const IDS_PER_CALL = 200;
const PAGE_SIZE = 1000;

export function createEc2Client(options: Ec2ClientOptions): Ec2 {
  const client = new EC2Client(awsClientConfig(options));
  // Every failure says which call it was and on what, whoever catches it.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        annotateEc2Error(error, context.commandName, args.input);
        throw error;
      }
    },
    { step: 'initialize', name: 'legendEc2ErrorContext' },
  );
  const profile = options.instanceProfile
    ? options.instanceProfile.startsWith('arn:')
      ? { Arn: options.instanceProfile }
      : { Name: options.instanceProfile }
    : undefined;

  function runInstances(input: LaunchInput, dryRun: boolean): RunInstancesCommand {
    const tagList = Object.entries(input.tags).map(([Key, Value]) => ({ Key, Value }));
    return new RunInstancesCommand({
      ClientToken: input.clientToken,
      ImageId: input.imageId,
      // The SDK's union lags new instance types; EC2 validates the name itself.
      InstanceType: input.instanceType as _InstanceType,
      KeyName: input.keyName,
      MinCount: 1,
      MaxCount: 1,
      SecurityGroupIds: input.securityGroupIds,
      SubnetId: input.subnetId,
      BlockDeviceMappings: [
        {
          DeviceName: input.rootDeviceName ?? '/dev/sda1',
          Ebs: {
            VolumeSize: input.volumeSizeGb,
            VolumeType: 'gp3',
            DeleteOnTermination: true,
            ...(input.snapshotId ? { SnapshotId: input.snapshotId } : {}),
          },
        },
      ],
      TagSpecifications: [
        { ResourceType: 'instance', Tags: tagList },
        { ResourceType: 'volume', Tags: tagList },
      ],
      MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled' },
      ...(input.userData ? { UserData: Buffer.from(input.userData, 'utf8').toString('base64') } : {}),
      ...(profile ? { IamInstanceProfile: profile } : {}),
      ...(dryRun ? { DryRun: true } : {}),
    });
  }

  async function describePages(filters: Filter[]): Promise<Ec2Instance[]> {
    const found: Ec2Instance[] = [];
    let nextToken: string | undefined;
    do {
      const page = await client.send(
        new DescribeInstancesCommand({ Filters: filters, MaxResults: PAGE_SIZE, NextToken: nextToken }),
      );
      for (const reservation of page.Reservations ?? []) {
        for (const instance of reservation.Instances ?? []) found.push(toInstance(instance));
      }
      nextToken = page.NextToken || undefined;
    } while (nextToken);
    return found;
  }

  async function changeOne(
    result: InstanceStateChange[] | undefined,
    instanceId: string,
  ): Promise<Ec2StateChange> {
    const change = result?.find((c) => c.InstanceId === instanceId) ?? result?.[0];
    if (!change) throw new Error(`EC2 answered no state change for ${instanceId}`);
    return {
      instanceId,
      previous: toState(change.PreviousState?.Code, change.PreviousState?.Name),
      current: toState(change.CurrentState?.Code, change.CurrentState?.Name),
    };
  }

  return {
    client,

    async launchInstance(input) {
      const output = await client.send(runInstances(input, false));
      const instance = output.Instances?.[0];
      if (!instance) throw new Error('RunInstances answered no instance');
      return toInstance(instance);
    },

    async dryRunLaunch(input) {
      return dryRun(() => client.send(runInstances(input, true)));
    },

    async describeInstances(query) {
      if ('instanceIds' in query) {
        // By filter rather than InstanceIds: one unknown id (EC2 is eventually consistent
        // right after a launch) would otherwise fail the whole batch with NotFound.
        const ids = [...new Set(query.instanceIds)];
        const found: Ec2Instance[] = [];
        for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
          found.push(
            ...(await describePages([{ Name: 'instance-id', Values: ids.slice(i, i + IDS_PER_CALL) }])),
          );
        }
        return found;
      }
      const filters: Filter[] = [];
      for (const [key, value] of Object.entries(query.tags ?? {})) {
        filters.push({ Name: `tag:${key}`, Values: Array.isArray(value) ? value : [value] });
      }
      if (query.tagKeys?.length) filters.push({ Name: 'tag-key', Values: query.tagKeys });
      if (query.states?.length) filters.push({ Name: 'instance-state-name', Values: query.states });
      if (query.instanceTypes?.length) filters.push({ Name: 'instance-type', Values: query.instanceTypes });
      return describePages(filters);
    },

    async startInstance(instanceId) {
      const output = await client.send(new StartInstancesCommand({ InstanceIds: [instanceId] }));
      return changeOne(output.StartingInstances, instanceId);
    },

    async stopInstance(instanceId, stopOptions = {}) {
      const output = await client.send(
        new StopInstancesCommand({ InstanceIds: [instanceId], Force: stopOptions.force }),
      );
      return changeOne(output.StoppingInstances, instanceId);
    },

    async terminateInstance(instanceId) {
      const output = await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
      return changeOne(output.TerminatingInstances, instanceId);
    },

    async getPasswordData(instanceId) {
      const output = await client.send(new GetPasswordDataCommand({ InstanceId: instanceId }));
      return { passwordData: (output.PasswordData ?? '').trim(), timestamp: output.Timestamp ?? null };
    },

    async tagInstances(instanceIds, tags) {
      if (instanceIds.length === 0) return;
      await client.send(
        new CreateTagsCommand({
          Resources: instanceIds,
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
    },

    async findByClientTokens(clientTokens) {
      const found = new Map<string, Ec2Instance>();
      for (let i = 0; i < clientTokens.length; i += IDS_PER_CALL) {
        const batch = clientTokens.slice(i, i + IDS_PER_CALL);
        for (const instance of await describePages([{ Name: 'client-token', Values: batch }])) {
          if (!instance.clientToken) continue;
          const seen = found.get(instance.clientToken);
          if (!seen || seen.state === 'terminated' || seen.state === 'shutting-down')
            found.set(instance.clientToken, instance);
        }
      }
      return found;
    },

    async modifyInstanceType(instanceId, instanceType) {
      await client.send(
        new ModifyInstanceAttributeCommand({ InstanceId: instanceId, InstanceType: { Value: instanceType } }),
      );
    },

    async growVolume(volumeId, sizeGb) {
      await client.send(new ModifyVolumeCommand({ VolumeId: volumeId, Size: sizeGb }));
    },

    async createSnapshot(volumeId, description, tags) {
      const output = await client.send(
        new CreateSnapshotCommand({
          VolumeId: volumeId,
          Description: description,
          TagSpecifications: [
            { ResourceType: 'snapshot', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
          ],
        }),
      );
      return toSnapshot(output);
    },

    async describeSnapshots(query) {
      const found: Ec2Snapshot[] = [];
      const pages: Filter[][] = [];
      if ('snapshotIds' in query) {
        const ids = [...new Set(query.snapshotIds)];
        // By filter, as for instances: one id already deleted must not fail the others.
        for (let i = 0; i < ids.length; i += IDS_PER_CALL)
          pages.push([{ Name: 'snapshot-id', Values: ids.slice(i, i + IDS_PER_CALL) }]);
      } else {
        pages.push(
          Object.entries(query.tags).map(([key, value]) => ({ Name: `tag:${key}`, Values: [value] })),
        );
      }
      for (const filters of pages) {
        let nextToken: string | undefined;
        do {
          const page = await client.send(
            new DescribeSnapshotsCommand({
              OwnerIds: ['self'],
              Filters: filters,
              MaxResults: PAGE_SIZE,
              NextToken: nextToken,
            }),
          );
          for (const snapshot of page.Snapshots ?? []) found.push(toSnapshot(snapshot));
          nextToken = page.NextToken || undefined;
        } while (nextToken);
      }
      return found;
    },

    async deleteSnapshot(snapshotId) {
      try {
        await client.send(new DeleteSnapshotCommand({ SnapshotId: snapshotId }));
      } catch (error) {
        if ((error as { name?: unknown }).name === 'InvalidSnapshot.NotFound') return;
        throw error;
      }
    },

    async scheduledEvents() {
      const found: Array<{ instanceId: string; state: Ec2State; events: Ec2ScheduledEvent[] }> = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(
          new DescribeInstanceStatusCommand({
            IncludeAllInstances: true,
            Filters: [{ Name: 'event.code', Values: [...SCHEDULED_EVENT_CODES] }],
            MaxResults: PAGE_SIZE,
            NextToken: nextToken,
          }),
        );
        for (const status of page.InstanceStatuses ?? []) {
          if (!status.InstanceId) continue;
          const events = (status.Events ?? [])
            // EC2 keeps completed and cancelled events listed a while, their description so marked.
            .filter((e) => e.NotBefore && !/^\[(Completed|Canceled)\]/i.test(e.Description ?? ''))
            .map((e) => ({
              eventId:
                e.InstanceEventId ?? `${status.InstanceId}:${e.Code ?? ''}:${e.NotBefore?.toISOString()}`,
              code: e.Code ?? 'unknown',
              description: e.Description ?? null,
              notBefore: e.NotBefore as Date,
              notAfter: e.NotAfter ?? null,
            }));
          if (events.length > 0)
            found.push({
              instanceId: status.InstanceId,
              state: toState(status.InstanceState?.Code, status.InstanceState?.Name),
              events,
            });
        }
        nextToken = page.NextToken || undefined;
      } while (nextToken);
      return found;
    },

    destroy() {
      client.destroy();
    },
  };
}

/** The codes of events EC2 schedules on an instance's hardware. */
export const SCHEDULED_EVENT_CODES = [
  'instance-reboot',
  'system-reboot',
  'system-maintenance',
  'instance-retirement',
  'instance-stop',
] as const;

function toSnapshot(snapshot: Snapshot): Ec2Snapshot {
  if (!snapshot.SnapshotId) throw new Error('EC2 answered a snapshot without an id');
  return {
    snapshotId: snapshot.SnapshotId,
    volumeId: snapshot.VolumeId ?? null,
    state: (snapshot.State ?? 'pending') as Ec2Snapshot['state'],
    progress: snapshot.Progress ?? null,
    startTime: snapshot.StartTime ?? null,
    volumeSizeGb: snapshot.VolumeSize ?? null,
    tags: Object.fromEntries(
      (snapshot.Tags ?? []).filter((t) => t.Key !== undefined).map((t) => [t.Key as string, t.Value ?? '']),
    ),
  };
}

/**
 * Runs a request sent with `DryRun: true` and reads EC2's answer: DryRunOperation means it
 * would have succeeded, UnauthorizedOperation that IAM denies it.
 */
export async function dryRun(send: () => Promise<unknown>): Promise<DryRunAnswer> {
  try {
    await send();
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    if (name === 'DryRunOperation') return { allowed: true };
    if (name === 'UnauthorizedOperation') {
      return { allowed: false, code: name, message: (error as Error).message };
    }
    throw error;
  }
  throw new Error('EC2 carried out a DryRun request instead of answering DryRunOperation');
}

function toState(code: number | undefined, name: string | undefined): Ec2State {
  if ((EC2_STATES as readonly string[]).includes(name ?? '')) return name as Ec2State;
  // Only the low byte of the code is meaningful; the high byte is internal to AWS.
  return STATE_BY_CODE[(code ?? 0) & 0xff] ?? 'pending';
}

export function toInstance(instance: Instance): Ec2Instance {
  if (!instance.InstanceId) throw new Error('EC2 answered an instance without an id');
  return {
    instanceId: instance.InstanceId,
    state: toState(instance.State?.Code, instance.State?.Name),
    instanceType: instance.InstanceType ?? '',
    imageId: instance.ImageId ?? null,
    publicIp: instance.PublicIpAddress || null,
    privateIp: instance.PrivateIpAddress || null,
    subnetId: instance.SubnetId || null,
    availabilityZone: instance.Placement?.AvailabilityZone || null,
    launchTime: instance.LaunchTime ?? null,
    clientToken: instance.ClientToken || null,
    rootVolumeId:
      instance.BlockDeviceMappings?.find((m) => m.DeviceName === instance.RootDeviceName)?.Ebs?.VolumeId ??
      instance.BlockDeviceMappings?.[0]?.Ebs?.VolumeId ??
      null,
    tags: Object.fromEntries(
      (instance.Tags ?? []).filter((t) => t.Key !== undefined).map((t) => [t.Key as string, t.Value ?? '']),
    ),
  };
}

export type Ec2ErrorClass = 'capacity' | 'throttled' | 'not-found' | 'incorrect-state' | 'limit' | 'other';

const CLASSES: Record<string, Ec2ErrorClass> = {
  // No machine of that type in that zone right now: retry later or another subnet/AZ.
  InsufficientInstanceCapacity: 'capacity',
  InsufficientCapacity: 'capacity',
  InsufficientHostCapacity: 'capacity',
  InsufficientReservedInstanceCapacity: 'capacity',
  // The zone does not offer the type at all: another subnet/AZ is the answer too.
  Unsupported: 'capacity',
  RequestLimitExceeded: 'throttled',
  EC2ThrottledException: 'throttled',
  Throttling: 'throttled',
  ThrottlingException: 'throttled',
  RequestThrottled: 'throttled',
  // Also what a just-launched instance answers for a while (eventual consistency).
  'InvalidInstanceID.NotFound': 'not-found',
  'InvalidSnapshot.NotFound': 'not-found',
  'InvalidVolume.NotFound': 'not-found',
  IncorrectInstanceState: 'incorrect-state',
  IncorrectState: 'incorrect-state',
  // Account quotas: waiting does not help until the quota is raised or machines are freed.
  VcpuLimitExceeded: 'limit',
  InstanceLimitExceeded: 'limit',
};

/** What a job should do about an EC2 failure, from the error code the SDK puts in `name`. */
export function classifyEc2Error(error: unknown): Ec2ErrorClass {
  if (typeof error !== 'object' || error === null) return 'other';
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? (CLASSES[name] ?? 'other') : 'other';
}

/** What a failed call was: the EC2 action and what it was about (ids, a filter, a token). */
export type Ec2CallContext = { action: string; target: string };

const CONTEXT = Symbol.for('legend.ec2Call');

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** The ids, filters or token a call named, short enough for a log line and an alert. */
export function describeEc2Target(input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of [
    'InstanceIds',
    'SnapshotIds',
    'Resources',
    'ImageIds',
    'SubnetIds',
    'GroupIds',
    'KeyNames',
  ]) {
    const ids = listOf(i[key]);
    if (ids.length > 0)
      parts.push(`${key}=${ids.slice(0, 5).join(',')}${ids.length > 5 ? ` (+${ids.length - 5})` : ''}`);
  }
  for (const key of ['InstanceId', 'VolumeId', 'SnapshotId', 'ClientToken', 'SubnetId', 'InstanceType']) {
    const value = i[key];
    if (typeof value === 'string') parts.push(`${key}=${value}`);
    else if (value && typeof value === 'object' && typeof (value as { Value?: unknown }).Value === 'string')
      parts.push(`${key}=${(value as { Value: string }).Value}`);
  }
  for (const filter of Array.isArray(i.Filters)
    ? (i.Filters as Array<{ Name?: string; Values?: string[] }>)
    : []) {
    const values = filter.Values ?? [];
    parts.push(
      `filter ${filter.Name ?? '?'}=${values.slice(0, 5).join(',')}${values.length > 5 ? ` (+${values.length - 5})` : ''}`,
    );
  }
  return parts.join(' ').slice(0, 300);
}

/** Records on an error which call failed (done once, by the client's middleware). */
export function annotateEc2Error(error: unknown, commandName: string | undefined, input: unknown): void {
  if (typeof error !== 'object' || error === null || CONTEXT in error) return;
  const context: Ec2CallContext = {
    action: (commandName ?? 'EC2').replace(/Command$/, ''),
    target: describeEc2Target(input),
  };
  Object.defineProperty(error, CONTEXT, { value: context, enumerable: false });
}

/** The call a failure came from, looking through errors that wrap it (`cause`). */
export function ec2CallOf(error: unknown): Ec2CallContext | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth += 1) {
    const context = (e as { [CONTEXT]?: Ec2CallContext })[CONTEXT];
    if (context) return context;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * AWS's error code of a failure (the SDK puts it in `name`), or a network error's code
 * (`ECONNREFUSED`…), looking through wrappers to the failure that carries one.
 */
export function ec2ErrorCode(error: unknown): string {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth += 1) {
    const { name, code } = e as { name?: unknown; code?: unknown };
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (typeof name === 'string' && name !== 'Error' && name !== 'RetryLater') return name;
    e = (e as { cause?: unknown }).cause;
  }
  return 'Error';
}

/** The request id of a failed call (from the `x-amzn-requestid` header), for logs and AWS support. */
export function ec2RequestId(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const metadata = (error as { $metadata?: { requestId?: unknown } }).$metadata;
  return typeof metadata?.requestId === 'string' ? metadata.requestId : undefined;
}
