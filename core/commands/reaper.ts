import type { Config } from '../config/config.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import { markVmDelayed, setDelayProblem, touchVm, type Vm } from '../db/vms.ts';
import { stallAlerted, type MachineJob } from '../domain/machineTransitions.ts';
import {
  provisionDelayOperatorWords,
  type LateMachineFacts,
  type ProvisionDelayCause,
} from '../domain/provisionDelay.ts';
import { provisionDelayedMail } from '../emails/vms.ts';
import type { Logger } from '../observability/log.ts';
import { sendJob, type Boss } from '../queue.ts';
import { notify } from './notices.ts';

/**
 * What `vm-reaper` writes once the domain has named a stall: a plan's provisioning sent again, a
 * late setup told (the customer once, the dashboard's line, an operator alert), a stalled job sent
 * again with the row touched (so the next run waits again) and, where `stallAlerted` says,
 * an operator told.
 */

type ReaperDeps = { db: Db; boss: Boss; config: Pick<Config, 'vm' | 'publicUrl'>; log: Logger };

/** A paid plan no machine serves: its provisioning sent again (once per plan at a time), with an alert. */
export async function resendProvisioning(
  deps: ReaperDeps,
  paid: { subscription_id: string; user_id: string; live_vm_id: string | null },
): Promise<boolean> {
  const { db, boss, config } = deps;
  const id = await sendJob(
    boss,
    'vm-provision',
    { subscriptionId: paid.subscription_id, userId: paid.user_id },
    { singletonKey: `provision:${paid.subscription_id}`, singletonSeconds: 300 },
  );
  if (!id) return false;
  const what = paid.live_vm_id
    ? "was never moved onto the customer's machine (its job died or dead-lettered first)"
    : 'had no machine (its job died before creating it)';
  await raiseAlert(db, {
    kind: 'provision-delayed',
    dedupeKey: `provision-no-machine:${paid.subscription_id}`,
    message: `A plan paid over ${config.vm.provisionDeadlineMinutes} minutes ago ${what}; provisioning sent again.`,
    vmId: paid.live_vm_id,
  });
  deps.log.warn(
    { subscriptionId: paid.subscription_id, liveVmId: paid.live_vm_id },
    'vm-reaper: paid plan no machine serves; provisioning sent again',
  );
  return true;
}

/** A setup past its deadline, told once: the dashboard's line, the customer's mail, an operator alert. */
export async function tellLateSetup(
  deps: ReaperDeps,
  vm: Vm,
  late: { cause: ProvisionDelayCause; words: string; facts: LateMachineFacts },
  now: Date,
): Promise<boolean> {
  const { db, boss, config } = deps;
  if (!(await markVmDelayed(db, vm.id, now, late.words))) return false;
  await notify(
    db,
    boss,
    { kind: 'provision-delayed', subjectId: vm.id, userId: vm.user_id, vmId: vm.id },
    (person) => provisionDelayedMail(person, config.publicUrl, late.words),
  );
  await raiseAlert(db, {
    kind: 'provision-delayed',
    message: provisionDelayOperatorWords(late.cause, {
      ...late.facts,
      minutes: config.vm.provisionDeadlineMinutes,
      instanceType: vm.instance_type,
      launchAttempts: vm.launch_attempts,
    }),
    vmId: vm.id,
    instanceId: vm.instance_id,
    details: { cause: late.cause, subnetId: vm.subnet_id },
  });
  return true;
}

/** A late setup whose cause changed: the dashboard says the new one. */
export async function updateDelayCause(db: Db, vmId: string, words: string): Promise<void> {
  await setDelayProblem(db, vmId, words);
}

/** A stalled job sent again with its row touched (the next run waits again), and an operator told where it is due. */
export async function resendStalled(deps: ReaperDeps, vm: Vm, job: MachineJob, now: Date): Promise<void> {
  const { db, boss } = deps;
  await db.transaction(async (trx) => {
    if (job === 'vm-provision')
      await sendJob(boss, job, { subscriptionId: vm.subscription_id, userId: vm.user_id }, { db: trx });
    else await sendJob(boss, job, { vmId: vm.id }, { db: trx });
    await touchVm(trx, vm.id);
  });
  deps.log.warn(
    { vmId: vm.id, state: vm.state, since: vm.updated_at },
    'vm-reaper: transition stalled; job sent again',
  );
  if (!stallAlerted(job)) return;
  const minutes = Math.round((now.getTime() - vm.state_changed_at.getTime()) / 60_000);
  await raiseAlert(db, {
    kind: 'unexpected-state',
    dedupeKey: `stalled:${vm.id}:${vm.state}`,
    message:
      `Machine ${vm.instance_id ?? vm.id} has been ${vm.state} for ${minutes} minutes; its job was sent again.` +
      (vm.last_error ? ` Last error: ${vm.last_error}` : ''),
    vmId: vm.id,
    instanceId: vm.instance_id,
  });
}
