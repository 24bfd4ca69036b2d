import { raiseAlert, resolveAlertsByKeys } from '../../core/db/operatorAlerts.ts';
import {
  clearStepFailure,
  failureFacts,
  findAccountBackoff,
  findStepFailure,
  markStepFailureAlerted,
  saveStepFailure,
  type StepFailure,
} from '../../core/db/stepFailures.ts';
import {
  ACCOUNT_SUBJECT,
  backedOff,
  failureAlertDue,
  failureLogLevel,
  isThrottling,
  nextStepFailure,
  STEP_ALERT_AFTER_MS,
} from '../../core/domain/stepBackoff.ts';
import type { WorkerDeps } from '../deps.ts';
import { describeEc2Error, failureOf } from '../ec2Errors.ts';

/**
 * Failing steps, paced and told: each failure of a machine, a spare or the account is counted
 * as a row (`step_failures`), logged once as an error and then as warnings with their count,
 * alerted to an operator once it has lasted 5 minutes, and resolved when the subject's step
 * goes through. How long each waits is core/domain/stepBackoff.ts.
 */

export type FailingSubject =
  | { kind: 'vm'; id: string; instanceId?: string | null | undefined }
  | { kind: 'pool'; id: string; instanceId?: string | null | undefined }
  | { kind: 'account' };

function subjectKey(subject: FailingSubject): string {
  return subject.kind === 'account' ? ACCOUNT_SUBJECT : `${subject.kind}:${subject.id}`;
}

function subjectWords(subject: FailingSubject): string {
  switch (subject.kind) {
    case 'vm':
      return `Machine ${subject.instanceId ?? subject.id}`;
    case 'pool':
      return `Warm-pool spare ${subject.instanceId ?? subject.id}`;
    case 'account':
      return 'The AWS account (throttled: every EC2 step waits)';
  }
}

export const stepFailingAlertKey = (subject: string) => `step-failing:${subject}`;

/**
 * Records a failure: the run it continues (or starts), the next moment the subject may be tried
 * (backoff with jitter), the log line at its level, the operator alert once it has failed for
 * 5 minutes. Throttling also slows the whole account down.
 */
export async function recordStepFailure(
  deps: Pick<WorkerDeps, 'db' | 'log' | 'config'>,
  subject: FailingSubject,
  error: unknown,
  now: Date = new Date(),
): Promise<StepFailure> {
  const key = subjectKey(subject);
  const failure = failureOf(error);
  const detail = describeEc2Error(error);
  const previous = await findStepFailure(deps.db, key);
  const next = nextStepFailure(
    previous && failureFacts(previous),
    failure,
    now,
    deps.config.vm.pollSeconds * 1000,
    Math.random(),
  );
  const saved = await saveStepFailure(
    deps.db,
    {
      subject: key,
      vmId: subject.kind === 'vm' ? subject.id : null,
      poolInstanceId: subject.kind === 'pool' ? subject.id : null,
      ...failure,
      detail,
      count: next.count,
      firstAt: new Date(next.firstAt),
      nextAt: new Date(next.nextAt),
      sameRun: next.sameRun,
    },
    now,
  );
  const level = failureLogLevel(saved.count);
  deps.log[level](
    {
      subject: key,
      action: saved.action,
      code: saved.code,
      failures: saved.count,
      nextTryAt: saved.next_at.toISOString(),
      error: detail,
    },
    saved.count > 1 ? `step failing again (${saved.count} in a row): backing off` : 'step failed',
  );
  if (failureAlertDue(failureFacts(saved), now)) {
    const minutes = Math.round((now.getTime() - saved.first_at.getTime()) / 60_000);
    await raiseAlert(deps.db, {
      kind: 'step-failing',
      dedupeKey: stepFailingAlertKey(key),
      message: `${subjectWords(subject)}: ${saved.action} has failed ${saved.count} times in a row for ${Math.max(minutes, STEP_ALERT_AFTER_MS / 60_000)} minutes (tried again with backoff, next at ${saved.next_at.toISOString()}). Last error: ${detail}`,
      vmId: subject.kind === 'vm' ? subject.id : null,
      instanceId: subject.kind === 'account' ? null : (subject.instanceId ?? null),
      details: { subject: key, action: saved.action, code: saved.code, failures: saved.count },
    });
    await markStepFailureAlerted(deps.db, key, now);
  }
  if (subject.kind !== 'account' && isThrottling(failure.code))
    await recordStepFailure(deps, { kind: 'account' }, error, now);
  return saved;
}

/**
 * The subject's failing step went through (an action of the run of failures succeeded, or the
 * subject moved on to another state): the run is over, and so is its alert.
 */
export async function clearFailures(
  deps: Pick<WorkerDeps, 'db' | 'log'>,
  subject: FailingSubject,
  succeeded: ReadonlySet<string> | 'all',
  movedOn = false,
): Promise<void> {
  if (succeeded !== 'all' && succeeded.size === 0 && !movedOn) return;
  const key = subjectKey(subject);
  const cleared = await clearStepFailure(
    deps.db,
    key,
    succeeded === 'all' || movedOn ? null : [...succeeded],
  );
  if (!cleared) return;
  if (cleared.alerted_at) await resolveAlertsByKeys(deps.db, [stepFailingAlertKey(key)]);
  deps.log.info(
    { subject: key, action: cleared.action, failures: cleared.count },
    'step succeeded after failing; backoff over',
  );
}

/** The account's throttling backoff, while it lasts: every EC2 step waits until `next_at`. */
export async function accountBackoff(
  deps: Pick<WorkerDeps, 'db'>,
  now: Date = new Date(),
): Promise<StepFailure | null> {
  const row = await findAccountBackoff(deps.db);
  return row && backedOff({ nextAt: row.next_at }, now) ? row : null;
}
