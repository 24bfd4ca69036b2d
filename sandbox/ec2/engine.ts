import {
  constants,
  createHash,
  createPublicKey,
  generateKeyPairSync,
  publicEncrypt,
  randomBytes,
  randomInt,
  type KeyObject,
} from 'node:crypto';
import { Ec2Error, invalidValue, notFound } from './errors.ts';
import type { Filter, Tag } from './query.ts';
import {
  STATE_CODES,
  type InstanceRecord,
  type PersistedState,
  type ScheduledEventRecord,
  type SnapshotRecord,
  type StateName,
  type TokenRecord,
} from './records.ts';
import { PROFILES, sample, type ProfileName, type Range, type Timings } from './timing.ts';

/**
 * The simulated EC2 region: instances, their lazily computed states, capacity, key pairs and
 * injected faults. No HTTP here; the router turns Query parameters into these calls.
 */

export type EngineOptions = {
  profile: ProfileName;
  now: () => number;
  random: () => number;
  region: string;
  ownerId: string;
  keyPairs: Record<string, string>;
  defaultKeyName: string;
  capacity: Record<string, number>;
  defaultCapacity: number;
  vcpuLimit: number | null;
  terminatedVisibleMs: number;
  defaultSubnetId: string;
  /**
   * Where public IPs come from: `documentation` (203.0.113.0/24 and 198.51.100.0/24, never
   * routable) or `loopback` (127.16.0.0 and up), for a sandbox that opens a real listener on
   * each running instance's address so a TCP probe of it is real.
   */
  publicIps: 'documentation' | 'loopback';
  onChange: () => void;
};

export type Fault = {
  /** An action name, or '*' for every action. */
  action: string;
  code: string;
  message?: string | undefined;
  status?: number | undefined;
  /** How many more requests it answers; it is removed at zero. */
  times: number;
  /** Sandbox time (ms) after which it answers no more, when given. */
  until?: number | undefined;
  subnetId?: string | undefined;
  instanceType?: string | undefined;
  instanceId?: string | undefined;
};

export type InstanceView = {
  record: InstanceRecord;
  state: StateName;
  publicIp: string | null;
  passwordReadyAt: number | null;
};

export type StateChange = { instanceId: string; previous: StateName; current: StateName };

export type RunRequest = {
  imageId: string;
  instanceType: string;
  minCount: number;
  maxCount: number;
  keyName: string | null;
  subnetId: string | null;
  securityGroupIds: string[];
  clientToken: string | null;
  instanceTags: Tag[];
  volumeSizeGb: number | null;
  rootDeviceName: string | null;
  iamInstanceProfile: string | null;
  /** The root volume is created from this snapshot (BlockDeviceMapping.1.Ebs.SnapshotId). */
  snapshotId?: string | null;
  /** UserData, base64 as sent. */
  userData?: string | null;
};

export type SnapshotView = { record: SnapshotRecord; state: 'pending' | 'completed'; progress: string };

export type DescribeSnapshotsRequest = {
  snapshotIds: string[];
  filters: Filter[];
  maxResults: number | null;
  nextToken: string | null;
};

export type DescribeRequest = {
  instanceIds: string[];
  filters: Filter[];
  maxResults: number | null;
  nextToken: string | null;
};

/** An event scheduled on an instance's hardware: `inMs` from the sandbox's now, or at `notBefore`. */
export type EventInput = {
  instanceId: string;
  code: string;
  description?: string | undefined;
  inMs?: number | undefined;
  notBefore?: string | undefined;
  durationMs?: number | undefined;
};

export type InstanceStatusView = { record: InstanceRecord; state: StateName; events: ScheduledEventRecord[] };

export type ControlInput = {
  /** `forMs`: the fault answers for that long of sandbox time (`times` then defaults to unlimited). */
  faults?:
    | Array<Omit<Fault, 'times' | 'until'> & { times?: number | undefined; forMs?: number | undefined }>
    | undefined;
  /** Events scheduled on instances' hardware, answered by DescribeInstanceStatus. */
  events?: EventInput[] | undefined;
  clearFaults?: boolean | undefined;
  capacity?: Record<string, number | null> | undefined;
  defaultCapacity?: number | undefined;
  vcpuLimit?: number | null | undefined;
  profile?: ProfileName | undefined;
  timings?: Partial<Record<keyof Timings, Range>> | undefined;
  advanceMs?: number | undefined;
  eventualConsistencyMs?: number | undefined;
  keyPairs?: Record<string, string> | undefined;
  /** IAM action names (`ec2:RunInstances`) to answer UnauthorizedOperation from now on. */
  deny?: string[] | undefined;
  /** IAM action names to allow again; `*` allows everything. */
  allow?: string[] | undefined;
};

const IP_POOLS = ['203.0.113.', '198.51.100.'];
const DOCUMENTATION_IP_COUNT = IP_POOLS.length * 254;
/** 127.16.0.1 … 127.255.255.254, host parts 1–254. */
const LOOPBACK_IP_COUNT = 240 * 256 * 254;
const HELD_KINDS = new Set(['launch', 'start']);
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
export const VPC_ID = 'vpc-0sandbox0000000001';
const FILTERS = new Set([
  'tag-key',
  'instance-id',
  'instance-state-name',
  'instance-state-code',
  'instance-type',
  'subnet-id',
  'availability-zone',
  'image-id',
  'key-name',
  'client-token',
  'reservation-id',
  'ip-address',
  'private-ip-address',
  'vpc-id',
]);

/** `exact`: the values when none has a wildcard, matched by lookup (a fleet of thousands asked by id). */
type CompiledFilter = { name: string; patterns: RegExp[]; exact: Set<string> | null };

function hexId(prefix: string): string {
  return `${prefix}-${randomBytes(9).toString('hex').slice(0, 17)}`;
}

/** A Windows-like administrator password: long, every character class, no ambiguous quotes. */
function windowsPassword(): string {
  const classes = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!@#$%&*()-_=+;:?.'];
  const all = classes.join('');
  const chars = classes.map((set) => set[randomInt(set.length)] ?? 'x');
  while (chars.length < 32) chars.push(all[randomInt(all.length)] ?? 'x');
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] ?? '', chars[i] ?? ''];
  }
  return chars.join('');
}

/** vCPUs by size, enough for the On-Demand vCPU quota (g4dn.xlarge 4, g4dn.2xlarge 8). */
export function vcpusOf(instanceType: string): number {
  const size = instanceType.split('.')[1] ?? '';
  const fixed: Record<string, number> = {
    nano: 2,
    micro: 2,
    small: 2,
    medium: 2,
    large: 2,
    xlarge: 4,
    metal: 96,
  };
  if (fixed[size] !== undefined) return fixed[size];
  const multiple = /^(\d+)xlarge$/.exec(size);
  return multiple ? Number(multiple[1]) * 4 : 4;
}

function glob(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${body}$`, 's');
}

function fingerprint(request: RunRequest): string {
  const relevant = [
    request.imageId,
    request.instanceType,
    request.minCount,
    request.maxCount,
    request.keyName,
    request.subnetId,
    [...request.securityGroupIds].sort(),
    // EC2 compares the whole request: a retry with other user data is another request.
    request.userData ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(relevant)).digest('hex');
}

function reasonTime(at: number): string {
  return new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' GMT');
}

export function createEngine(options: EngineOptions) {
  let profile: ProfileName = options.profile;
  let timingOverrides: Partial<Timings> = {};
  let clockOffsetMs = 0;
  let seq = 0;
  let eventualConsistencyMs = 0;
  let capacity: Record<string, number> = { ...options.capacity };
  let defaultCapacity = options.defaultCapacity;
  let vcpuLimit = options.vcpuLimit;
  let faults: Fault[] = [];
  const denied = new Set<string>();
  const instances = new Map<string, InstanceRecord>();
  const tokens = new Map<string, TokenRecord>();
  const snapshots = new Map<string, SnapshotRecord>();
  const heldIps = new Map<string, string>();
  const keyPairs = new Map<string, string>(Object.entries(options.keyPairs));
  const publicKeys = new Map<string, KeyObject>();
  let generatedKey: { name: string; privateKeyPem: string } | null = null;

  const now = () => options.now() + clockOffsetMs;
  const timings = (): Timings => ({ ...PROFILES[profile], ...timingOverrides });

  // ---- keys ----

  function ensureGeneratedKey(): { name: string; privateKeyPem: string } {
    if (!generatedKey) {
      // Generated on first need: most tests never ask, and RSA generation costs a moment.
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      generatedKey = {
        name: options.defaultKeyName,
        privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      };
      options.onChange();
    }
    return generatedKey;
  }

  function hasKeyPair(name: string): boolean {
    return keyPairs.has(name) || name === options.defaultKeyName;
  }

  function publicKeyFor(name: string): KeyObject | null {
    const cached = publicKeys.get(name);
    if (cached) return cached;
    const pem =
      keyPairs.get(name) ??
      (name === options.defaultKeyName ? ensureGeneratedKey().privateKeyPem : undefined);
    if (pem === undefined) return null;
    // A private PEM is welcome too: its public half is what EC2 keeps.
    const key = createPublicKey(pem);
    publicKeys.set(name, key);
    return key;
  }

  // ---- states ----

  function stateAt(record: InstanceRecord, t: number): StateName {
    const { kind, until } = record.transition;
    const settled = t >= until;
    switch (kind) {
      case 'launch':
      case 'start':
        return settled ? 'running' : 'pending';
      case 'stop':
        return settled ? 'stopped' : 'stopping';
      case 'terminate':
        return settled ? 'terminated' : 'shutting-down';
    }
  }

  function openSegmentMs(record: InstanceRecord, t: number): number {
    const { kind, until } = record.transition;
    return HELD_KINDS.has(kind) && t >= until ? t - until : 0;
  }

  function passwordReadyAt(record: InstanceRecord, t: number): number | null {
    if (record.passwordReadyAt !== null) return record.passwordReadyAt;
    const needed = record.passwordAfterMs - record.runningMs;
    if (openSegmentMs(record, t) >= needed) return record.transition.until + needed;
    return null;
  }

  /** Ends a running segment at a stop or terminate, remembering when first boot finished. */
  function closeSegment(record: InstanceRecord, t: number): void {
    const segment = openSegmentMs(record, t);
    if (segment === 0) return;
    if (record.passwordReadyAt === null && record.runningMs + segment >= record.passwordAfterMs) {
      record.passwordReadyAt = record.transition.until + (record.passwordAfterMs - record.runningMs);
    }
    record.runningMs += segment;
  }

  function visible(record: InstanceRecord, t: number): boolean {
    if (t < record.launchedAt + eventualConsistencyMs) return false;
    return !(
      record.transition.kind === 'terminate' && t >= record.transition.until + options.terminatedVisibleMs
    );
  }

  function view(record: InstanceRecord, t: number): InstanceView {
    const state = stateAt(record, t);
    return {
      record,
      state,
      publicIp: state === 'running' ? record.publicIp : null,
      passwordReadyAt: passwordReadyAt(record, t),
    };
  }

  /**
   * An event whose time came while the instance still runs on that hardware happens: a retirement
   * or a scheduled stop stops it (EBS-backed, as ours are), at the event's time; a reboot or
   * maintenance passes. Either way the event is over.
   */
  function applyDueEvents(record: InstanceRecord, t: number): void {
    if (record.events.length === 0) return;
    const due = record.events.filter((e) => e.notBefore <= t);
    if (due.length === 0) return;
    record.events = record.events.filter((e) => e.notBefore > t);
    const stops = due.find((e) => e.code === 'instance-retirement' || e.code === 'instance-stop');
    if (stops && stateAt(record, stops.notBefore) === 'running') {
      closeSegment(record, stops.notBefore);
      releaseIpKeepingLast(record);
      record.transition = { kind: 'stop', at: stops.notBefore, until: stops.notBefore + 30_000 };
      record.stoppedByEvent = stops.code;
    }
    options.onChange();
  }

  function scheduleEvent(input: EventInput): void {
    const record = instances.get(input.instanceId);
    if (!record) throw new Error(`no instance ${input.instanceId}`);
    const notBefore = input.notBefore ? Date.parse(input.notBefore) : now() + (input.inMs ?? 7 * 86_400_000);
    if (!Number.isFinite(notBefore)) throw new Error('notBefore is not a date');
    record.events.push({
      eventId: `instance-event-${randomBytes(9).toString('hex').slice(0, 17)}`,
      code: input.code,
      description:
        input.description ??
        (input.code === 'instance-retirement'
          ? 'The instance is running on degraded hardware'
          : `Scheduled ${input.code}`),
      notBefore,
      notAfter: input.durationMs === undefined ? null : notBefore + input.durationMs,
    });
  }

  /** Terminated instances leave DescribeInstances after a while, as in AWS. */
  function sweep(t: number): void {
    for (const [id, record] of instances) {
      applyDueEvents(record, t);
      if (
        record.transition.kind === 'terminate' &&
        t >= record.transition.until + options.terminatedVisibleMs
      ) {
        instances.delete(id);
        options.onChange();
      }
    }
  }

  // ---- addresses ----

  const IP_COUNT = options.publicIps === 'loopback' ? LOOPBACK_IP_COUNT : DOCUMENTATION_IP_COUNT;

  function ipAt(index: number): string {
    if (options.publicIps === 'loopback') {
      const second = 16 + Math.floor(index / (256 * 254));
      return `127.${second}.${Math.floor(index / 254) % 256}.${(index % 254) + 1}`;
    }
    return `${IP_POOLS[Math.floor(index / 254)] ?? IP_POOLS[0]}${(index % 254) + 1}`;
  }

  /** A fresh public IP, never the instance's previous one, unique while the pools last. */
  function allocateIp(instanceId: string, previous: string | null): string {
    for (let attempt = 0; attempt < 16; attempt++) {
      // Loopback addresses are shared by every sandbox on the machine: the process's own
      // randomness keeps parallel test files apart even when their `random` is seeded alike.
      const pick = options.publicIps === 'loopback' ? randomInt(IP_COUNT) : options.random() * IP_COUNT;
      const ip = ipAt(Math.floor(pick) % IP_COUNT);
      if (ip !== previous && !heldIps.has(ip)) {
        heldIps.set(ip, instanceId);
        return ip;
      }
    }
    const offset = randomInt(IP_COUNT);
    for (let i = 0; i < IP_COUNT; i++) {
      const ip = ipAt((offset + i) % IP_COUNT);
      if (ip !== previous && !heldIps.has(ip)) {
        heldIps.set(ip, instanceId);
        return ip;
      }
    }
    // More running machines than documentation addresses: share one rather than fail.
    const ip = ipAt(offset) === previous ? ipAt((offset + 1) % IP_COUNT) : ipAt(offset);
    heldIps.set(ip, instanceId);
    return ip;
  }

  function releaseIp(record: InstanceRecord): void {
    if (record.publicIp !== null && heldIps.get(record.publicIp) === record.instanceId)
      heldIps.delete(record.publicIp);
    record.publicIp = null;
  }

  function privateIpFor(n: number): string {
    const value = n + 10;
    return `10.${(value >> 16) & 255}.${(value >> 8) & 255}.${value & 255}`;
  }

  function zoneOf(subnetId: string): string {
    const letter = 'abc'[(createHash('sha256').update(subnetId).digest()[0] ?? 0) % 3];
    return `${options.region}${letter}`;
  }

  // ---- capacity ----

  /** Instances holding hardware: pending, running, and those still stopping or shutting down. */
  function usage(t: number): { byType: Map<string, number>; vcpus: number } {
    const byType = new Map<string, number>();
    let vcpus = 0;
    for (const record of instances.values()) {
      const state = stateAt(record, t);
      if (state === 'stopped' || state === 'terminated') continue;
      byType.set(record.instanceType, (byType.get(record.instanceType) ?? 0) + 1);
      vcpus += vcpusOf(record.instanceType);
    }
    return { byType, vcpus };
  }

  function limitOf(instanceType: string): number {
    return capacity[instanceType] ?? defaultCapacity;
  }

  function insufficientCapacity(instanceType: string, zone: string): Ec2Error {
    const others = ['a', 'b', 'c'].map((l) => `${options.region}${l}`).filter((z) => z !== zone);
    return new Ec2Error(
      'InsufficientInstanceCapacity',
      `We currently do not have sufficient ${instanceType} capacity in the Availability Zone you requested (${zone}). Our system will be working on provisioning additional capacity. You can currently get ${instanceType} capacity by not specifying an Availability Zone in your request or choosing ${others.join(', ')}.`,
    );
  }

  function vcpuExceeded(): Ec2Error {
    return new Ec2Error(
      'VcpuLimitExceeded',
      `You have requested more vCPU capacity than your current vCPU limit of ${vcpuLimit} allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.`,
    );
  }

  // ---- faults ----

  function takeFault(
    action: string,
    context: { subnetIds: string[]; instanceTypes: string[]; instanceIds: string[] },
  ): void {
    const t = now();
    faults = faults.filter((f) => f.until === undefined || f.until > t);
    const index = faults.findIndex(
      (f) =>
        (f.action === '*' || f.action === action) &&
        (f.subnetId === undefined || context.subnetIds.includes(f.subnetId)) &&
        (f.instanceType === undefined || context.instanceTypes.includes(f.instanceType)) &&
        (f.instanceId === undefined || context.instanceIds.includes(f.instanceId)),
    );
    const fault = faults[index];
    if (!fault) return;
    fault.times -= 1;
    if (fault.times <= 0) faults.splice(index, 1);
    throw new Ec2Error(fault.code, fault.message ?? `Injected by the sandbox: ${fault.code}`, fault.status);
  }

  /**
   * IAM's answer, before anything else and with or without DryRun: an action the control
   * endpoint denied answers UnauthorizedOperation as AWS does for a role lacking it.
   */
  function checkAuthorized(iamAction: string): void {
    if (!denied.has(iamAction)) return;
    throw new Ec2Error(
      'UnauthorizedOperation',
      `You are not authorized to perform this operation. User: arn:aws:sts::${options.ownerId}:assumed-role/legend-worker/sandbox is not authorized to perform: ${iamAction} because no identity-based policy allows the ${iamAction} action.`,
    );
  }

  /** Injected faults answer before the action runs, like a failure at AWS's front door. */
  function checkFaults(
    action: string,
    context: { subnetId?: string | null; instanceType?: string; instanceIds?: string[] },
  ): void {
    if (faults.length === 0) return;
    const records = (context.instanceIds ?? []).map((id) => instances.get(id)).filter((r) => r !== undefined);
    takeFault(action, {
      // RunInstances without a subnet lands in the default one, and its faults apply.
      subnetIds: [
        ...(context.subnetId === undefined ? [] : [context.subnetId ?? options.defaultSubnetId]),
        ...records.map((r) => r.subnetId),
      ],
      instanceTypes: [
        ...(context.instanceType ? [context.instanceType] : []),
        ...records.map((r) => r.instanceType),
      ],
      instanceIds: context.instanceIds ?? [],
    });
  }

  // ---- lookups ----

  function checkIds(ids: string[]): void {
    for (const id of ids) {
      if (!INSTANCE_ID.test(id)) throw new Ec2Error('InvalidInstanceID.Malformed', `Invalid id: "${id}"`);
    }
  }

  function findAll(ids: string[], t: number): InstanceRecord[] {
    checkIds(ids);
    const missing: string[] = [];
    const found: InstanceRecord[] = [];
    for (const id of new Set(ids)) {
      const record = instances.get(id);
      if (record && visible(record, t)) found.push(record);
      else missing.push(id);
    }
    if (missing.length > 0) throw notFound(missing);
    return found;
  }

  // ---- actions ----

  function runInstances(request: RunRequest): { reservationId: string; views: InstanceView[] } {
    const t = now();
    sweep(t);
    if (!INSTANCE_TYPE.test(request.instanceType)) throw invalidValue('InstanceType', request.instanceType);
    if (!/^ami-[0-9a-f]{8,17}$/.test(request.imageId))
      throw new Ec2Error('InvalidAMIID.Malformed', `Invalid id: "${request.imageId}" (expecting "ami-...")`);
    if (request.minCount < 1)
      throw invalidValue('MinCount', String(request.minCount), 'MinCount must be at least 1.');
    if (request.maxCount < request.minCount)
      throw invalidValue('MaxCount', String(request.maxCount), 'MaxCount must not be below MinCount.');
    if (request.keyName !== null && !hasKeyPair(request.keyName)) {
      throw new Ec2Error('InvalidKeyPair.NotFound', `The key pair '${request.keyName}' does not exist`);
    }
    if (request.subnetId !== null && !/^subnet-[0-9a-z]+$/.test(request.subnetId)) {
      throw new Ec2Error('InvalidSubnetID.NotFound', `The subnet ID '${request.subnetId}' does not exist`);
    }
    for (const group of request.securityGroupIds) {
      if (!/^sg-[0-9a-z]+$/.test(group))
        throw new Ec2Error('InvalidGroupId.Malformed', `Invalid id: "${group}" (expecting "sg-...")`);
    }
    if (request.volumeSizeGb !== null && (request.volumeSizeGb < 30 || request.volumeSizeGb > 16_384)) {
      throw invalidValue(
        'VolumeSize',
        String(request.volumeSizeGb),
        'A Windows root volume is 30 to 16384 GiB.',
      );
    }
    if (
      request.clientToken !== null &&
      (request.clientToken.length > 64 || !/^[\x20-\x7e]+$/.test(request.clientToken))
    ) {
      throw invalidValue('ClientToken', request.clientToken, 'At most 64 ASCII characters.');
    }

    const fromSnapshot = request.snapshotId ? snapshots.get(request.snapshotId) : undefined;
    if (request.snapshotId) {
      if (!fromSnapshot)
        throw new Ec2Error(
          'InvalidSnapshot.NotFound',
          `The snapshot '${request.snapshotId}' does not exist.`,
        );
      if (snapshotView(fromSnapshot, t).state !== 'completed')
        throw new Ec2Error('IncorrectState', `Snapshot is in invalid state - pending`);
      if (request.volumeSizeGb !== null && request.volumeSizeGb < fromSnapshot.volumeSizeGb)
        throw new Ec2Error(
          'InvalidBlockDeviceMapping',
          `Volume of size ${request.volumeSizeGb}GB is smaller than snapshot '${fromSnapshot.snapshotId}', expect size >= ${fromSnapshot.volumeSizeGb}GB`,
        );
    }
    if (request.clientToken !== null) {
      const previous = tokens.get(request.clientToken);
      if (previous) {
        if (previous.fingerprint !== fingerprint(request)) {
          throw new Ec2Error(
            'IdempotentParameterMismatch',
            'The client token you have provided is associated with a resource that is already deleted or differs from the request parameters.',
          );
        }
        // The same token answers the first launch again, as it stands now; nothing new is launched.
        const views = previous.instanceIds
          .map((id) => instances.get(id))
          .filter((r) => r !== undefined)
          .map((r) => view(r, t));
        return { reservationId: previous.reservationId, views };
      }
    }

    const subnetId = request.subnetId ?? options.defaultSubnetId;
    const zone = zoneOf(subnetId);
    const used = usage(t);
    const free = limitOf(request.instanceType) - (used.byType.get(request.instanceType) ?? 0);
    if (free < request.minCount) throw insufficientCapacity(request.instanceType, zone);
    let count = Math.min(request.maxCount, free);
    if (vcpuLimit !== null) {
      const fits = Math.floor((vcpuLimit - used.vcpus) / vcpusOf(request.instanceType));
      if (fits < request.minCount) throw vcpuExceeded();
      count = Math.min(count, fits);
    }

    const reservationId = hexId('r');
    const plan = timings();
    const views: InstanceView[] = [];
    for (let index = 0; index < count; index++) {
      seq += 1;
      const instanceId = hexId('i');
      const record: InstanceRecord = {
        seq,
        instanceId,
        reservationId,
        imageId: request.imageId,
        instanceType: request.instanceType,
        keyName: request.keyName,
        subnetId,
        availabilityZone: zone,
        securityGroupIds: request.securityGroupIds,
        privateIp: privateIpFor(seq),
        clientToken: request.clientToken,
        launchedAt: t,
        startedAt: t,
        amiLaunchIndex: index,
        rootDeviceName: request.rootDeviceName ?? '/dev/sda1',
        volumeId: hexId('vol'),
        volumeSizeGb: request.volumeSizeGb ?? fromSnapshot?.volumeSizeGb ?? 30,
        iamInstanceProfile: request.iamInstanceProfile,
        tags: request.instanceTags.map((tag) => ({ ...tag })),
        transition: { kind: 'launch', at: t, until: t + sample(plan.launch, options.random) },
        runningMs: 0,
        passwordAfterMs: sample(plan.password, options.random),
        passwordReadyAt: null,
        password: windowsPassword(),
        passwordData: null,
        publicIp: null,
        restoredFromSnapshot: fromSnapshot?.snapshotId ?? null,
        userData: request.userData ?? null,
        events: [],
        stoppedByEvent: null,
      };
      record.publicIp = allocateIp(instanceId, null);
      instances.set(instanceId, record);
      views.push(view(record, t));
    }
    if (request.clientToken !== null) {
      tokens.set(request.clientToken, {
        reservationId,
        fingerprint: fingerprint(request),
        instanceIds: views.map((v) => v.record.instanceId),
      });
    }
    options.onChange();
    return { reservationId, views };
  }

  function compileFilter(filter: Filter): CompiledFilter {
    if (!filter.name.startsWith('tag:') && !FILTERS.has(filter.name)) {
      throw new Ec2Error('InvalidParameterValue', `The filter '${filter.name}' is invalid`);
    }
    const literal = filter.values.every((value) => !/[*?]/.test(value));
    return {
      name: filter.name,
      patterns: literal ? [] : filter.values.map(glob),
      exact: literal ? new Set(filter.values) : null,
    };
  }

  function matches(filter: CompiledFilter, v: InstanceView): boolean {
    const r = v.record;
    const exact = filter.exact;
    const test = (candidates: Array<string | null>) =>
      exact
        ? candidates.some((c) => c !== null && exact.has(c))
        : filter.patterns.some((pattern) => candidates.some((c) => c !== null && pattern.test(c)));
    if (filter.name.startsWith('tag:')) {
      const key = filter.name.slice(4);
      return test(r.tags.filter((tag) => tag.key === key).map((tag) => tag.value));
    }
    switch (filter.name) {
      case 'tag-key':
        return test(r.tags.map((tag) => tag.key));
      case 'instance-id':
        return test([r.instanceId]);
      case 'instance-state-name':
        return test([v.state]);
      case 'instance-state-code':
        return test([String(STATE_CODES[v.state])]);
      case 'instance-type':
        return test([r.instanceType]);
      case 'subnet-id':
        return test([r.subnetId]);
      case 'availability-zone':
        return test([r.availabilityZone]);
      case 'image-id':
        return test([r.imageId]);
      case 'key-name':
        return test([r.keyName]);
      case 'client-token':
        return test([r.clientToken]);
      case 'reservation-id':
        return test([r.reservationId]);
      case 'ip-address':
        return test([v.publicIp]);
      case 'private-ip-address':
        return test([r.privateIp]);
      default:
        return test([VPC_ID]);
    }
  }

  function describeInstances(request: DescribeRequest): { views: InstanceView[]; nextToken: string | null } {
    const t = now();
    sweep(t);
    if (request.maxResults !== null) {
      if (request.instanceIds.length > 0) {
        throw new Ec2Error(
          'InvalidParameterCombination',
          'The parameter instancesSet cannot be used with the parameter maxResults',
        );
      }
      if (request.maxResults < 5 || request.maxResults > 1000) {
        throw invalidValue('MaxResults', String(request.maxResults), 'Value must be between 5 and 1000.');
      }
    }
    let afterSeq = 0;
    if (request.nextToken !== null) {
      try {
        const decoded: unknown = JSON.parse(Buffer.from(request.nextToken, 'base64url').toString('utf8'));
        if (
          typeof decoded !== 'object' ||
          decoded === null ||
          typeof (decoded as { s?: unknown }).s !== 'number'
        )
          throw new Error('shape');
        afterSeq = (decoded as { s: number }).s;
      } catch {
        throw new Ec2Error('InvalidParameterValue', 'The value of the NextToken parameter is not valid.');
      }
    }
    const compiled = request.filters.map(compileFilter);
    const source =
      request.instanceIds.length > 0
        ? findAll(request.instanceIds, t).sort((a, b) => a.seq - b.seq)
        : [...instances.values()];
    const limit = request.maxResults ?? Number.POSITIVE_INFINITY;
    const views: InstanceView[] = [];
    let nextToken: string | null = null;
    for (const record of source) {
      if (record.seq <= afterSeq || !visible(record, t)) continue;
      const v = view(record, t);
      if (!compiled.every((f) => matches(f, v))) continue;
      if (views.length >= limit) {
        const last = views[views.length - 1];
        nextToken = Buffer.from(JSON.stringify({ s: last?.record.seq ?? afterSeq })).toString('base64url');
        break;
      }
      views.push(v);
    }
    return { views, nextToken };
  }

  function incorrectState(instanceId: string, verb: string): Ec2Error {
    return new Ec2Error(
      'IncorrectInstanceState',
      `The instance '${instanceId}' is not in a state from which it can be ${verb}.`,
    );
  }

  function startInstances(ids: string[]): StateChange[] {
    const t = now();
    sweep(t);
    const records = findAll(ids, t);
    for (const record of records) {
      const state = stateAt(record, t);
      if (state === 'stopping' || state === 'shutting-down' || state === 'terminated')
        throw incorrectState(record.instanceId, 'started');
    }
    const waking = records.filter((r) => stateAt(r, t) === 'stopped');
    const used = usage(t);
    const wanted = new Map<string, number>();
    for (const record of waking) wanted.set(record.instanceType, (wanted.get(record.instanceType) ?? 0) + 1);
    for (const [instanceType, count] of wanted) {
      // A stopped GPU machine holds no hardware: starting it can find none, as in AWS.
      if ((used.byType.get(instanceType) ?? 0) + count > limitOf(instanceType)) {
        throw insufficientCapacity(
          instanceType,
          waking.find((r) => r.instanceType === instanceType)?.availabilityZone ?? '',
        );
      }
    }
    if (
      vcpuLimit !== null &&
      used.vcpus + waking.reduce((sum, r) => sum + vcpusOf(r.instanceType), 0) > vcpuLimit
    )
      throw vcpuExceeded();
    const plan = timings();
    const changes = records.map((record) => {
      const previous = stateAt(record, t);
      if (previous === 'stopped') {
        const lastIp = record.publicIp;
        // A stopped EBS-backed instance starts on other hardware: what was scheduled on the old is not its own.
        record.events = [];
        record.stoppedByEvent = null;
        record.transition = { kind: 'start', at: t, until: t + sample(plan.start, options.random) };
        record.startedAt = t;
        record.publicIp = allocateIp(record.instanceId, lastIp);
      }
      return { instanceId: record.instanceId, previous, current: stateAt(record, t) };
    });
    if (waking.length > 0) options.onChange();
    return changes;
  }

  function stopInstances(ids: string[]): StateChange[] {
    const t = now();
    sweep(t);
    const records = findAll(ids, t);
    for (const record of records) {
      const state = stateAt(record, t);
      if (state === 'pending' || state === 'shutting-down' || state === 'terminated')
        throw incorrectState(record.instanceId, 'stopped');
    }
    const plan = timings();
    let changed = false;
    const changes = records.map((record) => {
      const previous = stateAt(record, t);
      if (previous === 'running') {
        closeSegment(record, t);
        releaseIpKeepingLast(record);
        record.transition = { kind: 'stop', at: t, until: t + sample(plan.stop, options.random) };
        changed = true;
      }
      return { instanceId: record.instanceId, previous, current: stateAt(record, t) };
    });
    if (changed) options.onChange();
    return changes;
  }

  /** The address goes back to the pool, but the record remembers it so the next one differs. */
  function releaseIpKeepingLast(record: InstanceRecord): void {
    const last = record.publicIp;
    releaseIp(record);
    record.publicIp = last;
  }

  function terminateInstances(ids: string[]): StateChange[] {
    const t = now();
    sweep(t);
    const records = findAll(ids, t);
    const plan = timings();
    let changed = false;
    const changes = records.map((record) => {
      const previous = stateAt(record, t);
      if (previous !== 'shutting-down' && previous !== 'terminated') {
        closeSegment(record, t);
        releaseIp(record);
        record.transition = { kind: 'terminate', at: t, until: t + sample(plan.terminate, options.random) };
        changed = true;
      }
      return { instanceId: record.instanceId, previous, current: stateAt(record, t) };
    });
    if (changed) options.onChange();
    return changes;
  }

  function describeInstanceStatus(request: {
    instanceIds: string[];
    includeAll: boolean;
    filters: Filter[];
    maxResults: number | null;
    nextToken: string | null;
  }): { views: InstanceStatusView[]; nextToken: string | null } {
    const t = now();
    sweep(t);
    if (request.maxResults !== null && (request.maxResults < 5 || request.maxResults > 1000))
      throw invalidValue('MaxResults', String(request.maxResults), 'Value must be between 5 and 1000.');
    for (const filter of request.filters) {
      if (!['event.code', 'instance-state-name', 'availability-zone'].includes(filter.name))
        throw new Ec2Error('InvalidParameterValue', `The filter '${filter.name}' is invalid`);
    }
    const source =
      request.instanceIds.length > 0
        ? findAll(request.instanceIds, t).sort((a, b) => a.seq - b.seq)
        : [...instances.values()].filter((r) => visible(r, t)).sort((a, b) => a.seq - b.seq);
    let afterSeq = 0;
    if (request.nextToken !== null) {
      afterSeq = Number(Buffer.from(request.nextToken, 'base64url').toString('utf8'));
      if (!Number.isInteger(afterSeq))
        throw new Ec2Error('InvalidParameterValue', 'The value of the NextToken parameter is not valid.');
    }
    const limit = request.maxResults ?? Number.POSITIVE_INFINITY;
    const views: InstanceStatusView[] = [];
    let nextToken: string | null = null;
    for (const record of source) {
      if (record.seq <= afterSeq) continue;
      const state = stateAt(record, t);
      // Without IncludeAllInstances, EC2 answers for running instances only.
      if (!request.includeAll && state !== 'running') continue;
      const matchesAll = request.filters.every((f) => {
        const candidates =
          f.name === 'event.code'
            ? record.events.map((e) => e.code)
            : f.name === 'instance-state-name'
              ? [state]
              : [record.availabilityZone];
        return f.values.some((value) => candidates.includes(value));
      });
      if (!matchesAll) continue;
      if (views.length >= limit) {
        nextToken = Buffer.from(String(views[views.length - 1]?.record.seq ?? afterSeq)).toString(
          'base64url',
        );
        break;
      }
      views.push({ record, state, events: [...record.events] });
    }
    return { views, nextToken };
  }

  function getPasswordData(instanceId: string): {
    instanceId: string;
    timestamp: number;
    passwordData: string;
  } {
    const t = now();
    sweep(t);
    const [record] = findAll([instanceId], t);
    if (!record) throw notFound([instanceId]);
    const readyAt = passwordReadyAt(record, t);
    if (readyAt === null || record.keyName === null) return { instanceId, timestamp: t, passwordData: '' };
    if (record.passwordData === null) {
      const key = publicKeyFor(record.keyName);
      if (!key) return { instanceId, timestamp: t, passwordData: '' };
      // EC2 encrypts the password with the launch key pair's public key, PKCS#1 v1.5.
      record.passwordData = publicEncrypt(
        { key, padding: constants.RSA_PKCS1_PADDING },
        Buffer.from(record.password, 'utf8'),
      ).toString('base64');
      options.onChange();
    }
    return { instanceId, timestamp: readyAt, passwordData: record.passwordData };
  }

  function createTags(resourceIds: string[], newTags: Tag[]): void {
    const t = now();
    sweep(t);
    const volumes = new Set([...instances.values()].map((r) => r.volumeId));
    const targets: InstanceRecord[] = [];
    for (const id of resourceIds) {
      if (id.startsWith('i-')) targets.push(...findAll([id], t));
      else if (id.startsWith('snap-')) {
        const found = snapshots.get(id);
        if (!found) throw new Ec2Error('InvalidSnapshot.NotFound', `The snapshot '${id}' does not exist.`);
        mergeTags(found.tags, newTags);
      } else if (!volumes.has(id)) throw new Ec2Error('InvalidID', `The ID '${id}' is not valid`);
    }
    for (const record of targets) {
      for (const tag of newTags) {
        const existing = record.tags.find((x) => x.key === tag.key);
        if (existing) existing.value = tag.value;
        else record.tags.push({ ...tag });
      }
      if (record.tags.length > 50)
        throw new Ec2Error('TagLimitExceeded', 'The maximum number of tags per resource is 50.');
    }
    options.onChange();
  }

  // ---- volumes and snapshots ----

  function mergeTags(into: Tag[], newTags: Tag[]): void {
    for (const tag of newTags) {
      const existing = into.find((x) => x.key === tag.key);
      if (existing) existing.value = tag.value;
      else into.push({ ...tag });
    }
    if (into.length > 50)
      throw new Ec2Error('TagLimitExceeded', 'The maximum number of tags per resource is 50.');
  }

  function modifyInstanceType(instanceId: string, instanceType: string): void {
    const t = now();
    sweep(t);
    const [record] = findAll([instanceId], t);
    if (!record) throw notFound([instanceId]);
    if (!INSTANCE_TYPE.test(instanceType)) throw invalidValue('InstanceType', instanceType);
    // As AWS: the type of an EBS-backed instance changes only while it is stopped.
    if (stateAt(record, t) !== 'stopped')
      throw new Ec2Error(
        'IncorrectInstanceState',
        `The instance '${instanceId}' is not in the 'stopped' state.`,
      );
    record.instanceType = instanceType;
    options.onChange();
  }

  function volumeOwner(volumeId: string, t: number): InstanceRecord {
    for (const record of instances.values()) {
      if (record.volumeId !== volumeId) continue;
      const state = stateAt(record, t);
      // DeleteOnTermination: the root volume goes with its instance.
      if (state !== 'terminated' && state !== 'shutting-down') return record;
    }
    throw new Ec2Error('InvalidVolume.NotFound', `The volume '${volumeId}' does not exist.`);
  }

  /** Grows a volume in place (in use or not); it never shrinks, as in AWS. */
  function modifyVolume(volumeId: string, sizeGb: number): { volumeId: string; from: number; to: number } {
    const t = now();
    sweep(t);
    const record = volumeOwner(volumeId, t);
    if (sizeGb < record.volumeSizeGb)
      throw new Ec2Error(
        'InvalidParameterValue',
        `New size cannot be smaller than existing size. Existing size: ${record.volumeSizeGb}, requested size: ${sizeGb}`,
      );
    if (sizeGb > 16_384) throw invalidValue('Size', String(sizeGb), 'A gp3 volume is at most 16384 GiB.');
    const from = record.volumeSizeGb;
    record.volumeSizeGb = sizeGb;
    options.onChange();
    return { volumeId, from, to: sizeGb };
  }

  function snapshotView(record: SnapshotRecord, t: number): SnapshotView {
    if (t >= record.completesAt) return { record, state: 'completed', progress: '100%' };
    const span = Math.max(1, record.completesAt - record.startedAt);
    const done = Math.min(99, Math.floor(((t - record.startedAt) / span) * 100));
    return { record, state: 'pending', progress: `${Math.max(0, done)}%` };
  }

  function createSnapshot(volumeId: string, description: string, tags: Tag[]): SnapshotView {
    const t = now();
    sweep(t);
    const source = volumeOwner(volumeId, t);
    const record: SnapshotRecord = {
      snapshotId: hexId('snap'),
      volumeId,
      volumeSizeGb: source.volumeSizeGb,
      sourceInstanceId: source.instanceId,
      description,
      tags: tags.map((tag) => ({ ...tag })),
      startedAt: t,
      completesAt: t + sample(timings().snapshot, options.random),
    };
    snapshots.set(record.snapshotId, record);
    options.onChange();
    return snapshotView(record, t);
  }

  const SNAPSHOT_FILTERS = new Set(['snapshot-id', 'status', 'volume-id', 'tag-key', 'owner-id']);

  function describeSnapshots(request: DescribeSnapshotsRequest): {
    views: SnapshotView[];
    nextToken: string | null;
  } {
    const t = now();
    for (const id of request.snapshotIds) {
      if (!snapshots.has(id))
        throw new Ec2Error('InvalidSnapshot.NotFound', `The snapshot '${id}' does not exist.`);
    }
    if (request.maxResults !== null && (request.maxResults < 5 || request.maxResults > 1000))
      throw invalidValue('MaxResults', String(request.maxResults), 'Value must be between 5 and 1000.');
    const compiled = request.filters.map((filter) => {
      if (!filter.name.startsWith('tag:') && !SNAPSHOT_FILTERS.has(filter.name))
        throw new Ec2Error('InvalidParameterValue', `The filter '${filter.name}' is invalid`);
      return { name: filter.name, patterns: filter.values.map(glob) };
    });
    const matchesSnapshot = (v: SnapshotView) =>
      compiled.every((filter) => {
        const test = (candidates: string[]) =>
          filter.patterns.some((pattern) => candidates.some((c) => pattern.test(c)));
        if (filter.name.startsWith('tag:'))
          return test(
            v.record.tags.filter((tag) => tag.key === filter.name.slice(4)).map((tag) => tag.value),
          );
        switch (filter.name) {
          case 'snapshot-id':
            return test([v.record.snapshotId]);
          case 'status':
            return test([v.state]);
          case 'volume-id':
            return test([v.record.volumeId]);
          case 'tag-key':
            return test(v.record.tags.map((tag) => tag.key));
          default:
            return test([options.ownerId]);
        }
      });
    const all = [...snapshots.values()]
      .filter((r) => request.snapshotIds.length === 0 || request.snapshotIds.includes(r.snapshotId))
      .sort((a, b) => a.startedAt - b.startedAt || a.snapshotId.localeCompare(b.snapshotId));
    let start = 0;
    if (request.nextToken !== null) {
      const at = all.findIndex(
        (r) => r.snapshotId === Buffer.from(request.nextToken ?? '', 'base64url').toString(),
      );
      if (at < 0)
        throw new Ec2Error('InvalidParameterValue', 'The value of the NextToken parameter is not valid.');
      start = at;
    }
    const limit = request.maxResults ?? Number.POSITIVE_INFINITY;
    const views: SnapshotView[] = [];
    let nextToken: string | null = null;
    for (const record of all.slice(start)) {
      const v = snapshotView(record, t);
      if (!matchesSnapshot(v)) continue;
      if (views.length >= limit) {
        nextToken = Buffer.from(record.snapshotId).toString('base64url');
        break;
      }
      views.push(v);
    }
    return { views, nextToken };
  }

  function deleteSnapshot(snapshotId: string): void {
    if (!snapshots.delete(snapshotId))
      throw new Ec2Error('InvalidSnapshot.NotFound', `The snapshot '${snapshotId}' does not exist.`);
    options.onChange();
  }

  // ---- control, snapshots, persistence ----

  function control(input: ControlInput): void {
    if (input.clearFaults) faults = [];
    for (const { forMs, ...fault } of input.faults ?? [])
      faults.push({
        ...fault,
        times: fault.times ?? (forMs === undefined ? 1 : Number.POSITIVE_INFINITY),
        ...(forMs === undefined ? {} : { until: now() + forMs }),
      });
    for (const event of input.events ?? []) scheduleEvent(event);
    for (const [instanceType, limit] of Object.entries(input.capacity ?? {})) {
      if (limit === null) delete capacity[instanceType];
      else capacity[instanceType] = limit;
    }
    if (input.defaultCapacity !== undefined) defaultCapacity = input.defaultCapacity;
    if (input.vcpuLimit !== undefined) vcpuLimit = input.vcpuLimit;
    if (input.profile !== undefined) {
      profile = input.profile;
      timingOverrides = {};
    }
    if (input.timings !== undefined) timingOverrides = { ...timingOverrides, ...input.timings };
    if (input.eventualConsistencyMs !== undefined) eventualConsistencyMs = input.eventualConsistencyMs;
    for (const [name, pem] of Object.entries(input.keyPairs ?? {})) {
      createPublicKey(pem);
      keyPairs.set(name, pem);
      publicKeys.delete(name);
    }
    for (const action of input.deny ?? []) denied.add(action);
    for (const action of input.allow ?? []) {
      if (action === '*') denied.clear();
      else denied.delete(action);
    }
    if (input.advanceMs !== undefined && input.advanceMs > 0) {
      // Time travel for the demo and HTTP-only tests: every lazy state moves on at once.
      clockOffsetMs += input.advanceMs;
    }
    options.onChange();
  }

  function reset(): void {
    instances.clear();
    tokens.clear();
    snapshots.clear();
    heldIps.clear();
    faults = [];
    denied.clear();
    capacity = { ...options.capacity };
    defaultCapacity = options.defaultCapacity;
    vcpuLimit = options.vcpuLimit;
    profile = options.profile;
    timingOverrides = {};
    eventualConsistencyMs = 0;
    clockOffsetMs = 0;
    options.onChange();
  }

  function snapshot() {
    const t = now();
    sweep(t);
    return {
      now: new Date(t).toISOString(),
      profile,
      timings: timings(),
      capacity: { ...capacity },
      defaultCapacity,
      vcpuLimit,
      eventualConsistencyMs,
      faults: faults.map((f) => ({ ...f })),
      denied: [...denied],
      keyPairs: [...new Set([...keyPairs.keys(), options.defaultKeyName])],
      instances: [...instances.values()].map((record) => {
        const v = view(record, t);
        return {
          instanceId: record.instanceId,
          reservationId: record.reservationId,
          state: v.state,
          stateCode: STATE_CODES[v.state],
          instanceType: record.instanceType,
          imageId: record.imageId,
          keyName: record.keyName,
          subnetId: record.subnetId,
          availabilityZone: record.availabilityZone,
          publicIp: v.publicIp,
          privateIp: record.privateIp,
          launchTime: new Date(record.startedAt).toISOString(),
          firstLaunchTime: new Date(record.launchedAt).toISOString(),
          clientToken: record.clientToken,
          volumeId: record.volumeId,
          volumeSizeGb: record.volumeSizeGb,
          restoredFromSnapshot: record.restoredFromSnapshot,
          iamInstanceProfile: record.iamInstanceProfile,
          tags: Object.fromEntries(record.tags.map((tag) => [tag.key, tag.value])),
          passwordReady: v.passwordReadyAt !== null,
          events: record.events.map((e) => ({
            eventId: e.eventId,
            code: e.code,
            notBefore: new Date(e.notBefore).toISOString(),
          })),
          stoppedByEvent: record.stoppedByEvent,
          transition: {
            kind: record.transition.kind,
            at: new Date(record.transition.at).toISOString(),
            until: new Date(record.transition.until).toISOString(),
          },
        };
      }),
      snapshots: [...snapshots.values()].map((record) => {
        const v = snapshotView(record, t);
        return {
          snapshotId: record.snapshotId,
          volumeId: record.volumeId,
          volumeSizeGb: record.volumeSizeGb,
          sourceInstanceId: record.sourceInstanceId,
          state: v.state,
          tags: Object.fromEntries(record.tags.map((tag) => [tag.key, tag.value])),
          startTime: new Date(record.startedAt).toISOString(),
        };
      }),
    };
  }

  function serialize(): PersistedState {
    return {
      version: 1,
      savedAt: new Date().toISOString(),
      clockOffsetMs,
      seq,
      generatedKey,
      keyPairs: Object.fromEntries(keyPairs),
      instances: [...instances.values()],
      tokens: [...tokens.entries()],
      snapshots: [...snapshots.values()],
    };
  }

  function restore(state: PersistedState): void {
    clockOffsetMs = state.clockOffsetMs;
    seq = state.seq;
    if (state.generatedKey && state.generatedKey.name === options.defaultKeyName)
      generatedKey = state.generatedKey;
    // Key pairs given as options win over saved ones of the same name.
    for (const [name, pem] of Object.entries(state.keyPairs))
      if (!(name in options.keyPairs)) keyPairs.set(name, pem);
    instances.clear();
    heldIps.clear();
    for (const record of [...state.instances].sort((a, b) => a.seq - b.seq)) {
      instances.set(record.instanceId, record);
      if (record.publicIp !== null && HELD_KINDS.has(record.transition.kind))
        heldIps.set(record.publicIp, record.instanceId);
    }
    tokens.clear();
    for (const [token, record] of state.tokens) tokens.set(token, record);
    snapshots.clear();
    for (const record of state.snapshots) snapshots.set(record.snapshotId, record);
  }

  return {
    now,
    checkAuthorized,
    checkFaults,
    zoneOf,
    hasKeyPair,
    /** The PEM a key pair was created or imported with (private for the generated one). */
    keyPairPem(name: string): string | null {
      return (
        keyPairs.get(name) ?? (name === options.defaultKeyName ? ensureGeneratedKey().privateKeyPem : null)
      );
    },
    /** Each running instance's public address, for the listeners that stand in for RDP. */
    runningAddresses(): Array<{
      instanceId: string;
      instanceType: string;
      publicIp: string;
      userData: string | null;
    }> {
      const t = now();
      const found: Array<{
        instanceId: string;
        instanceType: string;
        publicIp: string;
        userData: string | null;
      }> = [];
      for (const record of instances.values()) {
        const v = view(record, t);
        if (v.state === 'running' && v.publicIp !== null)
          found.push({
            instanceId: record.instanceId,
            instanceType: record.instanceType,
            publicIp: v.publicIp,
            userData: record.userData,
          });
      }
      return found;
    },
    vcpuLimit: () => vcpuLimit,
    /** The instance whose root volume this is (for a fault aimed at the instance). */
    instancesOfVolume(volumeId: string): string[] {
      return [...instances.values()].filter((r) => r.volumeId === volumeId).map((r) => r.instanceId);
    },
    runInstances,
    describeInstances,
    startInstances,
    stopInstances,
    terminateInstances,
    getPasswordData,
    describeInstanceStatus,
    createTags,
    modifyInstanceType,
    modifyVolume,
    createSnapshot,
    describeSnapshots,
    deleteSnapshot,
    control,
    reset,
    snapshot,
    serialize,
    restore,
    defaultPrivateKeyPem: () => ensureGeneratedKey().privateKeyPem,
    reasonFor(record: InstanceRecord): {
      transitionReason: string | null;
      stateReason: { code: string; message: string } | null;
    } {
      const { kind, at } = record.transition;
      if (kind === 'stop' || kind === 'terminate') {
        return {
          transitionReason: `User initiated (${reasonTime(at)})`,
          stateReason: {
            code: 'Client.UserInitiatedShutdown',
            message: 'Client.UserInitiatedShutdown: User initiated shutdown',
          },
        };
      }
      return { transitionReason: null, stateReason: null };
    },
  };
}

export type Engine = ReturnType<typeof createEngine>;
