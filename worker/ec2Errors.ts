import { classifyEc2Error, ec2RequestId } from '../core/providers/ec2.ts';

/** EC2's error in one line for logs and operator alerts: code, request id, message. */
export function describeEc2Error(error: unknown): string {
  const name = (error as { name?: string }).name ?? 'Error';
  const message = (error as { message?: string }).message ?? String(error);
  const requestId = ec2RequestId(error);
  return `${name}${requestId ? ` (request ${requestId})` : ''}: ${message}`.slice(0, 500);
}

/** Errors after which waiting (and another subnet) may help. */
export function isRetryableCapacity(error: unknown): boolean {
  const kind = classifyEc2Error(error);
  return kind === 'capacity' || kind === 'limit' || kind === 'throttled';
}

/** A job step to be tried again later (pg-boss retries it with backoff). */
export class RetryLater extends Error {
  override name = 'RetryLater';
}
