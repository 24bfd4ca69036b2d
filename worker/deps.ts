import type { Config } from '../core/config/config.ts';
import type { DatabasePool } from '../core/db/pool.ts';
import type { Logger } from '../core/observability/log.ts';
import type { Mailer } from '../core/providers/mail.ts';
import type { Boss } from '../core/queue.ts';
import type { VmEc2 } from '../core/providers/vmEc2.ts';
import type { CloudWatch } from '../core/providers/cloudwatch.ts';
import { probeRdp } from '../core/providers/rdpProbe.ts';
import type { Sunshine } from '../core/providers/sunshine.ts';
import type { Route53 } from '../core/providers/route53.ts';

/** What job handlers need, built once per worker process. */
export type WorkerDeps = {
  config: Config;
  db: DatabasePool;
  boss: Boss;
  log: Logger;
  mailer: Mailer;
  /** EC2 for the cloud-PC jobs: AWS, or the sandbox in development and tests. */
  vmEc2: VmEc2;
  /**
   * CloudWatch for `metrics-pull` (usage page): AWS, or the sandbox. Optional so deps built by
   * hand for other jobs need not have it; `metrics-pull` makes its own from config if absent.
   */
  cloudWatch?: CloudWatch;
  /** Whether Remote Desktop answers on a machine's public address: a machine is ready only when it does. */
  remoteDesktop: RemoteDesktopProbe;
  /** Sunshine's API on customers' machines (pairing Moonlight); the stream jobs make one if absent. */
  sunshine?: Sunshine;
  /** Route 53 for the machines' DNS names, when a zone is configured (MACHINE_DNS_ZONE_ID). */
  route53?: Route53 | undefined;
};

export type RemoteDesktopProbe = { probe(host: string, port: number): Promise<'open' | 'closed'> };

/** The real probe: one TCP handshake with the machine's Remote Desktop port, short timeout. */
export const remoteDesktopProbe: RemoteDesktopProbe = {
  async probe(host, port) {
    return (await probeRdp(host, port, { timeoutMs: 3_000 })).state;
  },
};
