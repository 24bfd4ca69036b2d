import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { benchApi } from './bench/api.ts';
import { benchEnumeration } from './bench/enumeration.ts';
import { benchBundle } from './bench-bundle.ts';
import { recordedFigures } from './bench/lib.ts';
import { benchPoll } from './bench/poll.ts';
import { benchBurst } from './bench/burst.ts';
import { benchPoolSim } from './bench/poolSim.ts';
import { benchTimeToDesktop } from './bench/timeToDesktop.ts';
import { benchReconcile } from './bench/reconcile.ts';
import { benchSweep } from './bench/sweep.ts';
import { benchMail } from './bench/mail.ts';
import { benchSite } from './bench/site.ts';

/**
 * `npm run bench`: prints figures for the product's performance targets, each with the
 * baseline it is compared against (measured in the same run) and the ratio, and writes them
 * all to bench/results.json so runs can be compared. Each benchmark runs against real parts
 * (embedded Postgres, the sandbox); nothing here passes or fails on time.
 * `npm run bench -- poll api` runs some by name.
 */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  // The landing page's initial JS and CSS, gzip, against its 100 KB budget.
  bundle: () => benchBundle(),
  api: benchApi,
  // The signed-in dashboard poll against the app's floor, a one-query Koa route and bare Koa.
  poll: benchPoll,
  // 100 PayU payments completed at once → all active, and the poll's latency meanwhile.
  burst: benchBurst,
  // Registered vs unknown email on forgot-password, registration and login: equal timing.
  enumeration: () => benchEnumeration(),
  // Paid → IP and password ready, cold and with the warm pool.
  'time-to-desktop': async () => {
    await benchTimeToDesktop();
  },
  // 100 paid checkouts whose browser and webhook were both lost → all active (reconciliation sweep).
  reconcile: benchReconcile,
  // One vm-sync pass over 10,000 machines and instances, against the bare EC2 listing.
  sweep: benchSweep,
  // Bulk mail throughput and sign-in code latency under a newsletter backlog.
  mail: benchMail,
  // SIMULATION: a month of purchases against the real pool rules: paid → connectable and idle cost.
  'pool-sim': benchPoolSim,
  // Lighthouse mobile on the public pages, best of two runs (needs Chromium; says so without).
  site: benchSite,
};

const only = process.argv.slice(2);
const names = only.length > 0 ? only : Object.keys(BENCHMARKS);
const cpus = os.cpus();
const machine = {
  node: process.version,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  cpu: cpus[0]?.model ?? 'unknown',
  cores: cpus.length,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  loadAverageAtStart: os.loadavg().map((n) => Number(n.toFixed(2))),
};
console.log(
  `bench: node ${machine.node}, ${machine.cores} × ${machine.cpu}, load ${machine.loadAverageAtStart.join(' ')}`,
);
const started = new Date();
for (const name of names) {
  const bench = BENCHMARKS[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    process.exit(2);
  }
  await bench();
}
await mkdir('bench', { recursive: true });
await writeFile(
  'bench/results.json',
  `${JSON.stringify(
    {
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      benchmarks: names,
      machine: { ...machine, loadAverageAtEnd: os.loadavg().map((n) => Number(n.toFixed(2))) },
      figures: recordedFigures(),
    },
    null,
    2,
  )}\n`,
);
console.log('\nbench: figures written to bench/results.json');
