import { z } from 'zod';

/**
 * What the sandbox stores per instance. States are not stored: they are computed from the
 * last transition's timestamps whenever asked, so thousands of instances cost no timers.
 * The same schema checks the state file on load.
 */

export const STATE_CODES = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
} as const;

export type StateName = keyof typeof STATE_CODES;

const TagSchema = z.object({ key: z.string(), value: z.string() });

/** An event EC2 scheduled on the instance's hardware (DescribeInstanceStatus). */
const EventSchema = z.object({
  eventId: z.string(),
  code: z.string(),
  description: z.string(),
  notBefore: z.number(),
  notAfter: z.number().nullable(),
});

export type ScheduledEventRecord = z.infer<typeof EventSchema>;

const InstanceRecordSchema = z.object({
  seq: z.number().int(),
  instanceId: z.string(),
  reservationId: z.string(),
  imageId: z.string(),
  instanceType: z.string(),
  keyName: z.string().nullable(),
  subnetId: z.string(),
  availabilityZone: z.string(),
  securityGroupIds: z.array(z.string()),
  privateIp: z.string(),
  clientToken: z.string().nullable(),
  launchedAt: z.number(),
  /** EC2's LaunchTime: the last launch or start, not the first. */
  startedAt: z.number(),
  amiLaunchIndex: z.number().int(),
  rootDeviceName: z.string(),
  volumeId: z.string(),
  volumeSizeGb: z.number().int(),
  /** Name or ARN of the instance profile it launched with; older state files have none. */
  iamInstanceProfile: z.string().nullable().default(null),
  tags: z.array(TagSchema),
  /** The last state change asked for: in its transient state from `at`, settled from `until`. */
  transition: z.object({
    kind: z.enum(['launch', 'start', 'stop', 'terminate']),
    at: z.number(),
    until: z.number(),
  }),
  /** Running time of segments already closed by a stop or terminate. */
  runningMs: z.number(),
  /** Running time the first boot needs before Windows has a password (sysprep). */
  passwordAfterMs: z.number(),
  /** Fixed once a closed running segment went past `passwordAfterMs`. */
  passwordReadyAt: z.number().nullable(),
  password: z.string(),
  /** Cached ciphertext, as AWS answers the same blob every time. */
  passwordData: z.string().nullable(),
  /** Held from the start command to the stop command; shown only while running. */
  publicIp: z.string().nullable(),
  /** The snapshot its root volume was created from, when it was. */
  restoredFromSnapshot: z.string().nullable().default(null),
  /** UserData as RunInstances sent it (base64), for the machine to read; older state files have none. */
  userData: z.string().nullable().default(null),
  /** Events scheduled on the hardware it runs on; a start moves it to other hardware (none then). */
  events: z.array(EventSchema).default([]),
  /** The event that stopped it because it still ran on the hardware when the event came. */
  stoppedByEvent: z.string().nullable().default(null),
});

export type InstanceRecord = z.infer<typeof InstanceRecordSchema>;

const TokenRecordSchema = z.object({
  reservationId: z.string(),
  fingerprint: z.string(),
  instanceIds: z.array(z.string()),
});

export type TokenRecord = z.infer<typeof TokenRecordSchema>;

const SnapshotRecordSchema = z.object({
  snapshotId: z.string(),
  volumeId: z.string(),
  volumeSizeGb: z.number().int(),
  /** The instance whose root volume it copies: what a restore brings back. */
  sourceInstanceId: z.string(),
  description: z.string(),
  tags: z.array(TagSchema),
  startedAt: z.number(),
  /** pending until this instant, completed after. */
  completesAt: z.number(),
});

export type SnapshotRecord = z.infer<typeof SnapshotRecordSchema>;

export const PersistedStateSchema = z.object({
  version: z.literal(1),
  savedAt: z.string(),
  clockOffsetMs: z.number(),
  seq: z.number().int(),
  generatedKey: z.object({ name: z.string(), privateKeyPem: z.string() }).nullable(),
  keyPairs: z.record(z.string(), z.string()),
  instances: z.array(InstanceRecordSchema),
  tokens: z.array(z.tuple([z.string(), TokenRecordSchema])),
  /** Older state files have none. */
  snapshots: z.array(SnapshotRecordSchema).default([]),
});

export type PersistedState = z.infer<typeof PersistedStateSchema>;
