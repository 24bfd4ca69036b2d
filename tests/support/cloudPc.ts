import { z } from 'zod';
import type { Config } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { sql } from '../../core/db/pool.ts';
import {
  activateSubscription,
  insertPendingSubscription,
  type Subscription,
} from '../../core/db/subscriptions.ts';
import { findVm, type Vm } from '../../core/db/vms.ts';
import { getPlan, planExpiry, type PlanId } from '../../core/domain/plans.ts';
import { createVmEc2, type VmEc2 } from '../../core/providers/vmEc2.ts';
import { remoteDesktopProbe, type WorkerDeps } from '../../worker/deps.ts';
import { waitFor, type TestStack } from './stack.ts';

/**
 * Helpers for the cloud-PC tests: worker dependencies to call job handlers directly (as the
 * worker would), plans activated straight in the database, and looks into the sandbox EC2.
 */
export function cloudPcHelpers(stack: TestStack) {
  const db = stack.services.db;
  const clients: VmEc2[] = [];

  /** What a worker hands its handlers; `config` overrides merge into the stack's. */
  function deps(
    overrides: { vm?: Partial<Config['vm']>; ec2?: Partial<Config['ec2']>; vmEc2?: VmEc2 } = {},
  ): WorkerDeps {
    const config: Config = {
      ...stack.config,
      vm: { ...stack.config.vm, ...overrides.vm },
      ec2: { ...stack.config.ec2, ...overrides.ec2 },
    };
    const vmEc2 = overrides.vmEc2 ?? createVmEc2(config.ec2);
    clients.push(vmEc2);
    return {
      config,
      db,
      boss: stack.services.boss,
      log: createLogger({ level: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent', name: 'test-worker' }),
      mailer: { send: async () => ({ messageId: 'test' }) } as unknown as WorkerDeps['mailer'],
      vmEc2,
      // The cloud-PC handlers never touch CloudWatch (metrics-pull has its own tests).
      cloudWatch: null as never,
      // The real probe, against the sandbox's real listeners.
      remoteDesktop: remoteDesktopProbe,
    };
  }

  /** A paid plan, as payment-verify leaves it (without the job it would send). */
  async function activePlan(
    userId: string,
    options: { planId?: PlanId; hours?: 30 | 45 | 65 | 90; purchasedAt?: Date } = {},
  ): Promise<Subscription> {
    const plan = getPlan(options.planId ?? 'legend');
    const hours = options.hours ?? 30;
    const pending = await insertPendingSubscription(db, {
      userId,
      planId: plan.id,
      planName: plan.displayName,
      isTrial: false,
      hours,
      storageGb: plan.storageGb,
      instanceType: plan.instanceType,
      pricePaise: plan.pricesPaise[hours],
      trialPhone: null,
    });
    const purchasedAt = options.purchasedAt ?? new Date();
    const active = await activateSubscription(db, pending.id, purchasedAt, planExpiry(purchasedAt));
    if (!active) throw new Error('could not activate the test subscription');
    return active;
  }

  /** Instances the sandbox holds for a VM (by its tag), terminated ones included unless asked. */
  function instancesOf(vmId: string, options: { live?: boolean } = {}) {
    return stack.sandboxEc2
      .state()
      .instances.filter((i) => i.tags['legend:vm'] === vmId || i.clientToken === vmId)
      .filter((i) => !options.live || (i.state !== 'terminated' && i.state !== 'shutting-down'));
  }

  /** Moves the sandbox's clock: every simulated transition due by then has happened. */
  function advance(ms: number): void {
    stack.sandboxEc2.control({ advanceMs: ms });
  }

  async function vm(id: string): Promise<Vm> {
    const row = await findVm(db, id);
    if (!row) throw new Error(`no vm ${id}`);
    return row;
  }

  async function waitForVm(
    id: string,
    what: string,
    check: (vm: Vm) => boolean,
    timeoutMs = 20_000,
  ): Promise<Vm> {
    return waitFor(
      `vm ${what}`,
      async () => {
        const row = await findVm(db, id);
        return row && check(row) ? row : null;
      },
      timeoutMs,
    );
  }

  /** Jobs queued for a queue (optionally matching a payload field), whatever their state. */
  async function jobs(queue: string, match: Record<string, string> = {}) {
    const rows = await db.any(sql.type(z.object({ id: z.string(), state: z.string(), data: z.unknown() }))`
      SELECT id::text AS id, state::text AS state, data FROM pgboss.job WHERE name = ${queue} ORDER BY created_on`);
    return rows.filter((row) =>
      Object.entries(match).every(([key, value]) => (row.data as Record<string, unknown>)?.[key] === value),
    );
  }

  /** The kinds of mail queued for an address (the worker may not be running). */
  async function mailKinds(to: string): Promise<string[]> {
    return (await jobs('email-send', { to })).map((job) => String((job.data as { kind?: string }).kind));
  }

  async function exec(query: ReturnType<typeof sql.unsafe>): Promise<void> {
    await db.query(query);
  }

  function destroy(): void {
    for (const client of clients.splice(0)) client.destroy();
  }

  return { db, deps, activePlan, instancesOf, advance, vm, waitForVm, jobs, mailKinds, exec, destroy };
}
