import { createServer, type Server } from 'node:net';
import { listenAt, serialQueue } from '../machineServers.ts';

/**
 * Real TCP listeners standing in for each running instance's Remote Desktop port, on the
 * loopback address the sandbox reports as the instance's public IP. A probe that connects to
 * `publicIp:port` therefore meets a real socket: open while the instance runs, refused once it
 * stops, or refused on demand (`_control` `{ rdp: { <instanceId>: 'closed' } }`), the way a
 * Windows machine answers before Remote Desktop is up.
 */

export type RdpListeners = {
  port: number;
  /** Opens listeners for running instances and closes the rest; resolves once all are settled. */
  sync(running: Array<{ instanceId: string; publicIp: string }>): Promise<void>;
  /** `closed` keeps an instance's listener shut while it runs, until set `open` again. */
  set(instanceId: string, state: 'open' | 'closed'): void;
  /** Address each open listener is bound to, by instance. */
  listening(): Record<string, string>;
  close(): Promise<void>;
};

export function createRdpListeners(port: number, warn: (message: string) => void): RdpListeners {
  const servers = new Map<string, { address: string; server: Server }>();
  const closedByControl = new Set<string>();
  const failed = new Set<string>();
  // One sync at a time: two overlapping ones would open the same address twice.
  const queue = serialQueue(warn, 'sandbox EC2: Remote Desktop listeners');

  async function open(instanceId: string, address: string): Promise<void> {
    const server = createServer((socket) => {
      // Accept and hang up: the probe asks only whether the port accepts a connection.
      socket.on('error', () => socket.destroy());
      socket.end();
    });
    if (!(await listenAt(server, { port, address, instanceId }, failed, warn, 'sandbox EC2'))) return;
    server.unref();
    servers.set(instanceId, { address, server });
  }

  async function shut(instanceId: string): Promise<void> {
    const entry = servers.get(instanceId);
    if (!entry) return;
    servers.delete(instanceId);
    await new Promise<void>((resolve) => entry.server.close(() => resolve()));
  }

  async function reconcile(running: Array<{ instanceId: string; publicIp: string }>): Promise<void> {
    const wanted = new Map(
      running
        .filter((r) => r.publicIp.startsWith('127.') && !closedByControl.has(r.instanceId))
        .map((r) => [r.instanceId, r.publicIp]),
    );
    const work: Array<Promise<void>> = [];
    for (const [instanceId, entry] of servers) {
      if (wanted.get(instanceId) !== entry.address) work.push(shut(instanceId));
    }
    await Promise.all(work);
    await Promise.all(
      [...wanted]
        .filter(([instanceId]) => !servers.has(instanceId))
        .map(([instanceId, address]) => open(instanceId, address)),
    );
  }

  return {
    port,
    sync(running) {
      return queue.run(() => reconcile(running));
    },
    set(instanceId, state) {
      if (state === 'closed') closedByControl.add(instanceId);
      else closedByControl.delete(instanceId);
    },
    listening() {
      return Object.fromEntries([...servers].map(([id, entry]) => [id, `${entry.address}:${port}`]));
    },
    async close() {
      await queue.settled();
      await Promise.all([...servers.keys()].map(shut));
    },
  };
}
