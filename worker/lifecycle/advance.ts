import { withTryLock } from '../../core/db/locks.ts';
import { findSubscription, type Subscription } from '../../core/db/subscriptions.ts';
import { findVm, type Vm } from '../../core/db/vms.ts';
import { assertNever } from '../../core/domain/assertNever.ts';
import { nextStep } from '../../core/domain/lifecycle.ts';
import {
  stepRule,
  type CloudView,
  type Decision,
  type LifecycleInput,
  type Mode,
} from '../../core/domain/machineDecision.ts';
import { mayTake, transitionOf } from '../../core/domain/machineTransitions.ts';
import type { LastTry } from '../../core/domain/lastTry.ts';
import type { Ec2Instance } from '../../core/providers/ec2.ts';
import type { WorkerDeps } from '../deps.ts';
import { RetryLater } from '../ec2Errors.ts';
import { accountBackoff, clearFailures, recordStepFailure } from './failures.ts';
import {
  cloudView,
  limitsOf,
  machineFacts,
  planFacts,
  readLaunchBudget,
  readName,
  readRestore,
} from './inputs.ts';
import type { Outcome, StepContext, StepReport } from './step.ts';
import { runStep } from './steps.ts';

/**
 * The one executor of the machine lifecycle, an interpreter: it gathers a machine's inputs
 * (row, plan, what EC2 says), asks `nextStep` (core/domain/lifecycle.ts) for the next step, and
 * hands it to the step that carries it out (./steps.ts), looping on what the step reports until
 * the domain says to wait or that nothing is left. It never chooses: where a step runs, and
 * whether the run goes on after it, is the domain's `stepRule`.
 *
 * Every EC2 step runs under the machine's lock (a session advisory lock, freed at once if its
 * worker dies), after re-reading the row and deciding again, so a sweep and a job (or two
 * workers) never act on one machine at once. A failure is retried by the job (RetryLater), or
 * recorded on the row and logged by a sweep: never swallowed.
 *
 * `mode` says who runs it: a job owns its operation (launch, start) and its retry budget; a
 * sweep only converges what needs no budget (marks, accrual, stops, tags, deletions).
 */

/** What was carried out, in order, with what came of it. */
export type StepDone = { kind: Decision['kind']; reason: string; outcome?: Outcome };

export type Advance = { steps: StepDone[]; last: Decision; vm: Vm };

/** Steps one call may take: observe, tag, start … are a handful; a loop would be a bug. */
const MAX_STEPS = 10;

type Facts = Omit<LifecycleInput, 'machine' | 'plan' | 'now' | 'limits'>;

/**
 * Takes a machine as far as it can go now. `subscription` and `instance` may be handed in by a
 * sweep that read them for a whole batch (`instance: undefined` = not looked at yet, `null` =
 * EC2 does not know it). `now`: the clock the decisions read (a scheduled sweep's).
 */
export async function advanceMachine(
  deps: WorkerDeps,
  start: Vm,
  options: { mode: Mode; subscription?: Subscription | null; instance?: Ec2Instance | null; now?: Date },
): Promise<Advance> {
  // AWS throttles the account: no EC2 step of any machine until the account's backoff is over.
  const throttled = await accountBackoff(deps, options.now ?? new Date());
  if (throttled) {
    const reason = `AWS throttles this account (${throttled.code} on ${throttled.action}): every EC2 step waits until ${throttled.next_at.toISOString()}`;
    if (options.mode === 'job') throw new RetryLater(reason);
    return { steps: [], last: { kind: 'wait', reason }, vm: start };
  }
  try {
    const { succeeded, ...advanced } = await run(deps, start, options);
    // A machine that moved to another state has left its failing step behind (failures.ts).
    const movedOn = advanced.vm.state !== start.state;
    await clearFailures(deps, { kind: 'vm', id: start.id }, succeeded, movedOn);
    return advanced;
  } catch (error) {
    // A decision to retry carries no failure of its own: the step that failed recorded it.
    if (!(error instanceof RetryLater) || error.cause !== undefined)
      await recordStepFailure(
        deps,
        { kind: 'vm', id: start.id, instanceId: start.instance_id },
        error,
        options.now,
      );
    throw error;
  }
}

/** The EC2 actions a step makes: when one goes through, a run of failures of that action is over. */
const STEP_ACTIONS: Partial<Record<Decision['kind'], string[]>> = {
  observe: ['DescribeInstances'],
  'observe-snapshot': ['DescribeSnapshots'],
  launch: ['RunInstances'],
  adopt: ['DescribeInstances'],
  tag: ['CreateTags'],
  start: ['StartInstances'],
  'start-claimed': ['StartInstances'],
  stop: ['StopInstances'],
  'alert-unexpected': ['StopInstances'],
  terminate: ['TerminateInstances'],
  resize: ['ModifyInstanceAttribute', 'ModifyVolume'],
  'revert-resize': ['ModifyInstanceAttribute'],
  'capture-password': ['GetPasswordData'],
  snapshot: ['CreateSnapshot'],
};

/** What a step reports when its call failed as a fact the domain decides on (no throw). */
const FAILED_TRIES = new Set<LastTry>([
  'launch-failed',
  'start-failed',
  'stop-refused',
  'password-undecryptable',
  'instance-not-found',
]);

async function run(
  deps: WorkerDeps,
  start: Vm,
  options: { mode: Mode; subscription?: Subscription | null; instance?: Ec2Instance | null; now?: Date },
): Promise<Advance & { succeeded: Set<string> }> {
  const { mode } = options;
  const succeeded = new Set<string>();
  const went = (kind: Decision['kind'], report: StepReport) => {
    if (report.lastTry && FAILED_TRIES.has(report.lastTry)) return;
    for (const action of STEP_ACTIONS[kind] ?? []) succeeded.add(action);
  };
  const log = deps.log.child({ vmId: start.id });
  const clock = () => options.now ?? new Date();
  let vm = start;
  let subscription =
    options.subscription !== undefined
      ? options.subscription
      : await findSubscription(deps.db, vm.subscription_id);
  let facts: Facts = {
    cloud: options.instance === undefined ? undefined : cloudView(options.instance),
    restore: await readRestore(deps, vm),
    name: await readName(deps, vm),
    launchBudget: await readLaunchBudget(deps, vm, clock()),
  };
  const steps: StepDone[] = [];
  const decide = (): Decision =>
    nextStep(
      {
        ...facts,
        machine: machineFacts(vm),
        plan: planFacts(subscription),
        now: clock(),
        limits: limitsOf(deps.config.vm),
      },
      mode,
    );
  const context = (): StepContext => ({
    deps,
    vm,
    subscription,
    cloud: facts.cloud,
    mode,
    log,
    now: clock(),
  });
  const done = (decision: Decision, report: StepReport) => {
    went(decision.kind, report);
    return steps.push({
      kind: decision.kind,
      reason: decision.reason,
      ...(report.outcome ? { outcome: report.outcome } : {}),
    });
  };
  /** The row (and plan) as they now are, and the inputs that follow from them and from a step's report. */
  const reread = async (report?: StepReport) => {
    const fresh = await findVm(deps.db, vm.id);
    if (fresh && fresh.subscription_id !== subscription?.id)
      subscription = await findSubscription(deps.db, fresh.subscription_id);
    vm = fresh ?? vm;
    facts = {
      ...(report ? merge(facts, report) : facts),
      restore: await readRestore(deps, vm),
      name: await readName(deps, vm),
      launchBudget: await readLaunchBudget(deps, vm, clock()),
    };
    return fresh;
  };

  for (let i = 0; i < MAX_STEPS; i += 1) {
    const decision = decide();
    const rule = stepRule(decision);
    switch (rule.place) {
      case 'end':
        return { steps, last: decision, vm, succeeded };
      case 'retry':
        throw new RetryLater(vm.last_error ? `${decision.reason}: ${vm.last_error}` : decision.reason);
      case 'look': {
        const report = await runStep(context(), decision);
        went(decision.kind, report);
        facts = merge(facts, report);
        continue;
      }
      case 'row': {
        onTheTable(decision, vm);
        const report = await runStep(context(), decision);
        done(decision, report);
        await reread(report);
        if (rule.then === 'end') return { steps, last: decision, vm, succeeded };
        continue;
      }
      case 'cloud': {
        const held = await withTryLock(deps.db, `machine:${vm.id}`, async () => {
          if (!(await reread())) return 'gone' as const;
          const again = decide();
          // Moved on meanwhile: decided again, outside the lock.
          if (stepRule(again).place !== 'cloud') return 'decide-again' as const;
          onTheTable(again, vm);
          const report = await runStep(context(), again);
          done(again, report);
          await reread(report);
          return 'go-on' as const;
        });
        if (!held)
          return {
            steps,
            last: { kind: 'wait', reason: 'another worker is acting on this machine' },
            vm,
            succeeded,
          };
        if (held.value === 'gone')
          return { steps, last: { kind: 'nothing', reason: 'the machine row is gone' }, vm, succeeded };
        continue;
      }
      default:
        return assertNever(rule.place);
    }
  }
  throw new Error(
    `lifecycle: machine ${vm.id} took more than ${MAX_STEPS} steps (${steps.map((s) => s.kind).join(', ')})`,
  );
}

/**
 * A decision that would move the row along an edge the transitions table does not have from its
 * state is a bug in the decisions: the run fails loudly rather than write it.
 */
function onTheTable(decision: Decision, vm: Vm): void {
  const edge = transitionOf(decision);
  if (edge && !mayTake(edge, vm.state))
    throw new Error(`lifecycle: ${decision.kind} would take machine ${vm.id} along ${edge} from ${vm.state}`);
}

/** The inputs after a step: what it reported replaces what was known; `lastTry` lasts one decision. */
function merge(facts: Facts, report: StepReport): Facts {
  const cloud: CloudView | undefined = report.observeAgain
    ? undefined
    : 'cloud' in report
      ? report.cloud
      : facts.cloud;
  return {
    ...facts,
    cloud,
    snapshot: report.snapshot ?? facts.snapshot,
    remoteDesktop: report.remoteDesktop ?? facts.remoteDesktop,
    lastTry: report.lastTry,
  };
}
