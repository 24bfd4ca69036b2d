import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { listSnapshotsDue } from '../../core/db/snapshots.ts';
import { findSubscription, type Subscription } from '../../core/db/subscriptions.ts';
import {
  assignPoolInstance,
  beginLaunch,
  findVm,
  insertVm,
  listLateProvisioning,
  listStuckVms,
  listVmsOutOfPlan,
  listVmsPastGrace,
  markVmError,
  markVmRunning,
  markVmStopped,
  markVmTerminated,
  requestVmStart,
  requestVmStop,
  requestVmTerminate,
} from '../../core/db/vms.ts';
import { copyDue, SNAPSHOT_STATES, type SnapshotState } from '../../core/domain/keptDisk.ts';
import { jobOf, mayTake, TRANSITIONS, type Transition } from '../../core/domain/machineTransitions.ts';
import { LIVE_STATES, MACHINE_STATES, type MachineState } from '../../core/domain/machineStates.ts';
import { provisioningLate } from '../../core/domain/planMachine.ts';
import { pastGrace, planInForce, type PlanFacts } from '../../core/domain/planTime.ts';
import { createUser } from '../support/accounts.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The SQL filters that select machines by a lifecycle rule must agree with the rule itself
 * (core/domain/lifecycle.ts). One table of plans × machine states is written to the database;
 * each SQL list is compared with the predicate applied to the same rows.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
afterAll(() => cloud.destroy());

const NOW = new Date();
const DAY = 86_400_000;
const GRACE_DAYS = 7;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

type PlanCase = {
  name: string;
  status: 'active' | 'expired' | 'cancelled';
  expiresAt: Date;
  cancelledAt: Date | null;
};
const PLAN_CASES: PlanCase[] = [
  { name: 'active, a month left', status: 'active', expiresAt: at(30 * DAY), cancelledAt: null },
  { name: 'active, a second left', status: 'active', expiresAt: at(1000), cancelledAt: null },
  {
    name: 'active, past expiry (sweep not run yet)',
    status: 'active',
    expiresAt: at(-1000),
    cancelledAt: null,
  },
  {
    name: 'active, past expiry and past grace',
    status: 'active',
    expiresAt: at(-(GRACE_DAYS + 1) * DAY),
    cancelledAt: null,
  },
  { name: 'expired yesterday', status: 'expired', expiresAt: at(-DAY), cancelledAt: null },
  {
    name: 'expired just inside grace',
    status: 'expired',
    expiresAt: at(-GRACE_DAYS * DAY + 60_000),
    cancelledAt: null,
  },
  {
    name: 'expired just past grace',
    status: 'expired',
    expiresAt: at(-GRACE_DAYS * DAY - 60_000),
    cancelledAt: null,
  },
  {
    name: 'cancelled today, expiry ahead',
    status: 'cancelled',
    expiresAt: at(20 * DAY),
    cancelledAt: at(-1000),
  },
  {
    name: 'cancelled long ago, expiry ahead',
    status: 'cancelled',
    expiresAt: at(20 * DAY),
    cancelledAt: at(-(GRACE_DAYS + 2) * DAY),
  },
  {
    name: 'cancelled long ago, expired long ago',
    status: 'cancelled',
    expiresAt: at(-(GRACE_DAYS + 3) * DAY),
    cancelledAt: at(-(GRACE_DAYS + 5) * DAY),
  },
];
const VM_STATES: readonly MachineState[] = MACHINE_STATES;

type Row = { vmId: string; state: MachineState; subscription: Subscription };
const rows: Row[] = [];

function facts(s: Subscription): PlanFacts {
  return { status: s.status, expiresAt: s.expires_at, hours: s.hours, cancelledAt: s.cancelled_at };
}

/** A LEGEND machine of the customer's plan, requested at `requestedAt`, put in `state`. */
async function machineIn(state: MachineState, userId: string, subscriptionId: string, requestedAt: Date) {
  const vm = await insertVm(
    cloud.db,
    { userId, subscriptionId, planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115 },
    requestedAt,
  );
  // Past `requested` a machine has an instance (the table's check says so).
  await cloud.db.query(sql.unsafe`
    UPDATE vms SET state = ${state},
      instance_id = ${state === 'requested' ? null : `i-${vm.id.slice(0, 8)}`}, usage_counted_at = now()
    WHERE id = ${vm.id}`);
  return vm;
}

// One customer per case, so "another plan of the same customer" never interferes.
for (const plan of PLAN_CASES) {
  for (const state of VM_STATES) {
    const user = await createUser(stack);
    const active = await cloud.activePlan(user.id);
    await cloud.db.query(sql.unsafe`
      UPDATE subscriptions SET status = ${plan.status}, expires_at = ${plan.expiresAt.toISOString()},
        cancelled_at = ${plan.cancelledAt?.toISOString() ?? null}
      WHERE id = ${active.id}`);
    const vm = await machineIn(state, user.id, active.id, at(-40 * DAY));
    const subscription = await findSubscription(cloud.db, active.id);
    rows.push({ vmId: vm.id, state, subscription: subscription! });
  }
}

const ids = (list: Array<{ id: string }>) =>
  new Set(list.map((v) => v.id).filter((id) => rows.some((r) => r.vmId === id)));

describe('lifecycle rules in SQL agree with core/domain/lifecycle.ts', () => {
  it(`covers ${PLAN_CASES.length} plans × ${VM_STATES.length} machine states`, () => {
    expect(rows).toHaveLength(PLAN_CASES.length * VM_STATES.length);
  });

  it('running machines out of plan = running and not planInForce', async () => {
    const fromSql = ids(await listVmsOutOfPlan(cloud.db, NOW, 10_000));
    const fromRule = new Set(
      rows
        .filter((r) => r.state === 'running' && !planInForce(facts(r.subscription), NOW))
        .map((r) => r.vmId),
    );
    expect(fromSql).toEqual(fromRule);
    expect(fromRule.size).toBeGreaterThan(3);
  });

  it('machines past grace = live and pastGrace (no other plan in force)', async () => {
    const fromSql = ids(await listVmsPastGrace(cloud.db, NOW, GRACE_DAYS, 10_000));
    const fromRule = new Set(
      rows
        .filter(
          (r) =>
            (LIVE_STATES as readonly string[]).includes(r.state) &&
            pastGrace(facts(r.subscription), NOW, GRACE_DAYS),
        )
        .map((r) => r.vmId),
    );
    expect(fromSql).toEqual(fromRule);
    expect(fromRule.size).toBeGreaterThan(3);
  });
});

// Machines being made, some from a copy of an old disk: when each is late.
const DEADLINE_MINUTES = 20;
const MINUTE = 60_000;
type RestoreCase = { name: string; state: string; completedAt: Date | null } | null;
const RESTORE_CASES: RestoreCase[] = [
  null,
  { name: 'copy being made', state: 'creating', completedAt: null },
  { name: 'copy completed long ago', state: 'completed', completedAt: at(-2 * DEADLINE_MINUTES * MINUTE) },
  { name: 'copy completed just now', state: 'completed', completedAt: at(-MINUTE) },
  { name: 'copy handed over long ago', state: 'restored', completedAt: at(-2 * DEADLINE_MINUTES * MINUTE) },
  { name: 'copy handed over just now', state: 'restored', completedAt: at(-MINUTE) },
  { name: 'copy failed', state: 'failed', completedAt: null },
];
const REQUESTED_AGO = [2 * MINUTE, 3 * DEADLINE_MINUTES * MINUTE];
type MadeRow = {
  vmId: string;
  state: MachineState;
  requestedAt: Date;
  restore: RestoreCase;
};
const madeRows: MadeRow[] = [];
for (const state of VM_STATES) {
  // Every state once without a copy; the states a machine is made in, with every kind of copy.
  const restores = state === 'requested' || state === 'provisioning' ? RESTORE_CASES : [null];
  for (const restore of restores) {
    for (const ago of REQUESTED_AGO) {
      const user = await createUser(stack);
      const active = await cloud.activePlan(user.id);
      const requestedAt = at(-ago);
      const vm = await machineIn(state, user.id, active.id, requestedAt);
      if (restore) {
        const snapshotId = await cloud.db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
          INSERT INTO vm_snapshots (user_id, vm_id, state, volume_gb, instance_type, created_at,
            completed_at, keep_until)
          VALUES (${user.id}, ${vm.id}, ${restore.state}, 115, 'g4dn.xlarge', ${at(-3 * DEADLINE_MINUTES * MINUTE).toISOString()},
            ${restore.completedAt?.toISOString() ?? null}, ${at(30 * DAY).toISOString()})
          RETURNING id`);
        await cloud.db.query(
          sql.unsafe`UPDATE vms SET restore_snapshot_id = ${snapshotId} WHERE id = ${vm.id}`,
        );
      }
      madeRows.push({ vmId: vm.id, state, requestedAt, restore });
    }
  }
}

describe('late provisioning in SQL agrees with provisioningLate', () => {
  it('lists the machines the rule calls late (none told yet), and no other', async () => {
    const fromSql = new Set(
      (await listLateProvisioning(cloud.db, NOW, DEADLINE_MINUTES, 10_000))
        .map((v) => v.id)
        .filter((id) => madeRows.some((r) => r.vmId === id)),
    );
    const fromRule = new Set(
      madeRows
        .filter((r) =>
          provisioningLate({ state: r.state, requestedAt: r.requestedAt }, r.restore, NOW, DEADLINE_MINUTES),
        )
        .map((r) => r.vmId),
    );
    expect(fromSql).toEqual(fromRule);
    // Both sides of the rule are exercised: late machines, and machines waiting for their copy.
    const late = (state: string, copy: string | undefined) =>
      madeRows.filter((r) => r.state === state && r.restore?.name === copy && fromRule.has(r.vmId)).length;
    expect(late('requested', 'copy being made')).toBe(0);
    expect(late('requested', 'copy completed just now')).toBe(0);
    expect(late('requested', 'copy completed long ago')).toBe(1);
    expect(late('provisioning', 'copy failed')).toBe(1);
    expect(fromRule.size).toBeGreaterThan(5);
  });
});

// Every edge a row takes: the SQL that moves it, from every state, against the transitions table.
const EDGE_NOW = new Date();
const MOVES: { [T in Transition]: (vmId: string) => Promise<{ state: string } | null> } = {
  'begin-launch': (id) => beginLaunch(cloud.db, id, { subnetId: 'subnet-a', imageId: 'ami-1' }, EDGE_NOW),
  'claim-spare': (id) =>
    assignPoolInstance(
      cloud.db,
      id,
      {
        instanceId: `i-spare${id.slice(0, 8)}`,
        imageId: 'ami-1',
        subnetId: null,
        availabilityZone: null,
        passwordEncrypted: 'sealed',
      },
      EDGE_NOW,
    ),
  'mark-running': (id) => markVmRunning(cloud.db, id, '203.0.113.10', EDGE_NOW),
  'request-stop': (id) => requestVmStop(cloud.db, id, 'user', EDGE_NOW, 3600),
  stopped: (id) => markVmStopped(cloud.db, id, 'stopped', null, EDGE_NOW),
  'shut-down': (id) => markVmStopped(cloud.db, id, 'shut-down', 'shut-down', EDGE_NOW),
  'request-start': (id) => requestVmStart(cloud.db, id, 'user', EDGE_NOW),
  'refuse-start': (id) => markVmStopped(cloud.db, id, 'refuse-start', 'refused', EDGE_NOW),
  'give-up-start': (id) => markVmStopped(cloud.db, id, 'give-up-start', 'start-failed', EDGE_NOW),
  'request-terminate': (id) => requestVmTerminate(cloud.db, id, 'user', EDGE_NOW),
  'mark-terminated': (id) => markVmTerminated(cloud.db, id, EDGE_NOW),
  'give-up-launch': (id) => markVmError(cloud.db, id, 'give-up-launch', 'failed', EDGE_NOW),
  lose: (id) => markVmError(cloud.db, id, 'lose', 'lost', EDGE_NOW),
};
const edgeRows: Array<{ transition: Transition; state: MachineState; vmId: string }> = [];
for (const transition of Object.keys(TRANSITIONS) as Transition[]) {
  for (const state of VM_STATES) {
    const user = await createUser(stack);
    const active = await cloud.activePlan(user.id);
    const vm = await machineIn(state, user.id, active.id, at(-DAY));
    // A launch or a claim needs a machine without an instance, where a state may have none.
    const noInstance =
      (transition === 'begin-launch' || transition === 'claim-spare') &&
      !['running', 'stopping', 'stopped', 'starting'].includes(state);
    await cloud.db.query(sql.unsafe`
      UPDATE vms SET password_encrypted = 'sealed',
        instance_id = CASE WHEN ${noInstance} THEN NULL ELSE instance_id END
      WHERE id = ${vm.id}`);
    edgeRows.push({ transition, state, vmId: vm.id });
  }
}

describe('the SQL moves a row exactly along the edges of core/domain/machineTransitions.ts', () => {
  it('from every state: moved to the edge’s state when the table allows it, untouched otherwise', async () => {
    const wrong: string[] = [];
    for (const { transition, state, vmId } of edgeRows) {
      const moved = await MOVES[transition](vmId);
      const after = (await findVm(cloud.db, vmId))!.state;
      const allowed = mayTake(transition, state);
      const expected = allowed ? TRANSITIONS[transition].to : state;
      if (Boolean(moved) !== allowed || after !== expected)
        wrong.push(`${transition} from ${state}: ${moved ? 'moved' : 'kept'} to ${after}`);
    }
    expect(wrong).toEqual([]);
    expect(edgeRows.filter((r) => mayTake(r.transition, r.state)).length).toBeGreaterThan(20);
  });
});

// Rows the reaper sends again: every state, with and without an instance where a state may lack one.
const stallRows: Array<{ vmId: string; state: MachineState; hasInstance: boolean }> = [];
for (const state of VM_STATES) {
  for (const hasInstance of [true, false]) {
    if (!hasInstance && ['running', 'stopping', 'stopped', 'starting'].includes(state)) continue;
    const user = await createUser(stack);
    const active = await cloud.activePlan(user.id);
    const vm = await machineIn(state, user.id, active.id, at(-DAY));
    await cloud.db.query(sql.unsafe`
      UPDATE vms SET updated_at = now() - interval '1 hour',
        instance_id = CASE WHEN ${hasInstance} THEN coalesce(instance_id, ${`i-${vm.id.slice(0, 8)}`}) ELSE NULL END
      WHERE id = ${vm.id}`);
    stallRows.push({ vmId: vm.id, state, hasInstance });
  }
}

describe('stalled rows in SQL agree with jobOf', () => {
  it('lists the rows a job carries forward that have not moved, and no other', async () => {
    const fromSql = new Set(
      (await listStuckVms(cloud.db, new Date(), 600, 10_000))
        .map((v) => v.id)
        .filter((id) => stallRows.some((r) => r.vmId === id)),
    );
    const fromRule = new Set(stallRows.filter((r) => jobOf(r) !== null).map((r) => r.vmId));
    expect(fromSql).toEqual(fromRule);
    expect(fromRule.size).toBe(7);
  });
});

// Kept copies in every state, window over or not, their machines deleted or not, ready or not.
type CopyRow = {
  id: string;
  state: SnapshotState;
  keepUntil: Date;
  restoredMachineReady: boolean;
  ownMachineTerminated: boolean;
};
const copyRows: CopyRow[] = [];
for (const state of SNAPSHOT_STATES)
  for (const windowOver of [true, false])
    for (const restoredMachineReady of [true, false])
      for (const ownMachineTerminated of [true, false]) {
        const user = await createUser(stack);
        const active = await cloud.activePlan(user.id);
        // The one a copy was restored into first: a customer has one live machine at a time.
        const restored = await machineIn('terminated', user.id, active.id, at(-DAY));
        const own = await machineIn(
          ownMachineTerminated ? 'terminated' : 'stopped',
          user.id,
          active.id,
          at(-DAY),
        );
        await cloud.db.query(
          sql.unsafe`UPDATE vms SET ready_at = ${restoredMachineReady ? at(-3600_000).toISOString() : null} WHERE id = ${restored.id}`,
        );
        const keepUntil = at(windowOver ? -60_000 : DAY);
        const id = await cloud.db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
          INSERT INTO vm_snapshots (user_id, vm_id, state, volume_gb, instance_type, keep_until, restored_vm_id,
            completed_at, deleted_at, created_at)
          VALUES (${user.id}, ${own.id}, ${state}, 115, 'g4dn.xlarge', ${keepUntil.toISOString()},
            ${state === 'restored' ? restored.id : null},
            ${state === 'creating' || state === 'failed' ? null : at(-DAY).toISOString()},
            ${state === 'deleted' ? at(-60_000).toISOString() : null}, ${at(-2 * DAY).toISOString()})
          RETURNING id`);
        copyRows.push({ id, state, keepUntil, restoredMachineReady, ownMachineTerminated });
      }

describe('kept copies due for deletion in SQL agree with copyDue', () => {
  it('lists the copies the rule deletes, and no other', async () => {
    const now = new Date();
    const fromSql = new Set(
      (await listSnapshotsDue(cloud.db, now, 10_000))
        .map((s) => s.id)
        .filter((id) => copyRows.some((r) => r.id === id)),
    );
    const fromRule = new Set(copyRows.filter((r) => copyDue(r, now) !== null).map((r) => r.id));
    expect(fromSql).toEqual(fromRule);
    expect(fromRule.size).toBe(4 + 4 + 2);
  });
});
