/**
 * Every edge a machine's row may take, written once: each named transition, the states it may
 * leave and the state it enters. The SQL that moves rows (core/db/vms.ts) builds its conditional
 * `UPDATE … WHERE state IN (…)` from this table, and the executor names the transition it carries
 * out; `tests/integration/lifecycle-rules.test.ts` proves the SQL moves exactly these edges.
 */
import { assertNever } from './assertNever.ts';
import type { Decision } from './machineDecision.ts';
import type { MachineState } from './machineStates.ts';

export const TRANSITIONS = {
  /** A launch is sent (again): the machine is being made from now on. */
  'begin-launch': { from: ['requested', 'provisioning'], to: 'provisioning' },
  /** A warm-pool spare becomes the machine: it needs only our tags and a start. */
  'claim-spare': { from: ['requested'], to: 'provisioning' },
  /** EC2 says running with an address (and, when new, the password is stored): hours count. */
  'mark-running': { from: ['provisioning', 'starting'], to: 'running' },
  /** STOP, hours used up, plan ended, a plan change: hours stop counting now. */
  'request-stop': { from: ['running'], to: 'stopping' },
  /** EC2 says the stop is done. */
  stopped: { from: ['stopping'], to: 'stopped' },
  /** Shut down from inside Windows: not counted past the last count. */
  'shut-down': { from: ['running'], to: 'stopped' },
  /** START, a renewal, the end of a plan change or of a move off retiring hardware. */
  'request-start': { from: ['stopped'], to: 'starting' },
  /** The plan ran out between the click and the start. */
  'refuse-start': { from: ['starting'], to: 'stopped' },
  /** No capacity within the start budget. */
  'give-up-start': { from: ['starting'], to: 'stopped' },
  /** Plan ended past its grace, account deleted, a lost machine replaced. */
  'request-terminate': {
    from: ['requested', 'provisioning', 'starting', 'running', 'stopping', 'stopped', 'error'],
    to: 'terminating',
  },
  /** EC2 confirms the instance is gone. */
  'mark-terminated': { from: ['terminating'], to: 'terminated' },
  /** No instance within the launch budget. */
  'give-up-launch': { from: ['requested', 'provisioning'], to: 'error' },
  /** The instance is gone while we still want it. */
  lose: { from: ['provisioning', 'starting', 'running', 'stopping', 'stopped'], to: 'error' },
} as const satisfies Record<string, { from: readonly MachineState[]; to: MachineState }>;

export type Transition = keyof typeof TRANSITIONS;

/** Whether a row in `state` may take `transition`. */
export function mayTake(transition: Transition, state: MachineState): boolean {
  return (TRANSITIONS[transition].from as readonly MachineState[]).includes(state);
}

/** The edge a decision moves the row along, when it moves it (the others write no state). */
export function transitionOf(decision: Decision): Transition | null {
  switch (decision.kind) {
    case 'launch':
      return 'begin-launch';
    case 'claim-pool':
      return 'claim-spare';
    case 'mark-ready':
    case 'mark-running':
      return 'mark-running';
    case 'request-stop':
      return 'request-stop';
    case 'mark-stopped':
      return decision.stoppedBy === 'shut-down' ? 'shut-down' : 'stopped';
    case 'request-start':
      return 'request-start';
    case 'refuse-start':
      return 'refuse-start';
    case 'give-up-start':
      return 'give-up-start';
    case 'mark-terminated':
      return 'mark-terminated';
    case 'give-up-launch':
      return 'give-up-launch';
    case 'lost':
      return 'lose';
    case 'nothing':
    case 'wait':
    case 'observe':
    case 'observe-snapshot':
    case 'probe-remote-desktop':
    case 'adopt':
    case 'start':
    case 'start-claimed':
    case 'stop':
    case 'terminate':
    case 'tag':
    case 'capture-password':
    case 'alert-unexpected':
    case 'resize':
    case 'revert-resize':
    case 'snapshot':
    case 'hand-over-disk':
    case 'keep-disk':
    case 'snapshot-failed':
    case 'check-later':
    case 'note-remote-desktop-wait':
    case 'retry-later':
    case 'accrue':
    case 'repoint-restore':
    case 'point-name':
    case 'sink-name':
    case 'wait-launch-budget':
      return null;
    default:
      return assertNever(decision);
  }
}

/** The jobs that carry a machine forward, each sent with the transition that wants it. */
export type MachineJob = 'vm-provision' | 'vm-start' | 'vm-stop' | 'vm-terminate';

/**
 * The job that carries a machine forward from its state: the one its transition sent (a paid
 * plan's provisioning until its instance is recorded; a start, a stop, a deletion). Null where no
 * job is under way (the minute sweep converges the rest). Each job works only on a machine this
 * names it for, and the reaper sends it again when the row has not moved for VM_STUCK_SECONDS.
 */
export function jobOf(machine: { state: MachineState; hasInstance: boolean }): MachineJob | null {
  switch (machine.state) {
    case 'requested':
      return 'vm-provision';
    case 'provisioning':
      // With an instance recorded, the follow-up checks and the minute sweep take it to ready.
      return machine.hasInstance ? null : 'vm-provision';
    case 'starting':
      return 'vm-start';
    case 'stopping':
      return 'vm-stop';
    case 'terminating':
      return 'vm-terminate';
    case 'running':
    case 'stopped':
    case 'terminated':
    case 'error':
      return null;
    default:
      return assertNever(machine.state);
  }
}

/**
 * A start, stop or deletion stalled this long is told to an operator as well as sent again: the
 * customer waits on a spinner, or a machine that does not stop bills. A setup has its own alert
 * (provision-delayed).
 */
export function stallAlerted(job: MachineJob): boolean {
  switch (job) {
    case 'vm-start':
    case 'vm-stop':
    case 'vm-terminate':
      return true;
    case 'vm-provision':
      return false;
    default:
      return assertNever(job);
  }
}
