/**
 * Instances and snapshots tagged as this deployment's that nothing of ours owns any more (a
 * launch whose row is gone, a duplicate, something left by hand): reported when first seen and
 * deleted once they have stayed unowned past ORPHAN_GRACE_MINUTES, which leaves a lost launch or
 * snapshot answer time to be adopted first. `vm-reconcile` reads the rows and EC2, asks here, and
 * carries the answer out.
 */
import { assertNever } from './assertNever.ts';
import { SMOKE_RUN_MAX_MINUTES } from './imageSmoke.ts';
import type { MachineState } from './machineStates.ts';
import type { PoolState } from './poolInstance.ts';
import { toEpochMs, type Instant } from './time.ts';

/** Whether a machine row in this state still holds the instance it records. */
function machineHoldsInstance(state: MachineState): boolean {
  switch (state) {
    case 'requested':
    case 'provisioning':
    case 'starting':
    case 'running':
    case 'stopping':
    case 'stopped':
    case 'terminating':
      return true;
    case 'terminated':
    case 'error':
      return false;
    default:
      return assertNever(state);
  }
}

/**
 * An instance is ours while: the machine that records it still holds it; the machine its tag
 * names launched it and has not recorded the answer yet (vm-sync adopts it by ClientToken), or is
 * being deleted; the spare that records it is not failed, or the spare its tag names is still
 * launching without an answer; or an operator's image smoke run is open on it.
 */
export function instanceOwned(input: {
  /** The machine row that records this instance id. */
  recordedBy: { state: MachineState } | null;
  /** The machine its `legend:vm` tag names. */
  taggedVm: { state: MachineState; hasInstance: boolean } | null;
  /** The spare its `legend:pool` tag names, and whether that spare records this instance. */
  taggedSpare: { state: PoolState; recordsIt: boolean; hasInstance: boolean } | null;
  smokeRunOpen: boolean;
}): boolean {
  const { recordedBy, taggedVm, taggedSpare } = input;
  if (recordedBy && machineHoldsInstance(recordedBy.state)) return true;
  if (taggedVm && launchUnrecorded(taggedVm)) return true;
  if (taggedSpare && spareOwns(taggedSpare)) return true;
  return input.smokeRunOpen;
}

/** The machine its tag names may yet record it (a launch answer lost), or is deleting what it made. */
function launchUnrecorded(vm: { state: MachineState; hasInstance: boolean }): boolean {
  switch (vm.state) {
    case 'requested':
    case 'provisioning':
      return !vm.hasInstance;
    case 'terminating':
      return true;
    case 'starting':
    case 'running':
    case 'stopping':
    case 'stopped':
    case 'terminated':
    case 'error':
      return false;
    default:
      return assertNever(vm.state);
  }
}

function spareOwns(spare: { state: PoolState; recordsIt: boolean; hasInstance: boolean }): boolean {
  switch (spare.state) {
    case 'launching':
      return spare.recordsIt || !spare.hasInstance;
    case 'stopping':
    case 'ready':
    case 'claimed':
      return spare.recordsIt;
    case 'failed':
      return false;
    default:
      return assertNever(spare.state);
  }
}

/** An operator's image smoke run holds its machine until it ends, or for SMOKE_RUN_MAX_MINUTES at most. */
export function smokeRunOpen(startedAt: Instant, now: Instant): boolean {
  return toEpochMs(now) - toEpochMs(startedAt) < SMOKE_RUN_MAX_MINUTES * 60_000;
}

/** What to do with something unowned since `firstSeenAt`: wait (it may yet be adopted), or delete it. */
export function orphanAction(firstSeenAt: Instant, now: Instant, graceMinutes: number): 'wait' | 'delete' {
  return toEpochMs(now) - toEpochMs(firstSeenAt) >= graceMinutes * 60_000 ? 'delete' : 'wait';
}
