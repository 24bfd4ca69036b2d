import type { QuerySqlToken } from 'slonik';
import { z } from 'zod';
import { LIVE_STATES, MACHINE_STATES, type MachineState } from '../domain/machineStates.ts';
import { jobOf, TRANSITIONS, type Transition } from '../domain/machineTransitions.ts';
import { sql, type Db, type FragmentSqlToken } from './pool.ts';

/**
 * Cloud PCs. Every change of state is a conditional UPDATE naming the states it may
 * leave: a replayed job, a second worker or a racing request finds nothing to change and gets
 * null back. Timestamps record each transition. Usage seconds are counted up to
 * `usage_counted_at` and only while `running`; boot time and failed starts are never counted.
 */

// Literals, not parameters: the set never changes, and the planner can then match the partial
// indexes written with the same list.
const stateList = (states: readonly MachineState[]) =>
  sql.join(
    states.map((state) => sql.literalValue(state)),
    sql.fragment`, `,
  );
const LIVE_STATE_LIST = stateList(LIVE_STATES);

/**
 * A transition as core/domain/machineTransitions.ts writes it: the states it may leave (the
 * condition of its UPDATE) and the state it enters. Nothing here spells an edge of its own.
 */
const leaves = (transition: Transition) =>
  sql.fragment`state IN (${stateList(TRANSITIONS[transition].from)})`;
const enters = (transition: Transition) => sql.literalValue(TRANSITIONS[transition].to);

export const Vm = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  subscription_id: z.uuid(),
  subscription_attached_at: z.date(),
  plan_id: z.string(),
  instance_type: z.string(),
  storage_gb: z.number().int(),
  state: z.enum(MACHINE_STATES),
  state_changed_at: z.date(),
  state_reason: z.string().nullable(),
  problem: z.string().nullable(),
  source: z.enum(['launch', 'pool']).nullable(),
  instance_id: z.string().nullable(),
  image_id: z.string().nullable(),
  subnet_id: z.string().nullable(),
  availability_zone: z.string().nullable(),
  public_ip: z.string().nullable(),
  password_encrypted: z.string().nullable(),
  password_ready_at: z.date().nullable(),
  launch_attempts: z.number().int(),
  start_attempts: z.number().int(),
  usage_seconds: z.number(),
  usage_counted_at: z.date().nullable(),
  requested_at: z.date(),
  provision_started_at: z.date().nullable(),
  launched_at: z.date().nullable(),
  ready_at: z.date().nullable(),
  start_requested_at: z.date().nullable(),
  started_at: z.date().nullable(),
  stop_requested_at: z.date().nullable(),
  stopped_at: z.date().nullable(),
  terminate_requested_at: z.date().nullable(),
  terminated_at: z.date().nullable(),
  error_at: z.date().nullable(),
  delayed_at: z.date().nullable(),
  synced_at: z.date().nullable(),
  last_error: z.string().nullable(),
  last_error_at: z.date().nullable(),
  remote_desktop_waiting_since: z.date().nullable(),
  resize_to_type: z.string().nullable(),
  resize_to_gb: z.number().int().nullable(),
  resized_from_type: z.string().nullable(),
  keep_disk: z.boolean(),
  restore_snapshot_id: z.uuid().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Vm = z.infer<typeof Vm>;

const COLUMNS = sql.fragment`id, user_id, subscription_id, subscription_attached_at, plan_id, instance_type,
  storage_gb, state, state_changed_at, state_reason, problem, source, instance_id, image_id, subnet_id,
  availability_zone, public_ip, password_encrypted, password_ready_at, launch_attempts, start_attempts,
  usage_seconds, usage_counted_at, requested_at, provision_started_at, launched_at, ready_at,
  start_requested_at, started_at, stop_requested_at, stopped_at, terminate_requested_at, terminated_at,
  error_at, delayed_at, synced_at, last_error, last_error_at, remote_desktop_waiting_since, resize_to_type,
  resize_to_gb, resized_from_type, keep_disk, restore_snapshot_id, created_at, updated_at`;

const ts = (at: Date) => at.toISOString();

/** Usage counted up to `at` for a running VM, capped at the plan: the accrual expression. */
function accrued(at: Date, capSeconds: number) {
  return accruedUpTo(at, sql.fragment`${capSeconds}::float8`);
}

/** The same expression with the cap given as SQL (a column of a batch). */
function accruedUpTo(at: Date, cap: ReturnType<typeof sql.fragment>) {
  return sql.fragment`least(${cap},
    usage_seconds + greatest(0, extract(epoch FROM (${ts(at)}::timestamptz - usage_counted_at))))`;
}

/** Ends the open run segment at `at` (never before it started). */
async function closeSegment(db: Db, vmId: string, at: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE vm_run_segments SET ended_at = greatest(started_at, ${ts(at)}::timestamptz)
    WHERE vm_id = ${vmId} AND ended_at IS NULL`);
}

async function openSegment(db: Db, vm: Vm, at: Date): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO vm_run_segments (vm_id, subscription_id, started_at)
    VALUES (${vm.id}, ${vm.subscription_id}, ${ts(at)})
    ON CONFLICT (vm_id) WHERE ended_at IS NULL DO NOTHING`);
}

/**
 * A transition that ends usage counting: the conditional UPDATE and, when it matched, the open
 * run segment closed where usage stopped counting.
 */
async function transitionClosingSegment(
  db: Db,
  vmId: string,
  now: Date,
  update: QuerySqlToken<typeof Vm>,
): Promise<Vm | null> {
  return db.transaction(async (trx) => {
    const vm = await trx.maybeOne(update);
    if (vm) await closeSegment(trx, vmId, vm.usage_counted_at ?? now);
    return vm;
  });
}

export async function findVm(db: Db, id: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`SELECT ${COLUMNS} FROM vms WHERE id = ${id}`);
}

export async function findVmBySubscription(db: Db, subscriptionId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    SELECT ${COLUMNS} FROM vms WHERE subscription_id = ${subscriptionId}
    ORDER BY created_at DESC LIMIT 1`);
}

/** The customer's machine while it is one (at most one by the unique index). */
export async function findLiveVmByUser(db: Db, userId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    SELECT ${COLUMNS} FROM vms
    WHERE user_id = ${userId} AND state IN (${LIVE_STATE_LIST})`);
}

/** What the dashboard shows: the live machine, else the latest one (failed or deleted). */
export async function findDashboardVm(db: Db, userId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`SELECT ${COLUMNS} ${dashboardVmOf(userId)}`);
}

/**
 * FROM … LIMIT 1 of the VM the dashboard shows; also a part of the dashboard's one query, which
 * passes the user's id as a column of its own (`sql.fragment\`u.id\``).
 */
export function dashboardVmOf(userId: string | FragmentSqlToken) {
  return sql.fragment`FROM vms WHERE user_id = ${userId}
    ORDER BY (state IN (${LIVE_STATE_LIST})) DESC, created_at DESC
    LIMIT 1`;
}

/** Every VM of a user that may still hold an instance: those a termination may take (account deletion). */
export async function listUndeletedVmsOfUser(db: Db, userId: string): Promise<Vm[]> {
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms WHERE user_id = ${userId} AND ${leaves('request-terminate')}`)),
  ];
}

/**
 * The customer's new machine waiting to be made from a copy of this (old) machine's disk, if
 * any: it points at one of the old machine's snapshots (a failed one's retake included).
 */
export async function findVmRestoringFromVm(db: Db, oldVmId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    SELECT ${COLUMNS} FROM vms
    WHERE state = 'requested'
      AND restore_snapshot_id IN (SELECT id FROM vm_snapshots WHERE vm_id = ${oldVmId})
    ORDER BY created_at DESC LIMIT 1`);
}

/** Points a machine not launched yet at the copy it is to be made from (a failed copy's retake). */
export async function setRestoreSnapshot(db: Db, vmId: string, snapshotRowId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET restore_snapshot_id = ${snapshotRowId}, updated_at = now()
    WHERE id = ${vmId} AND state = 'requested'
    RETURNING ${COLUMNS}`);
}

export type NewVm = {
  userId: string;
  subscriptionId: string;
  planId: string;
  instanceType: string;
  storageGb: number;
  /** Launched from this kept snapshot (the customer's files back). */
  restoreSnapshotId?: string | null;
  /** Hours already used of the plan by a machine this one replaces (never given back, never counted twice). */
  usageSeconds?: number;
};

export async function insertVm(db: Db, vm: NewVm, now: Date): Promise<Vm> {
  return db.one(sql.type(Vm)`
    INSERT INTO vms (user_id, subscription_id, subscription_attached_at, plan_id, instance_type, storage_gb,
                     state_changed_at, requested_at, restore_snapshot_id, usage_seconds)
    VALUES (${vm.userId}, ${vm.subscriptionId}, ${ts(now)}, ${vm.planId}, ${vm.instanceType}, ${vm.storageGb},
            ${ts(now)}, ${ts(now)}, ${vm.restoreSnapshotId ?? null}, ${vm.usageSeconds ?? 0})
    RETURNING ${COLUMNS}`);
}

/**
 * A renewal into another kind of plan: the kept machine now serves that plan, and the change
 * still to make to its instance (type, a bigger disk) is recorded for the lifecycle to apply.
 */
export async function recordPlanChange(
  db: Db,
  vmId: string,
  change: { planId: string; instanceType: string | null; storageGb: number | null },
): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET plan_id = ${change.planId},
      resize_to_type = CASE WHEN ${change.instanceType}::text IS NULL OR ${change.instanceType}::text = instance_type
                            THEN NULL ELSE ${change.instanceType}::text END,
      resize_to_gb = CASE WHEN ${change.storageGb}::int > storage_gb THEN ${change.storageGb}::int ELSE NULL END,
      updated_at = now()
    WHERE id = ${vmId} AND state IN (${LIVE_STATE_LIST})
    RETURNING ${COLUMNS}`);
}

/** The change is made on the instance: the row says what it is now, and what it was. */
export async function recordResized(
  db: Db,
  vmId: string,
  applied: { instanceType: string; storageGb: number; fromType: string | null },
): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET instance_type = ${applied.instanceType}, storage_gb = greatest(storage_gb, ${applied.storageGb}),
      resized_from_type = ${applied.fromType}, resize_to_type = NULL, resize_to_gb = NULL, updated_at = now()
    WHERE id = ${vmId} AND state IN ('stopped', 'starting')
    RETURNING ${COLUMNS}`);
}

/**
 * No machine of the new type could be started: the instance has its old type back, and the
 * change is pending again (a later START tries it again). The grown disk stays grown.
 */
export async function recordResizeReverted(db: Db, vmId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET resize_to_type = instance_type, instance_type = resized_from_type,
      resized_from_type = NULL, updated_at = now()
    WHERE id = ${vmId} AND state = 'starting' AND resized_from_type IS NOT NULL
    RETURNING ${COLUMNS}`);
}

/**
 * A renewal: the same machine and disk now serve the new subscription, whose hours start at
 * zero. A VM still running is first brought to an accounting boundary (usage restarts now).
 */
export async function attachSubscription(
  db: Db,
  vmId: string,
  subscriptionId: string,
  now: Date,
): Promise<Vm | null> {
  return db.transaction(async (trx) => {
    const vm = await trx.maybeOne(sql.type(Vm)`
      UPDATE vms SET subscription_id = ${subscriptionId}, subscription_attached_at = ${ts(now)},
        usage_seconds = 0,
        usage_counted_at = CASE WHEN state = 'running' THEN ${ts(now)}::timestamptz ELSE usage_counted_at END,
        state_changed_at = CASE WHEN state = 'running' THEN ${ts(now)}::timestamptz ELSE state_changed_at END,
        problem = NULL, updated_at = now()
      WHERE id = ${vmId} AND state IN (${LIVE_STATE_LIST})
        AND subscription_id <> ${subscriptionId}
      RETURNING ${COLUMNS}`);
    if (vm?.state === 'running') {
      await closeSegment(trx, vmId, now);
      await openSegment(trx, vm, now);
    }
    return vm;
  });
}

/**
 * requested|provisioning → provisioning, counting one more launch attempt in `subnetId`. Null
 * when the VM already has an instance or left provisioning: nothing to launch.
 */
export async function beginLaunch(
  db: Db,
  vmId: string,
  launch: { subnetId: string; imageId: string },
  now: Date,
): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET
      state = ${enters('begin-launch')},
      state_changed_at = CASE WHEN state = 'requested' THEN ${ts(now)}::timestamptz ELSE state_changed_at END,
      provision_started_at = coalesce(provision_started_at, ${ts(now)}),
      source = 'launch', launch_attempts = launch_attempts + 1,
      subnet_id = ${launch.subnetId}, image_id = ${launch.imageId}, updated_at = now()
    WHERE id = ${vmId} AND ${leaves('begin-launch')} AND instance_id IS NULL
    RETURNING ${COLUMNS}`);
}

/** The launched (or found) instance becomes the VM's. Idempotent for the same instance. */
export async function recordLaunch(
  db: Db,
  vmId: string,
  instance: { instanceId: string; subnetId: string | null; availabilityZone: string | null },
  now: Date,
): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET instance_id = ${instance.instanceId},
      subnet_id = coalesce(${instance.subnetId}, subnet_id),
      availability_zone = coalesce(${instance.availabilityZone}, availability_zone),
      launched_at = coalesce(launched_at, ${ts(now)}), problem = NULL, updated_at = now()
    WHERE id = ${vmId} AND state = 'provisioning'
      AND (instance_id IS NULL OR instance_id = ${instance.instanceId})
    RETURNING ${COLUMNS}`);
}

/** A claimed warm-pool instance becomes the VM's (requested → provisioning; it still needs a start). */
export async function assignPoolInstance(
  db: Db,
  vmId: string,
  pool: {
    instanceId: string;
    imageId: string;
    subnetId: string | null;
    availabilityZone: string | null;
    passwordEncrypted: string;
  },
  now: Date,
): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET state = ${enters('claim-spare')}, state_changed_at = ${ts(now)}, source = 'pool',
      instance_id = ${pool.instanceId}, image_id = ${pool.imageId}, subnet_id = ${pool.subnetId},
      availability_zone = ${pool.availabilityZone}, password_encrypted = ${pool.passwordEncrypted},
      password_ready_at = ${ts(now)}, provision_started_at = ${ts(now)}, launched_at = ${ts(now)},
      start_requested_at = ${ts(now)}, updated_at = now()
    WHERE id = ${vmId} AND ${leaves('claim-spare')} AND instance_id IS NULL
    RETURNING ${COLUMNS}`);
}

export async function storeVmPassword(
  db: Db,
  vmId: string,
  passwordEncrypted: string,
  now: Date,
): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET password_encrypted = ${passwordEncrypted}, password_ready_at = ${ts(now)},
      problem = NULL, updated_at = now()
    WHERE id = ${vmId} AND password_encrypted IS NULL AND instance_id IS NOT NULL
    RETURNING ${COLUMNS}`);
}

/**
 * provisioning|starting → running once EC2 says running with a public IP (and, when
 * provisioning, the password is stored). Usage starts counting now: boot time is free.
 */
export async function markVmRunning(db: Db, vmId: string, publicIp: string, now: Date): Promise<Vm | null> {
  return db.transaction(async (trx) => {
    const vm = await trx.maybeOne(sql.type(Vm)`
      UPDATE vms SET state = ${enters('mark-running')}, state_changed_at = ${ts(now)}, state_reason = NULL,
        public_ip = ${publicIp}, usage_counted_at = ${ts(now)}, started_at = ${ts(now)},
        ready_at = coalesce(ready_at, ${ts(now)}), start_attempts = 0, problem = NULL,
        remote_desktop_waiting_since = NULL, resized_from_type = NULL, updated_at = now()
      WHERE id = ${vmId} AND password_encrypted IS NOT NULL AND ${leaves('mark-running')}
      RETURNING ${COLUMNS}`);
    if (vm) await openSegment(trx, vm, now);
    return vm;
  });
}

/** Adds the running time since the last count (never past the plan's seconds). Null unless running. */
export async function accrueUsage(db: Db, vmId: string, now: Date, capSeconds: number): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET usage_seconds = ${accrued(now, capSeconds)},
      usage_counted_at = greatest(usage_counted_at, ${ts(now)}), updated_at = now()
    WHERE id = ${vmId} AND state = 'running'
    RETURNING ${COLUMNS}`);
}

/**
 * running → stopping: usage is counted up to now (capped) and stops counting. `reason` is
 * 'user', 'out-of-hours' or 'plan-expired'.
 */
export async function requestVmStop(
  db: Db,
  vmId: string,
  reason: string,
  now: Date,
  capSeconds: number,
): Promise<Vm | null> {
  const update = sql.type(Vm)`
      UPDATE vms SET state = ${enters('request-stop')}, state_changed_at = ${ts(now)}, state_reason = ${reason},
        usage_seconds = ${accrued(now, capSeconds)},
        usage_counted_at = greatest(usage_counted_at, ${ts(now)}),
        stop_requested_at = ${ts(now)}, updated_at = now()
      WHERE id = ${vmId} AND ${leaves('request-stop')}
    RETURNING ${COLUMNS}`;
  return transitionClosingSegment(db, vmId, now, update);
}

/** stopped → starting (a START from the customer or a renewal). */
export async function requestVmStart(db: Db, vmId: string, reason: string, now: Date): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET state = ${enters('request-start')}, state_changed_at = ${ts(now)}, state_reason = ${reason},
      start_requested_at = ${ts(now)}, start_attempts = 0, problem = NULL, updated_at = now()
    WHERE id = ${vmId} AND ${leaves('request-start')}
    RETURNING ${COLUMNS}`);
}

/** One more StartInstances attempt is about to be made (the count decides when to give up). */
export async function countStartAttempt(db: Db, vmId: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET start_attempts = start_attempts + 1, updated_at = now()
    WHERE id = ${vmId} AND state = 'starting'
    RETURNING ${COLUMNS}`);
}

/**
 * → stopped: EC2 says stopped (`stopped`, or `shut-down` from inside Windows, where usage is not
 * counted past the last count: time we cannot vouch for is not charged), or a start refused or
 * given up.
 */
export async function markVmStopped(
  db: Db,
  vmId: string,
  transition: 'stopped' | 'shut-down' | 'refuse-start' | 'give-up-start',
  reason: string | null,
  now: Date,
  problem: string | null = null,
): Promise<Vm | null> {
  const update = sql.type(Vm)`
      UPDATE vms SET state = ${enters(transition)}, state_changed_at = ${ts(now)},
        state_reason = coalesce(${reason}, state_reason), public_ip = NULL, stopped_at = ${ts(now)},
        problem = ${problem}, updated_at = now()
      WHERE id = ${vmId} AND ${leaves(transition)}
    RETURNING ${COLUMNS}`;
  return transitionClosingSegment(db, vmId, now, update);
}

/** → terminating (plan lapsed past grace, account deleted, replaced). */
export async function requestVmTerminate(
  db: Db,
  vmId: string,
  reason: string,
  now: Date,
  keepDisk = false,
): Promise<Vm | null> {
  const update = sql.type(Vm)`
      UPDATE vms SET state = ${enters('request-terminate')}, state_changed_at = ${ts(now)}, state_reason = ${reason},
        terminate_requested_at = ${ts(now)}, keep_disk = ${keepDisk}, updated_at = now()
      WHERE id = ${vmId} AND ${leaves('request-terminate')}
    RETURNING ${COLUMNS}`;
  return transitionClosingSegment(db, vmId, now, update);
}

export async function markVmTerminated(db: Db, vmId: string, now: Date): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET state = ${enters('mark-terminated')}, state_changed_at = ${ts(now)}, terminated_at = ${ts(now)},
      public_ip = NULL, updated_at = now()
    WHERE id = ${vmId} AND ${leaves('mark-terminated')}
    RETURNING ${COLUMNS}`);
}

/** Provisioning gave up, or the instance disappeared: the row ends in `error` with a reason. */
export async function markVmError(
  db: Db,
  vmId: string,
  transition: 'give-up-launch' | 'lose',
  problem: string,
  now: Date,
): Promise<Vm | null> {
  const update = sql.type(Vm)`
      UPDATE vms SET state = ${enters(transition)}, state_changed_at = ${ts(now)}, problem = ${problem},
        error_at = ${ts(now)}, public_ip = NULL, updated_at = now()
      WHERE id = ${vmId} AND ${leaves(transition)}
    RETURNING ${COLUMNS}`;
  return transitionClosingSegment(db, vmId, now, update);
}

/** The customer has been told provisioning is late, and why (`problem`, the dashboard's line): once per VM. */
export async function markVmDelayed(db: Db, vmId: string, now: Date, problem: string): Promise<Vm | null> {
  return db.maybeOne(sql.type(Vm)`
    UPDATE vms SET delayed_at = ${ts(now)}, problem = ${problem}, updated_at = now()
    WHERE id = ${vmId} AND delayed_at IS NULL AND state IN ('requested', 'provisioning')
    RETURNING ${COLUMNS}`);
}

/** Late machines still being made: the reaper keeps the dashboard's "why" current. */
export async function listDelayedProvisioning(db: Db, limit = 200): Promise<Vm[]> {
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms
      WHERE state IN ('requested', 'provisioning') AND delayed_at IS NOT NULL
      ORDER BY delayed_at LIMIT ${limit}`)),
  ];
}

/** A late machine's cause changed: the dashboard says the new one (no write when it is the same). */
export async function setDelayProblem(db: Db, vmId: string, problem: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.uuid() }))`
    UPDATE vms SET problem = ${problem}
    WHERE id = ${vmId} AND delayed_at IS NOT NULL AND state IN ('requested', 'provisioning')
      AND problem IS DISTINCT FROM ${problem}
    RETURNING id`);
  return row !== null;
}

export async function markVmsSynced(db: Db, vmIds: string[], now: Date): Promise<void> {
  if (vmIds.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE vms SET synced_at = ${ts(now)} WHERE id = ANY(${sql.array(vmIds, 'uuid')})`);
}

/**
 * One page of the sync sweep: machines that may hold an instance, in id order after `afterId`
 * (keyset paging: rows changing state meanwhile neither repeat nor shift a page). Served by the
 * `vms_sweep` partial index, so terminated history is never read.
 */
export async function listVmsForSyncPage(db: Db, afterId: string | null, limit: number): Promise<Vm[]> {
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms
      WHERE state NOT IN ('terminated', 'error', 'requested')
        ${afterId === null ? sql.fragment`` : sql.fragment`AND id > ${afterId}`}
      ORDER BY id
      LIMIT ${limit}`)),
  ];
}

/**
 * `accrueUsage` for many running machines in one statement, each capped at its own plan's
 * seconds: the sweep's one write per page for the machines whose only change is time counted.
 * A machine that left `running` meanwhile is not touched. Answers the ids it counted.
 */
export async function accrueUsageMany(
  db: Db,
  items: Array<{ vmId: string; capSeconds: number }>,
  now: Date,
): Promise<string[]> {
  if (items.length === 0) return [];
  const rows = await db.any(sql.type(z.object({ id: z.string() }))`
    UPDATE vms SET usage_seconds = ${accruedUpTo(now, sql.fragment`b.cap_seconds`)},
      usage_counted_at = greatest(usage_counted_at, ${ts(now)}), updated_at = now(), synced_at = ${ts(now)}
    FROM unnest(${sql.array(
      items.map((i) => i.vmId),
      'uuid',
    )}::uuid[], ${sql.array(
      items.map((i) => i.capSeconds),
      'float8',
    )}::float8[]) AS b(vm_id, cap_seconds)
    WHERE vms.id = b.vm_id AND vms.state = 'running'
    RETURNING vms.id`);
  return rows.map((r) => r.id);
}

/**
 * Rows a job carries forward (`jobOf`, core/domain/machineTransitions.ts): in a state whose job
 * runs with or without an instance, or one whose job runs only until its instance is recorded.
 */
const STALLABLE = (() => {
  const always = MACHINE_STATES.filter((state) => jobOf({ state, hasInstance: true }) !== null);
  const untilLaunched = MACHINE_STATES.filter(
    (state) => jobOf({ state, hasInstance: false }) !== null && jobOf({ state, hasInstance: true }) === null,
  );
  return sql.fragment`state IN (${stateList(always)}) OR (state IN (${stateList(untilLaunched)}) AND instance_id IS NULL)`;
})();

/**
 * VMs whose transition has made no progress for `stuckSeconds`: the reaper picks them up again.
 * Measured from the last row change, so a job still retrying (each attempt touches the row)
 * is left alone.
 */
export async function listStuckVms(db: Db, now: Date, stuckSeconds: number, limit = 200): Promise<Vm[]> {
  const before = ts(new Date(now.getTime() - stuckSeconds * 1000));
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms
      WHERE updated_at < ${before} AND (${STALLABLE})
      ORDER BY updated_at
      LIMIT ${limit}`)),
  ];
}

/**
 * Provisioning running past the promised time whose customer has not been told yet:
 * `provisioningLate` (core/domain/planMachine.ts) in SQL, asked again of each row it lists. A
 * machine waits for the copy of the old disk it is made from (not late), and its clock starts
 * when the copy completed.
 */
export async function listLateProvisioning(
  db: Db,
  now: Date,
  deadlineMinutes: number,
  limit = 200,
): Promise<Vm[]> {
  const before = ts(new Date(now.getTime() - deadlineMinutes * 60_000));
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms v
      WHERE v.state IN ('requested', 'provisioning') AND v.delayed_at IS NULL AND v.requested_at < ${before}
        AND NOT EXISTS (
          SELECT 1 FROM vm_snapshots s
          WHERE s.id = v.restore_snapshot_id AND (s.state = 'creating' OR s.completed_at >= ${before}))
      ORDER BY v.requested_at
      LIMIT ${limit}`)),
  ];
}

/** Running (or about to run) VMs whose plan is no longer in force: they must stop. */
export async function listVmsOutOfPlan(db: Db, now: Date, limit = 500): Promise<Vm[]> {
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms v
      WHERE v.state = 'running'
        AND NOT EXISTS (
          SELECT 1 FROM subscriptions s
          WHERE s.id = v.subscription_id AND s.status = 'active' AND s.expires_at > ${ts(now)})
      ORDER BY v.state_changed_at
      LIMIT ${limit}`)),
  ];
}

/**
 * Machines whose plan ended (expired or cancelled) more than `graceDays` ago, with no plan of
 * the same customer in force since: they are terminated. A renewal re-points the VM at the new
 * subscription, which takes it out of this list.
 */
export async function listVmsPastGrace(db: Db, now: Date, graceDays: number, limit = 200): Promise<Vm[]> {
  const endedBefore = ts(new Date(now.getTime() - graceDays * 86_400_000));
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms WHERE id IN (
      SELECT v.id FROM vms v
      JOIN subscriptions s ON s.id = v.subscription_id
      WHERE v.state IN (${LIVE_STATE_LIST})
        AND (s.status IN ('expired', 'cancelled') OR s.expires_at <= ${ts(now)})
        AND least(coalesce(s.cancelled_at, s.expires_at), s.expires_at) < ${endedBefore}
        AND NOT EXISTS (
          SELECT 1 FROM subscriptions o
          WHERE o.user_id = v.user_id AND o.status = 'active' AND o.expires_at > ${ts(now)})
      ORDER BY s.expires_at
      LIMIT ${limit})`)),
  ];
}

/**
 * Machines of an instance type that are, or are about to be, someone's: live VMs plus active
 * plans whose VM does not exist yet (activated, provisioning job not run). The capacity model.
 */
export async function countMachinesInUse(db: Db, instanceType: string, now: Date): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT (
      (SELECT count(*) FROM vms WHERE instance_type = ${instanceType}
         AND state IN (${LIVE_STATE_LIST}))
      + (SELECT count(*) FROM subscriptions s
         WHERE s.instance_type = ${instanceType} AND s.status = 'active' AND s.expires_at > ${ts(now)}
           AND NOT EXISTS (SELECT 1 FROM vms v WHERE v.user_id = s.user_id
             AND v.state IN (${LIVE_STATE_LIST})))
    )::int AS count`);
}

/** Instance ids we own through a VM row, for the orphan reconciler. */
export async function findVmsByInstanceIds(db: Db, instanceIds: string[]): Promise<Vm[]> {
  if (instanceIds.length === 0) return [];
  return [
    ...(await db.any(sql.type(Vm)`
      SELECT ${COLUMNS} FROM vms WHERE instance_id = ANY(${sql.array(instanceIds, 'text')})`)),
  ];
}

export async function findVmsByIds(db: Db, ids: string[]): Promise<Vm[]> {
  if (ids.length === 0) return [];
  return [
    ...(await db.any(sql.type(Vm)`SELECT ${COLUMNS} FROM vms WHERE id = ANY(${sql.array(ids, 'uuid')})`)),
  ];
}

/** Marks a row as looked at (the reaper's re-enqueue), so the next reaper run waits again. */
export async function touchVm(db: Db, vmId: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE vms SET updated_at = now() WHERE id = ${vmId}`);
}

/** A step on this machine failed (for operators; `problem` is what the customer reads). */
export async function recordVmError(db: Db, vmId: string, message: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE vms SET last_error = ${message.slice(0, 1000)}, last_error_at = ${ts(now)} WHERE id = ${vmId}`);
}

const PaidWithoutMachine = z.object({
  subscription_id: z.uuid(),
  user_id: z.uuid(),
  live_vm_id: z.uuid().nullable(),
  // The plan's facts `planAwaitsMachine` reads.
  status: z.string(),
  expires_at: z.date().nullable(),
  hours: z.number().int(),
  cancelled_at: z.date().nullable(),
  purchased_at: z.date().nullable(),
});
type PaidWithoutMachine = z.infer<typeof PaidWithoutMachine>;

/**
 * Plans in force, bought more than `minutes` ago, that no machine serves: the job that creates
 * their machine, or moves the customer's live machine onto them (a renewal, a plan change), died
 * or dead-lettered first. Their provisioning is sent again. `planAwaitsMachine`
 * (core/domain/planMachine.ts) is this rule, asked again of each row it lists; a test proves they
 * agree.
 */
export async function listPaidWithoutMachine(
  db: Db,
  now: Date,
  minutes: number,
  limit = 200,
): Promise<PaidWithoutMachine[]> {
  const before = ts(new Date(now.getTime() - minutes * 60_000));
  return [
    ...(await db.any(sql.type(PaidWithoutMachine)`
      SELECT s.id AS subscription_id, s.user_id, s.status, s.expires_at, s.hours, s.cancelled_at, s.purchased_at,
        (SELECT v.id FROM vms v WHERE v.user_id = s.user_id AND v.state IN (${LIVE_STATE_LIST}) LIMIT 1)
          AS live_vm_id
      FROM subscriptions s
      WHERE s.status = 'active' AND s.expires_at > ${ts(now)} AND s.purchased_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM vms v WHERE v.subscription_id = s.id)
      ORDER BY s.purchased_at
      LIMIT ${limit}`)),
  ];
}

/** Machines of a plan that were replaced after losing their instance (a plan's replacements are bounded). */
export async function countReplacedMachines(db: Db, subscriptionId: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM vms WHERE subscription_id = ${subscriptionId} AND state_reason = 'replaced'`);
}

/** Running with its password, but Remote Desktop does not answer yet: the dashboard says so. */
export async function markWaitingForRemoteDesktop(db: Db, vmId: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE vms SET remote_desktop_waiting_since = coalesce(remote_desktop_waiting_since, ${ts(now)})
    WHERE id = ${vmId} AND state = 'provisioning'`);
}
