import { classifyEc2Error, ec2CallOf, ec2ErrorCode, ec2RequestId } from '../core/providers/ec2.ts';

/** The failure under any wrapper (a RetryLater carries the EC2 error as its `cause`). */
function root(error: unknown): unknown {
  let e = error;
  for (let depth = 0; depth < 5; depth += 1) {
    const cause = (e as { cause?: unknown } | null)?.cause;
    if (typeof cause !== 'object' || cause === null) return e;
    e = cause;
  }
  return e;
}

/**
 * EC2's error in one line for logs and operator alerts: the action and what it named (ids, a
 * filter), AWS's error code, the request id, the message. `DescribeInstances [filter
 * instance-id=i-0abc]: RequestLimitExceeded (request 1f…): Request limit exceeded.`
 */
export function describeEc2Error(error: unknown): string {
  const failure = root(error);
  const call = ec2CallOf(error);
  const code = ec2ErrorCode(error);
  const message = (failure as { message?: string })?.message ?? String(failure);
  const requestId = ec2RequestId(failure);
  const where = call ? `${call.action}${call.target ? ` [${call.target}]` : ''}: ` : '';
  return `${where}${code}${requestId ? ` (request ${requestId})` : ''}: ${message}`.slice(0, 500);
}

/** The action and code of a failure, for the backoff's rows (a failure that is not an EC2 call: `step`). */
export function failureOf(error: unknown, fallbackAction = 'step'): { action: string; code: string } {
  return { action: ec2CallOf(error)?.action ?? fallbackAction, code: ec2ErrorCode(error) };
}

/** Errors after which waiting (and another subnet) may help. */
export function isRetryableCapacity(error: unknown): boolean {
  const kind = classifyEc2Error(root(error));
  return kind === 'capacity' || kind === 'limit' || kind === 'throttled';
}

/** A job step to be tried again later (pg-boss retries it with backoff); `cause` is the EC2 failure, if any. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}
