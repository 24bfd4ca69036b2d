import {
  eventSeen,
  eventsOver,
  moveOffHardware,
  showEventNotice,
} from '../../core/commands/machineEvents.ts';
import { listOpenMachineEvents, type MachineEvent } from '../../core/db/machineEvents.ts';
import { findVmsByIds, findVmsByInstanceIds } from '../../core/db/vms.ts';
import { isLive } from '../../core/domain/machineStates.ts';
import {
  connectedNow,
  eventAction,
  eventNotice,
  movableWhileRunning,
  type Connected,
} from '../../core/domain/machineEvents.ts';
import { createCloudWatch } from '../../core/providers/cloudwatch.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';
import { accountBackoff, recordStepFailure } from '../lifecycle/failures.ts';

/**
 * `vm-events` (cron, every 5 minutes): events EC2 schedules on the hardware our machines run on
 * (retirement, a scheduled stop, maintenance), read with one paged DescribeInstanceStatus, and
 * acted on before they happen, as `eventAction` (core/domain/machineEvents.ts) decides:
 * - a stopped machine: nothing (its next START runs on other hardware);
 * - a running one: the dashboard says the date, an operator is told; it is moved by a stop and
 *   a start (the lifecycle starts it again) once nobody is connected (the idle rule's session
 *   counts), or before the event's time whoever is;
 * - an event EC2 no longer lists is over (the machine moved away).
 */
export function vmEvents(deps: WorkerDeps) {
  return sweepJob('vm-events', () => sweepScheduledEvents(deps));
}

export type EventsReport = { seen: number; warned: number; moved: number; over: number };

export async function sweepScheduledEvents(deps: WorkerDeps, now: Date = new Date()): Promise<EventsReport> {
  const { db, boss, log } = deps;
  const report: EventsReport = { seen: 0, warned: 0, moved: 0, over: 0 };
  if (await accountBackoff(deps, now)) return report;
  let statuses: Awaited<ReturnType<WorkerDeps['vmEc2']['ec2']['scheduledEvents']>>;
  try {
    statuses = await deps.vmEc2.ec2.scheduledEvents();
  } catch (error) {
    // Counted (backoff, log level, an alert after 5 minutes); the next run asks again.
    await recordStepFailure(deps, { kind: 'account' }, error, now);
    return report;
  }
  const vmsByInstance = new Map(
    (
      await findVmsByInstanceIds(
        db,
        statuses.map((s) => s.instanceId),
      )
    )
      .filter((vm) => isLive(vm.state))
      .map((vm) => [vm.instance_id, vm]),
  );
  const listed = new Set<string>();
  for (const status of statuses) {
    const vm = vmsByInstance.get(status.instanceId);
    if (!vm) continue;
    for (const event of status.events) {
      listed.add(`${vm.id}:${event.eventId}`);
      report.seen += 1;
      await eventSeen(db, vm, status.instanceId, event, now);
    }
  }
  const open = await listOpenMachineEvents(db);
  const over = open.filter((e) => !listed.has(`${e.vm_id}:${e.event_id}`));
  await eventsOver(db, over, now);
  report.over = over.length;

  // The soonest open event of each machine decides.
  const soonest = new Map<string, MachineEvent>();
  for (const event of open)
    if (listed.has(`${event.vm_id}:${event.event_id}`) && !soonest.has(event.vm_id))
      soonest.set(event.vm_id, event);
  // An event over with none left after it: the dashboard stops warning.
  for (const vmId of new Set(over.map((e) => e.vm_id)))
    if (!soonest.has(vmId)) await showEventNotice(db, vmId, null);
  const vms = await findVmsByIds(db, [...soonest.keys()]);
  const connected = await whoIsConnected(
    deps,
    vms.filter((vm) => movableWhileRunning(vm.state) && vm.instance_id).map((vm) => vm.instance_id as string),
    now,
  );
  for (const vm of vms) {
    const event = soonest.get(vm.id);
    if (!event) continue;
    const action = eventAction({
      machineState: vm.state,
      event: { code: event.code, notBefore: event.not_before },
      connected: connected.get(vm.instance_id ?? '') ?? 'unknown',
      now,
    });
    switch (action.kind) {
      case 'nothing':
        continue;
      case 'warn':
        await showEventNotice(db, vm.id, eventNotice({ code: event.code, notBefore: event.not_before }));
        report.warned += 1;
        continue;
      case 'move': {
        if (!(await moveOffHardware(db, boss, vm.id, event.event_id, now))) continue;
        report.moved += 1;
        log.info(
          { vmId: vm.id, code: event.code, notBefore: event.not_before.toISOString(), why: action.reason },
          'vm-events: moving a machine off hardware EC2 will retire',
        );
        continue;
      }
    }
  }
  if (report.seen + report.over > 0) log.info(report, 'vm-events: scheduled events looked at');
  return report;
}

/** Who is connected to each machine now, from CloudWatch's session counts (one call per 100 machines). */
async function whoIsConnected(
  deps: WorkerDeps,
  instanceIds: string[],
  now: Date,
): Promise<Map<string, Connected>> {
  const answer = new Map<string, Connected>();
  if (instanceIds.length === 0) return answer;
  const cloudWatch = deps.cloudWatch ?? createCloudWatch(deps.config.metrics.cloudWatch);
  const periodSeconds = deps.config.metrics.periodSeconds;
  try {
    const series = await cloudWatch.idleSeries({
      instanceIds,
      start: new Date(now.getTime() - 20 * 60_000),
      end: now,
      periodSeconds,
    });
    for (const id of instanceIds) answer.set(id, connectedNow(series.get(id) ?? [], now));
  } catch (error) {
    // Without the signal nobody is moved early: the deadline still moves them in time.
    deps.log.warn({ err: error }, 'vm-events: session metrics unavailable; moving at the deadline only');
  } finally {
    if (!deps.cloudWatch) cloudWatch.destroy();
  }
  return answer;
}
