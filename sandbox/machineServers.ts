import type { Server } from 'node:net';

/**
 * One at a time: the per-machine stand-ins (Remote Desktop listeners, DCV, Sunshine) bring their
 * servers in line with the running machines, and two reconciliations overlapping would open the
 * same address twice. A failed one is reported and does not stop the next.
 */
export function serialQueue(warn: (message: string) => void, label: string) {
  let queue: Promise<void> = Promise.resolve();
  return {
    /** Runs `work` after everything queued before it; resolves (or rejects) with it. */
    run(work: () => Promise<void>): Promise<void> {
      const next = queue.then(work);
      queue = next.then(undefined, (error: unknown) => warn(`${label}: ${(error as Error).message}`));
      return next;
    },
    /** Resolves once everything queued so far has run. */
    settled(): Promise<void> {
      return queue;
    },
  };
}

/**
 * Listens on a machine's (loopback) address; true once listening. A failure is said once per
 * address (some systems, macOS, route only 127.0.0.1 without an alias) and answers false.
 */
export async function listenAt(
  server: { once: Server['once']; off: Server['off']; listen: Server['listen'] },
  where: { port: number; address: string; instanceId: string },
  said: Set<string>,
  warn: (message: string) => void,
  label: string,
): Promise<boolean> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.port, where.address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return true;
  } catch (error) {
    const key = `${where.address}:${where.port}`;
    if (!said.has(key)) {
      said.add(key);
      warn(`${label}: cannot listen on ${key} for ${where.instanceId}: ${(error as Error).message}`);
    }
    return false;
  }
}
