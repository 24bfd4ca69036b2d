import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dashboardBody } from '../../api/presenters/vm.ts';
import { findDashboardState } from '../../core/db/dashboard.ts';
import { listAlerts } from '../../core/db/operatorAlerts.ts';
import { sql } from '../../core/db/pool.ts';
import { findSnapshot, listSnapshotsOfVm } from '../../core/db/snapshots.ts';
import { findStepFailure, vmSubject } from '../../core/db/stepFailures.ts';
import { findVmBySubscription } from '../../core/db/vms.ts';
import { sweepSnapshots } from '../../worker/lifecycle/keptDisks.ts';
import { provisionVm } from '../../worker/jobs/vmProvision.ts';
import { syncVms } from '../../worker/jobs/vmSync.ts';
import { terminateVm } from '../../worker/jobs/vmTerminate.ts';
import { cloudPcHelpers } from '../support/cloudPc.ts';
import { machineHelpers } from '../support/machines.ts';
import { sampleValue } from '../support/prometheus.ts';
import { startTestStack } from '../support/stack.ts';

/**
 * The old machine's TerminateInstances fails for an hour while the customer renews and their
 * new machine is made from the kept copy of the old disk, which the sweep then deletes. The
 * old machine must not look unsaved: one snapshot, one ending mail, never "not renewed", and
 * "deleted" only once EC2 has deleted it. Its failing step backs off, and an operator hears of
 * it after 5 minutes, naming the action and the error.
 */

const stack = await startTestStack();
const cloud = cloudPcHelpers(stack);
const deps = cloud.deps();
afterAll(() => cloud.destroy());
const { runningMachine, expireAndPassGrace } = machineHelpers(stack, cloud, deps);

const MINUTE = 60_000;
const ENDINGS = ['vm-terminated', 'disk-kept', 'disk-restored', 'vm-replaced'];

async function mailsTo(email: string) {
  return (await cloud.jobs('email-send', { to: email })).map(
    (job) => job.data as { kind: string; subject: string; text: string },
  );
}

describe('TerminateInstances failing while a renewal restores the kept disk', () => {
  it('one snapshot, one ending mail that never says "not renewed", and "deleted" only once EC2 confirms it', async () => {
    const { user, plan, vm } = await runningMachine();
    await expireAndPassGrace(vm.id, plan.id);
    const instanceId = vm.instance_id!;
    // EC2 refuses to terminate this instance for an hour.
    stack.sandboxEc2.control({
      faults: [
        {
          action: 'TerminateInstances',
          code: 'ServiceUnavailable',
          status: 503,
          message: 'The service is unavailable. Please try again shortly.',
          instanceId,
          forMs: 60 * MINUTE,
        },
      ],
    });

    // The copy of its disk is taken and completes; then the termination fails.
    await terminateVm(deps, { vmId: vm.id });
    cloud.advance(5 * MINUTE);
    await expect(terminateVm(deps, { vmId: vm.id })).rejects.toThrow(
      /TerminateInstances \[InstanceIds=i-[0-9a-f]+\]: ServiceUnavailable/,
    );
    const [copy] = await listSnapshotsOfVm(cloud.db, vm.id);
    expect(copy).toMatchObject({ state: 'completed' });
    expect(await cloud.vm(vm.id)).toMatchObject({ state: 'terminating' });
    // The failure names the action, the instance and AWS's code, and is paced.
    expect(await findStepFailure(cloud.db, vmSubject(vm.id))).toMatchObject({
      action: 'TerminateInstances',
      code: 'ServiceUnavailable',
      count: 1,
    });
    // The customer is not told it is deleted: the dashboard says it is being deleted, files saved.
    const shown = await findDashboardState(stack.services.pgPool, user.id);
    expect(dashboardBody({ ...shown!, vmConfig: stack.config.vm, now: new Date() }).keptDisk).toMatchObject({
      deleting: true,
      savedOn: copy!.completed_at!.toISOString(),
    });
    expect((await mailsTo(user.email)).filter((m) => ENDINGS.includes(m.kind))).toEqual([]);

    // The customer renews: the new machine is made from the copy, which the sweep deletes once it is ready.
    const renewal = await cloud.activePlan(user.id);
    await expect(provisionVm(deps, { subscriptionId: renewal.id, userId: user.id })).resolves.toBe(
      'launched',
    );
    const renewed = (await findVmBySubscription(cloud.db, renewal.id))!;
    expect(renewed.restore_snapshot_id).toBe(copy!.id);
    cloud.advance(10 * MINUTE);
    await syncVms(deps, { vmId: renewed.id });
    expect((await cloud.vm(renewed.id)).state).toBe('running');
    await sweepSnapshots(deps);
    expect(await findSnapshot(cloud.db, copy!.id)).toMatchObject({ state: 'deleted' });

    // Through the hour the old machine is tried again and again: it never copies its disk again.
    for (let i = 0; i < 5; i += 1) {
      cloud.advance(8 * MINUTE);
      await expect(terminateVm(deps, { vmId: vm.id })).rejects.toThrow(/ServiceUnavailable/);
      expect(await listSnapshotsOfVm(cloud.db, vm.id)).toHaveLength(1);
    }
    const failing = await findStepFailure(cloud.db, vmSubject(vm.id));
    expect(failing).toMatchObject({ action: 'TerminateInstances', count: 6 });
    // Backed off, and shown as such on /metrics by its action and cause.
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    expect(
      sampleValue(text, 'legend_backed_off_steps', { action: 'TerminateInstances', cause: 'other' }),
    ).toBeGreaterThanOrEqual(1);

    // Failing for 5 minutes: an operator is told, naming the action and the error (once).
    await cloud.exec(
      sql.unsafe`UPDATE step_failures SET first_at = first_at - interval '6 minutes' WHERE subject = ${vmSubject(vm.id)}`,
    );
    await expect(terminateVm(deps, { vmId: vm.id })).rejects.toThrow(/ServiceUnavailable/);
    const alert = (await listAlerts(cloud.db)).find(
      (a) => a.dedupe_key === `step-failing:${vmSubject(vm.id)}`,
    );
    expect(alert?.kind).toBe('step-failing');
    expect(alert?.message).toMatch(/TerminateInstances has failed 7 times in a row/);
    expect(alert?.message).toMatch(/ServiceUnavailable/);
    expect(alert?.message).toContain(instanceId);

    // The hour is over: EC2 terminates it; deleted once EC2 says so, and only then mailed.
    cloud.advance(20 * MINUTE);
    await expect(terminateVm(deps, { vmId: vm.id })).resolves.toBe('deleting');
    expect((await mailsTo(user.email)).filter((m) => ENDINGS.includes(m.kind))).toEqual([]);
    cloud.advance(MINUTE);
    await syncVms(deps, { vmId: vm.id });
    expect((await cloud.vm(vm.id)).state).toBe('terminated');
    // Over: the backoff and its alert end with the step that went through.
    expect(await findStepFailure(cloud.db, vmSubject(vm.id))).toBeNull();
    expect(
      (await listAlerts(cloud.db)).some((a) => a.dedupe_key === `step-failing:${vmSubject(vm.id)}`),
    ).toBe(false);

    // Exactly one snapshot ever, exactly one ending mail, and it never says "not renewed".
    expect(
      await cloud.db.oneFirst(
        sql.type(
          z.object({ count: z.number() }),
        )`SELECT count(*)::int AS count FROM vm_snapshots WHERE vm_id = ${vm.id}`,
      ),
    ).toBe(1);
    const mails = await mailsTo(user.email);
    const endings = mails.filter((m) => ENDINGS.includes(m.kind));
    expect(endings.map((m) => m.kind)).toEqual(['disk-restored']);
    expect(mails.some((m) => /not renewed/.test(`${m.subject} ${m.text}`))).toBe(false);
    // Checked again later, it stays as it is: nothing more taken, nothing more sent.
    await syncVms(deps, { vmId: vm.id });
    await syncVms(deps);
    expect(await listSnapshotsOfVm(cloud.db, vm.id)).toHaveLength(1);
    expect((await mailsTo(user.email)).filter((m) => ENDINGS.includes(m.kind))).toHaveLength(1);
  });

  it('the database refuses a second ending mail for one machine, whatever its kind', async () => {
    const { user, vm } = await runningMachine();
    const { notify } = await import('../../core/commands/notices.ts');
    const mail = (kind: string) => () => ({ kind, to: user.email, subject: kind, text: kind });
    await expect(
      notify(
        cloud.db,
        stack.services.boss,
        { kind: 'disk-kept', subjectId: vm.id, userId: user.id, vmId: vm.id },
        mail('disk-kept'),
      ),
    ).resolves.toBe(true);
    await expect(
      notify(
        cloud.db,
        stack.services.boss,
        { kind: 'vm-terminated', subjectId: vm.id, userId: user.id, vmId: vm.id },
        mail('vm-terminated'),
      ),
    ).resolves.toBe(false);
    await expect(
      cloud.exec(
        sql.unsafe`INSERT INTO vm_endings (vm_id, kind, notice_key) VALUES (${vm.id}, 'disk-restored', 'x')`,
      ),
    ).rejects.toThrow(/unique integrity constraint/);
    expect((await mailsTo(user.email)).map((m) => m.kind).filter((k) => ENDINGS.includes(k))).toEqual([
      'disk-kept',
    ]);
  });
});
