import type { Decision, DecisionKind } from '../../core/domain/machineDecision.ts';
import * as ec2 from './ec2Steps.ts';
import * as launching from './launch.ts';
import { cloudView, observeInstances, probeRemoteDesktop, readSnapshot } from './inputs.ts';
import { pointName, sinkName } from './name.ts';
import { claimPool } from './pool.ts';
import * as rows from './rowSteps.ts';
import * as snapshots from './snapshots.ts';
import type { Step, StepContext, StepReport } from './step.ts';

/**
 * Which function carries out each kind of step: one entry per decision kind (the type requires
 * every kind), each talking to one provider. `nothing`, `wait` and `retry-later` are carried
 * out by the executor itself (it ends the run, or fails the job's attempt).
 */

const none = async (): Promise<StepReport> => ({});

/** Looks: what EC2, the kept copy and Remote Desktop say. They write nothing. */
const observe: Step<'observe'> = async ({ deps, vm }) => {
  if (!vm.instance_id) return { cloud: null };
  return { cloud: cloudView((await observeInstances(deps, [vm.instance_id])).get(vm.instance_id)) };
};
const observeSnapshot: Step<'observe-snapshot'> = async ({ deps, vm }) => ({
  snapshot: await readSnapshot(deps, vm),
});
const probe: Step<'probe-remote-desktop'> = async ({ deps, cloud }) => ({
  remoteDesktop: await probeRemoteDesktop(deps, cloud?.publicIp ?? null),
});

const STEPS: { [K in DecisionKind]: Step<K> } = {
  nothing: none,
  wait: none,
  'retry-later': none,
  observe,
  'observe-snapshot': observeSnapshot,
  'probe-remote-desktop': probe,
  'claim-pool': claimPool,
  launch: launching.launch,
  adopt: launching.adopt,
  'wait-launch-budget': launching.waitLaunchBudget,
  tag: ec2.tag,
  start: ec2.start,
  'start-claimed': ec2.startClaimed,
  stop: ec2.stop,
  'alert-unexpected': ec2.alertUnexpected,
  terminate: ec2.terminate,
  resize: ec2.resize,
  'revert-resize': ec2.revertResize,
  'capture-password': ec2.capture,
  snapshot: snapshots.snapshot,
  'hand-over-disk': snapshots.handOverDisk,
  'keep-disk': snapshots.keepDisk,
  'snapshot-failed': snapshots.snapshotFailed,
  'mark-ready': rows.markReady,
  'mark-running': rows.markRunning,
  'mark-stopped': rows.markStopped,
  'mark-terminated': rows.markTerminated,
  accrue: rows.accrue,
  'request-stop': rows.stopRequest,
  'request-start': rows.startRequest,
  'refuse-start': rows.refuseStart,
  'give-up-start': rows.giveUpStart,
  'give-up-launch': rows.giveUpLaunch,
  lost: rows.lost,
  'repoint-restore': rows.repointRestore,
  'check-later': rows.checkLater,
  'note-remote-desktop-wait': rows.noteRemoteDesktopWait,
  'point-name': pointName,
  'sink-name': sinkName,
};

export function runStep(ctx: StepContext, decision: Decision): Promise<StepReport> {
  const step = STEPS[decision.kind] as Step<DecisionKind>;
  return step(ctx, decision);
}
