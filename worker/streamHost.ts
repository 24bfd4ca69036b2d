import { openSunshinePassword } from '../core/crypto/machineSecrets.ts';
import { desktopReachable } from '../core/domain/machineStates.ts';
import {
  clearStreamHostUnreachable,
  markStreamHostUnreachable,
  type StreamHost,
} from '../core/db/machineHealth.ts';
import { raiseAlert, resolveAlertsByKeys } from '../core/db/operatorAlerts.ts';
import {
  failureRetryable,
  outcomeOfFailure,
  SUNSHINE_API_PORT,
  type PairingOutcome,
} from '../core/domain/streaming.ts';
import {
  createSunshine,
  SunshineError,
  type Sunshine,
  type SunshineTarget,
} from '../core/providers/sunshine.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * What the stream jobs share: how to reach a machine's Sunshine (its address, its own
 * credentials, the certificate it reported), one quick retry of network trouble, and what a
 * failure to reach it leaves behind (the card says so, an operator is alerted).
 */

/** One call's deadline: connect, TLS, request and answer. */
export const SUNSHINE_TIMEOUT_MS = 6_000;
/** The pause before the one retry of a timeout or refused connection. */
const RETRY_AFTER_MS = 1_500;

let shared: Sunshine | undefined;
export function sunshineOf(deps: WorkerDeps): Sunshine {
  return deps.sunshine ?? (shared ??= createSunshine({ timeoutMs: SUNSHINE_TIMEOUT_MS }));
}

/** The target for a machine that runs and reported its host; null when it cannot be called. */
export function targetOf(deps: WorkerDeps, host: StreamHost): SunshineTarget | null {
  if (
    !host.public_ip ||
    !desktopReachable({ state: host.state, publicIp: host.public_ip }) ||
    !host.sunshine_cert_sha256 ||
    !host.sunshine_username ||
    !host.sunshine_password_sealed
  )
    return null;
  return {
    host: host.public_ip,
    port: SUNSHINE_API_PORT,
    certSha256: host.sunshine_cert_sha256,
    username: host.sunshine_username,
    password: openSunshinePassword(deps.config.appSecret, host.sunshine_password_sealed),
  };
}

/** A call, tried once more after a short pause when the failure was the network's. */
export async function withRetry<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof SunshineError) || !failureRetryable(error.kind)) throw error;
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
    return call();
  }
}

export const streamHostAlertKey = (vmId: string) => `stream-host:${vmId}`;

/** Sunshine answered: whatever was said about it being unreachable is over. */
export async function streamHostReached(deps: WorkerDeps, vmId: string): Promise<void> {
  await clearStreamHostUnreachable(deps.db, vmId);
  await resolveAlertsByKeys(deps.db, [streamHostAlertKey(vmId)]);
}

/** Sunshine could not be used on this machine: the card says so and an operator is alerted. */
export async function streamHostFailed(
  deps: WorkerDeps,
  host: { vmId: string; instanceId: string | null; address: string },
  outcome: PairingOutcome,
  error: SunshineError,
): Promise<void> {
  const now = new Date();
  await markStreamHostUnreachable(deps.db, host.vmId, `${outcome}: ${error.message}`, now);
  await raiseAlert(deps.db, {
    kind: 'stream-host-unreachable',
    dedupeKey: streamHostAlertKey(host.vmId),
    message: `Sunshine on machine ${host.instanceId ?? host.vmId} (${host.address}:${SUNSHINE_API_PORT}) failed a pairing call: ${error.kind}${
      error.status ? ` (HTTP ${error.status})` : ''
    }: ${error.message}. Check the security group lets WORKER_EGRESS_CIDRS reach TCP ${SUNSHINE_API_PORT}, and the machine's Sunshine service.`,
    vmId: host.vmId,
    instanceId: host.instanceId,
    details: { outcome, kind: error.kind, status: error.status },
  });
  deps.log.warn(
    { vmId: host.vmId, outcome, kind: error.kind, status: error.status, err: error },
    'stream host: Sunshine call failed',
  );
}

/**
 * What a failed call to a machine's Sunshine ends in: recorded as above, and answered as the
 * outcome to tell the customer. Anything but a Sunshine failure (the database) is thrown on, for
 * the queue to retry.
 */
export async function sunshineCallFailed(
  deps: WorkerDeps,
  host: StreamHost,
  address: string,
  error: unknown,
): Promise<PairingOutcome> {
  if (!(error instanceof SunshineError)) throw error;
  const outcome = outcomeOfFailure(error.kind);
  await streamHostFailed(deps, { vmId: host.vm_id, instanceId: host.instance_id, address }, outcome, error);
  return outcome;
}
