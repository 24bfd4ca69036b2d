import {
  ensureMachineName,
  findMachineName,
  findPreviousName,
  nameFacts,
  recordNameAlerted,
  recordNameFailed,
  recordNamePointed,
  releaseMachineName,
  takeOverName,
  type MachineName,
} from '../core/db/machineNames.ts';
import { raiseAlert, resolveAlertsByKeys } from '../core/db/operatorAlerts.ts';
import { assertNever } from '../core/domain/assertNever.ts';
import type { Vm } from '../core/db/vms.ts';
import {
  claimName,
  decideName,
  MACHINE_NAME_TTL_SECONDS,
  machineHostName,
  nameMustGo,
  type NamedMachine,
  type NameDecision,
  type RecordView,
} from '../core/domain/machineName.ts';
import { createRoute53, describeRoute53Error, type Route53 } from '../core/providers/route53.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * Carries out the machine name's decisions (core/domain/machineName.ts) through Route 53: reads
 * the record, points it, deletes it, tells an operator. It never chooses: it gathers, asks
 * `decideName`, does the one step, and asks again. A Route 53 failure is recorded on the name
 * (since when, why) and answered as `failed`: the lifecycle then shows the machine with its
 * address, and the `machine-name` job retries with backoff (the minute sweep picks up the rest).
 */

/**
 * done: as far as it goes now; failed: Route 53 failed (recorded, retried); waiting: the
 * customer's name is still their previous machine's (`claimName`), and passes here once that
 * one is gone: the minute sweep looks again.
 */
export type NameOutcome = 'done' | 'failed' | 'waiting';

/** Steps one call may take: observe, then upsert or delete, then a look again: a handful. */
const MAX_STEPS = 6;

let shared: Route53 | undefined;
/** The worker's Route 53 client (one per process), or the one a test handed in. */
export function route53Of(deps: WorkerDeps): Route53 | null {
  const names = deps.config.machineNames;
  if (!names) return null;
  return deps.route53 ?? (shared ??= createRoute53(names.route53));
}

export const nameAlertKey = (kind: 'failing' | 'drift', vmId: string) => `machine-name-${kind}:${vmId}`;

/**
 * Takes a machine's name as far as it goes now. `machine` is the machine as its name must follow
 * it: the lifecycle gives the address it is about to show; otherwise the row says.
 */
export async function advanceName(
  deps: WorkerDeps,
  vm: Pick<Vm, 'id' | 'user_id' | 'state' | 'public_ip' | 'instance_id'>,
  machine: NamedMachine = { state: vm.state, publicIp: vm.public_ip },
): Promise<NameOutcome> {
  const names = deps.config.machineNames;
  const route53 = route53Of(deps);
  if (!names || !route53) return 'done';
  const log = deps.log.child({ vmId: vm.id });
  // A name is given when there is an address to point it at; a gone machine without one has none.
  const claimed: MachineName | 'waiting' | null = nameMustGo(machine.state)
    ? await findMachineName(deps.db, vm.id)
    : machine.publicIp
      ? await claimMachineName(deps, vm)
      : await findMachineName(deps.db, vm.id);
  if (claimed === 'waiting') return 'waiting';
  if (!claimed) return 'done';
  let row: MachineName = claimed;
  const host = machineHostName(row.label, names.suffix);
  let record: RecordView | undefined;

  for (let i = 0; i < MAX_STEPS; i++) {
    const decision: NameDecision = decideName({
      zone: true,
      machine,
      name: nameFacts(row),
      record,
      now: new Date(),
    });
    try {
      switch (decision.kind) {
        case 'nothing':
          return 'done';
        case 'observe':
          record = await route53.readA(names.zoneId, host);
          break;
        case 'confirm':
          await recordNamePointed(deps.db, row, decision.ip, new Date());
          await resolveAlertsByKeys(deps.db, [nameAlertKey('failing', vm.id)]);
          return 'done';
        case 'upsert':
          await route53.upsertA(names.zoneId, host, decision.ip, MACHINE_NAME_TTL_SECONDS);
          await recordNamePointed(deps.db, row, decision.ip, new Date());
          await resolveAlertsByKeys(deps.db, [nameAlertKey('failing', vm.id)]);
          if (decision.drift) {
            await raiseAlert(deps.db, {
              kind: 'machine-name-drift',
              dedupeKey: nameAlertKey('drift', vm.id),
              message: `${host} pointed at ${decision.drift}, an address we never wrote (was zone ${names.zoneId} edited by hand?): corrected to ${decision.ip}.`,
              vmId: vm.id,
              instanceId: vm.instance_id,
              details: { host, found: decision.drift, wrote: decision.ip },
            });
          }
          log.info({ host, ip: decision.ip, drift: decision.drift }, 'machine name: pointed');
          return 'done';
        case 'delete':
          await route53.deleteA(names.zoneId, host, decision.record);
          log.info({ host }, 'machine name: record deleted');
          // Looked at again: a record changed meanwhile is deleted as it now is.
          record = undefined;
          break;
        case 'forget':
          await releaseMachineName(deps.db, row, new Date());
          await resolveAlertsByKeys(deps.db, [nameAlertKey('failing', vm.id)]);
          return 'done';
        case 'alert':
          if (await recordNameAlerted(deps.db, row, new Date())) {
            await raiseAlert(deps.db, {
              kind: 'machine-name-failing',
              dedupeKey: nameAlertKey('failing', vm.id),
              message: `${host} has not been updated for 10 minutes: ${row.last_error ?? 'Route 53 keeps failing'}. ${decision.meanwhile} Check Route 53 and the worker role's route53 permissions on zone ${names.zoneId}.`,
              vmId: vm.id,
              instanceId: vm.instance_id,
              details: { host, failingSince: row.failing_since?.toISOString() ?? null },
            });
            log.error({ host, error: row.last_error }, 'machine name: failing for 10 minutes');
          }
          break;
        default:
          return assertNever(decision);
      }
    } catch (error) {
      const detail = describeRoute53Error(error);
      await recordNameFailed(deps.db, row, `${decision.kind}: ${detail}`, new Date());
      log.warn({ host, step: decision.kind, error: detail }, 'machine name: Route 53 call failed; retried');
      return 'failed';
    }
    const again = await findMachineName(deps.db, vm.id);
    // Taken over by the customer's next machine meanwhile: nothing of it is this machine's to do.
    if (!again) return 'done';
    row = again;
  }
  throw new Error(`machine name ${row.label}: more than ${MAX_STEPS} steps`);
}

/** Tries at a take-over that another worker's step got in before (it moved, or was given meanwhile). */
const CLAIM_TRIES = 3;

/**
 * The machine's name, claimed now if it has none, as `claimName` decides: a fresh label, the
 * customer's previous name taken over from their gone machine, or `waiting` while that machine
 * is not gone yet.
 */
async function claimMachineName(
  deps: WorkerDeps,
  vm: Pick<Vm, 'id' | 'user_id'>,
): Promise<MachineName | 'waiting'> {
  const log = deps.log.child({ vmId: vm.id });
  for (let i = 0; i < CLAIM_TRIES; i++) {
    const existing = await findMachineName(deps.db, vm.id);
    if (existing) return existing;
    const previous = await findPreviousName(deps.db, vm);
    const claim = claimName(
      { userId: vm.user_id },
      previous && {
        label: previous.label,
        userId: previous.user_id,
        released: previous.released,
        holderState: previous.holder_state,
      },
    );
    switch (claim.kind) {
      case 'fresh':
        return ensureMachineName(deps.db, vm);
      case 'wait':
        log.info(
          { label: claim.label, reason: claim.reason },
          'machine name: waits for the previous machine',
        );
        return 'waiting';
      case 'take-over': {
        const taken = previous && (await takeOverName(deps.db, previous, vm, new Date()));
        if (taken) {
          // Whatever was failing was the old machine's: over with it.
          await resolveAlertsByKeys(deps.db, [nameAlertKey('failing', previous.vm_id)]);
          log.info({ label: taken.label, from: previous.vm_id }, 'machine name: taken over');
          return taken;
        }
        break;
      }
      default:
        return assertNever(claim);
    }
  }
  // Moved under us each time: the minute sweep claims it again.
  log.warn('machine name: the previous name kept moving while it was claimed; the sweep tries again');
  return 'waiting';
}
