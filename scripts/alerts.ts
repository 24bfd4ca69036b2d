import { z } from 'zod';
import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { listOrphans } from '../core/db/ec2Fleet.ts';
import {
  acknowledgeAlert,
  findAlert,
  listAlerts,
  resolveAlert,
  type OperatorAlert,
} from '../core/db/operatorAlerts.ts';
import { createDbPool } from '../core/db/pool.ts';
import { findVm } from '../core/db/vms.ts';
import { sendJob, startBoss } from '../core/queue.ts';
import { requestTerminate } from '../core/commands/vmActions.ts';

const USAGE = `usage: npm run alerts -- [command]
  (none)                 open operator alerts, most recent first
  all                    every alert, resolved ones too
  show <id>              one alert in full: details, occurrences, when a person was told
  ack <id>               someone is on it: no more reminders (it stays open until resolved);
                         a pool-hold alert's hold is released at once (fix its cause first)
  resolve <id>           mark an alert handled
  orphans                instances tagged as ours that no machine owns (terminated after ORPHAN_GRACE_MINUTES)
  reprovision <vmId>     a machine that ended in error: retire it and provision its plan again`;

/**
 * Operator alerts of the cloud PCs: provisioning late or failed, quota reached,
 * starts given up, passwords that do not decrypt, instances lost or unowned, steps failing, pools
 * on hold. Acknowledging a pool-hold alert releases the hold: the pool's decision reads the
 * acknowledgement from the alert's row (core/domain/launchBudget.ts). Reads DATABASE_URL.
 */
const [command, ...args] = process.argv.slice(2);
const config = loadConfig();
const db = await createDbPool(requireDatabaseUrl(config), { maximumPoolSize: 2 });
let exitCode = 0;

/** The alert id argument, refused unless it is one (before any query). */
function alertId(value: string | undefined): string {
  if (!value || !z.uuid().safeParse(value).success) throw new Error(`an alert id is needed\n${USAGE}`);
  return value;
}

function print(alert: OperatorAlert): void {
  const state = alert.resolved_at
    ? `resolved ${alert.resolved_at.toISOString()}`
    : alert.acknowledged_at
      ? `OPEN (acknowledged ${alert.acknowledged_at.toISOString()})`
      : 'OPEN';
  const times = alert.occurrences > 1 ? ` ×${alert.occurrences}` : '';
  const subject = [alert.vm_id && `vm ${alert.vm_id}`, alert.instance_id && `instance ${alert.instance_id}`]
    .filter(Boolean)
    .join(', ');
  console.log(
    `${alert.id}  ${alert.kind}${times}  ${state}  last ${alert.last_seen_at.toISOString()}${subject ? `  ${subject}` : ''}\n    ${alert.message}`,
  );
}

try {
  switch (command) {
    case undefined:
    case 'all': {
      const alerts = await listAlerts(db, { includeResolved: command === 'all', limit: 500 });
      if (alerts.length === 0) console.log(command === 'all' ? 'no alerts' : 'no open alerts');
      alerts.forEach(print);
      break;
    }
    case 'show': {
      const id = alertId(args[0]);
      const alert = await findAlert(db, id);
      if (!alert) throw new Error(`no alert ${id}`);
      console.log(
        JSON.stringify(
          {
            id: alert.id,
            kind: alert.kind,
            state: alert.resolved_at ? 'resolved' : alert.acknowledged_at ? 'acknowledged' : 'open',
            message: alert.message,
            vmId: alert.vm_id,
            instanceId: alert.instance_id,
            occurrences: alert.occurrences,
            firstSeen: alert.created_at,
            lastSeen: alert.last_seen_at,
            notifications: alert.notify_count,
            lastNotified: alert.notified_at,
            acknowledged: alert.acknowledged_at,
            resolved: alert.resolved_at,
            details: alert.details,
          },
          null,
          2,
        ),
      );
      break;
    }
    case 'ack': {
      const id = alertId(args[0]);
      const alert = await acknowledgeAlert(db, id);
      if (!alert) throw new Error(`no open, unacknowledged alert ${id}`);
      print(alert);
      break;
    }
    case 'resolve': {
      const id = alertId(args[0]);
      const alert = await resolveAlert(db, id);
      if (!alert) throw new Error(`no open alert ${id}`);
      print(alert);
      break;
    }
    case 'orphans': {
      const orphans = await listOrphans(db);
      if (orphans.length === 0) console.log('no unowned instances');
      for (const o of orphans) {
        console.log(
          `${o.instance_id}  ${o.state}  first seen ${o.first_seen_at.toISOString()}  tags ${JSON.stringify(o.tags)}`,
        );
      }
      break;
    }
    case 'reprovision': {
      const vmId = args[0];
      if (!vmId) throw new Error(USAGE);
      const vm = await findVm(db, vmId);
      if (!vm) throw new Error(`no vm ${vmId}`);
      if (vm.state !== 'error')
        throw new Error(`vm ${vmId} is ${vm.state}; only a machine in error is provisioned again`);
      const boss = await startBoss(requireDatabaseUrl(config), 'script');
      try {
        // The old row keeps its ClientToken; a new row (new id, new token) gets a fresh launch.
        await db.transaction(async (trx) => {
          await requestTerminate(trx, boss, vm.id, 'reprovisioned', new Date());
          await sendJob(
            boss,
            'vm-provision',
            { subscriptionId: vm.subscription_id, userId: vm.user_id },
            { db: trx },
          );
        });
      } finally {
        await boss.stop({ graceful: true, timeout: 5000 });
      }
      console.log(`vm ${vmId} retired; its plan ${vm.subscription_id} is being provisioned again`);
      break;
    }
    default:
      throw new Error(USAGE);
  }
} catch (error) {
  console.error((error as Error).message);
  exitCode = 1;
} finally {
  await db.end();
}
process.exit(exitCode);
