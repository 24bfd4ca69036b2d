import pg from 'pg';
import { findDashboardState, readDashboardState } from '../../core/db/dashboard.ts';
import { median, record } from './lib.ts';
import { processCpuMicros } from './processCpu.ts';
import type { PollCustomer } from './pollCustomers.ts';

/**
 * What each way a poll can go costs, per poll, sequentially on one connection (this process's
 * CPU and that connection's backend's, from /proc), beside the load rounds, whose polls all find
 * their kept record unchanged:
 *
 * - read: the whole statement, parsed (a customer's first poll, one whose kept record is 30 s
 *   old, e.g. a running machine's once-a-minute poll; what every poll cost before records were
 *   kept);
 * - kept, unchanged: the one question (`dashboard_changed`), answered from the kept record;
 * - kept, changed: a note of a write arrived since (written by another connection, not counted),
 *   so the question and then the read;
 *
 * and what the notes cost a hot writer: a machine's health report written (UPDATE of its
 * machine_health row) with the table's notes, and with its triggers switched off (this scratch
 * database only).
 */
export async function measurePollPaths(databaseUrl: string, customers: PollCustomer[], polls = 1000) {
  const writer = new pg.Client({ connectionString: databaseUrl });
  await writer.connect();
  const rounds = 5;
  try {
    console.log(
      `\nper poll by path, ${polls} sequential polls × ${rounds} rounds on one connection (medians):`,
    );
    for (const customer of customers) {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      try {
        const backend = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const note = () =>
          writer.query('INSERT INTO dashboard_changes (user_id) VALUES ($1)', [customer.userId]);
        const paths: Record<string, { before?: () => Promise<unknown>; poll: () => Promise<unknown> }> = {
          read: { poll: () => readDashboardState(pool, customer.userId) },
          'kept, unchanged': { poll: () => findDashboardState(pool, customer.userId) },
          'kept, changed': { before: note, poll: () => findDashboardState(pool, customer.userId) },
        };
        const cpu = await alternate(paths, backend, polls, rounds);
        for (const [name, { web, db }] of Object.entries(cpu)) {
          console.log(
            `  ${customer.label.padEnd(9)} ${name.padEnd(16)} web ${web.toFixed(0).padStart(4)} µs  DB ${db.toFixed(0).padStart(4)} µs`,
          );
          record('poll', {
            name: `path ${name}, ${customer.label}: web CPU per poll`,
            value: web,
            unit: 'µs',
          });
          record('poll', { name: `path ${name}, ${customer.label}: DB CPU per poll`, value: db, unit: 'µs' });
        }
      } finally {
        await pool.end();
      }
    }
    const streaming = customers.find((c) => c.label === 'streaming')!;
    const { rows } = await writer.query<{ vm_id: string }>(
      'SELECT h.vm_id FROM machine_health h JOIN vms v ON v.id = h.vm_id WHERE v.user_id = $1',
      [streaming.userId],
    );
    const reporter = new pg.Client({ connectionString: databaseUrl });
    await reporter.connect();
    try {
      const backend = (await reporter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const report = () =>
        reporter.query({
          name: 'report',
          text: 'UPDATE machine_health SET received_at = now(), reported_at = now() WHERE vm_id = $1',
          values: [rows[0]!.vm_id],
        });
      const triggers = (on: boolean) =>
        writer.query(`ALTER TABLE machine_health ${on ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
      const cpu = await alternate(
        {
          'with notes': { before: () => triggers(true), poll: report, once: true },
          'without notes': { before: () => triggers(false), poll: report, once: true },
        },
        backend,
        polls,
        rounds,
      );
      await triggers(true);
      for (const [name, { db }] of Object.entries(cpu)) {
        console.log(`  health report written, ${name.padEnd(13)} DB ${db.toFixed(0).padStart(4)} µs`);
        record('poll', { name: `health report written ${name}: DB CPU`, value: db, unit: 'µs' });
      }
    } finally {
      await reporter.end();
    }
  } finally {
    await writer.end();
  }
}

type Path = { before?: () => Promise<unknown>; poll: () => Promise<unknown>; once?: boolean };

/** Each path's CPU per call (this process's, less `before`'s; the backend's), rounds alternating. */
async function alternate(paths: Record<string, Path>, backend: number, calls: number, rounds: number) {
  const runs: Record<string, { web: number[]; db: number[] }> = {};
  for (const path of Object.values(paths)) await path.poll(); // prepared, kept
  for (let round = 0; round < rounds; round++) {
    for (const [name, path] of Object.entries(paths)) {
      if (path.once) await path.before?.();
      let aside = 0;
      const web = process.cpuUsage();
      const db = (await processCpuMicros(backend)) ?? Number.NaN;
      for (let i = 0; i < calls; i++) {
        if (path.before && !path.once) {
          const start = process.cpuUsage();
          await path.before();
          const spent = process.cpuUsage(start);
          aside += spent.user + spent.system;
        }
        await path.poll();
      }
      const used = process.cpuUsage(web);
      const dbAfter = (await processCpuMicros(backend)) ?? Number.NaN;
      (runs[name] ??= { web: [], db: [] }).web.push((used.user + used.system - aside) / calls);
      runs[name].db.push((dbAfter - db) / calls);
    }
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, { web, db }]) => [name, { web: median(web), db: median(db) }]),
  );
}
