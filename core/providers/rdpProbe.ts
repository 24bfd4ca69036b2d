import { connect } from 'node:net';

/**
 * Whether a machine's Remote Desktop port accepts a TCP connection: the difference between
 * "EC2 says running and the password exists" and "the customer can connect". Windows answers
 * on 3389 only once its Remote Desktop service is up, which can be a while after EC2 reports
 * the instance running. Only the TCP handshake is attempted; nothing is sent.
 */

export type RdpProbeResult =
  | { state: 'open' }
  /** `refused`, `timeout`, or the socket error's code (`EHOSTUNREACH`, …). */
  | { state: 'closed'; reason: string };

export type RdpProbeOptions = {
  /** Give up after this long: a filtered port (security group) never answers at all. */
  timeoutMs?: number | undefined;
};

/** Connects to `host:port` once, within `timeoutMs` (default 3 s), and hangs up at once. */
export function probeRdp(host: string, port: number, options: RdpProbeOptions = {}): Promise<RdpProbeResult> {
  const timeoutMs = options.timeoutMs ?? 3_000;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let settled = false;
    const finish = (result: RdpProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ state: 'closed', reason: 'timeout' }), timeoutMs);
    socket.once('connect', () => finish({ state: 'open' }));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish({
        state: 'closed',
        reason: error.code === 'ECONNREFUSED' ? 'refused' : (error.code ?? error.message),
      }),
    );
  });
}
