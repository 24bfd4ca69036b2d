import {
  markMachineEventMoved,
  markMachineEventsDone,
  recordMachineEvent,
  setEventNotice,
  type MachineEvent,
} from '../db/machineEvents.ts';
import { raiseAlert } from '../db/operatorAlerts.ts';
import type { Db } from '../db/pool.ts';
import { eventAlertWords, HARDWARE_MOVE_REASON } from '../domain/machineEvents.ts';
import type { Boss } from '../queue.ts';
import { requestStop } from './vmActions.ts';

/**
 * What `vm-events` records of EC2's scheduled events once `eventAction` (core/domain/machineEvents.ts)
 * has answered: each event seen (an operator alert the first time), events over, the dashboard's
 * line, and a move off retiring hardware (the customer's STOP with reason `hardware-move`; the
 * lifecycle starts it again).
 */

type SeenEvent = {
  eventId: string;
  code: string;
  description: string | null;
  notBefore: Date;
  notAfter: Date | null;
};

/** An event seen on a machine: recorded, and an operator alerted the first time. */
export async function eventSeen(
  db: Db,
  vm: { id: string; state: string },
  instanceId: string,
  event: SeenEvent,
  now: Date,
): Promise<void> {
  const isNew = await recordMachineEvent(
    db,
    {
      vmId: vm.id,
      eventId: event.eventId,
      instanceId,
      code: event.code,
      description: event.description,
      notBefore: event.notBefore,
      notAfter: event.notAfter,
    },
    now,
  );
  if (!isNew) return;
  await raiseAlert(db, {
    kind: 'scheduled-event',
    dedupeKey: `scheduled-event:${vm.id}:${event.eventId}`,
    message: eventAlertWords({ instanceId, machineState: vm.state, event }),
    vmId: vm.id,
    instanceId,
    details: { code: event.code, notBefore: event.notBefore.toISOString() },
  });
}

/** Events EC2 no longer lists are over (the machine moved away). */
export async function eventsOver(db: Db, over: MachineEvent[], now: Date): Promise<void> {
  await markMachineEventsDone(
    db,
    over.map((e) => ({ vmId: e.vm_id, eventId: e.event_id })),
    now,
  );
}

/** The dashboard's line about the machine's event (null: no event left to warn of). */
export async function showEventNotice(db: Db, vmId: string, notice: string | null): Promise<void> {
  await setEventNotice(db, vmId, notice);
}

/** The move off retiring hardware: the customer's STOP with its reason, the event recorded as acted on. */
export async function moveOffHardware(
  db: Db,
  boss: Boss,
  vmId: string,
  eventId: string,
  now: Date,
): Promise<boolean> {
  if (!(await requestStop(db, boss, vmId, HARDWARE_MOVE_REASON, now))) return false;
  await markMachineEventMoved(db, vmId, eventId, now);
  return true;
}
