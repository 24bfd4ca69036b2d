import type { Subscription } from '../../core/db/subscriptions.ts';
import type { Vm } from '../../core/db/vms.ts';
import type {
  CloudState,
  CloudView,
  Decision,
  DecisionKind,
  Mode,
  SnapshotView,
} from '../../core/domain/machineDecision.ts';
import type { LastTry } from '../../core/domain/lastTry.ts';
import type { WorkerDeps } from '../deps.ts';

/** What one step works on: the machine's freshly read row, its plan, what EC2 last said. */
export type StepContext = {
  deps: WorkerDeps;
  vm: Vm;
  subscription: Subscription | null;
  cloud: CloudView | undefined;
  mode: Mode;
  log: WorkerDeps['log'];
  now: Date;
};

/** What came of a provisioning step, for the job that asked (claimed a spare, launched, gave up). */
export type Outcome = 'claimed-pool' | 'launched' | 'failed' | 'waiting';

/**
 * What a step reports: facts for the next decision, never a choice. `cloud` when the step
 * knows what EC2 now says; `observeAgain` when it must be asked.
 */
export type StepReport = {
  cloud?: CloudView;
  observeAgain?: boolean;
  snapshot?: SnapshotView;
  remoteDesktop?: 'open' | 'closed';
  lastTry?: LastTry;
  outcome?: Outcome;
};

/** The step for one kind of decision. */
export type Step<K extends DecisionKind> = (
  ctx: StepContext,
  decision: Extract<Decision, { kind: K }>,
) => Promise<StepReport>;

/** The instance as EC2 answered a state change (StartInstances, StopInstances). */
export function withState(cloud: CloudView | undefined, state: CloudState): CloudView | undefined {
  return cloud ? { ...cloud, state } : cloud;
}
