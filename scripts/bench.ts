import { benchApi } from './bench/api.ts';
import { benchEnumeration } from './bench/enumeration.ts';
import { benchBundle } from './bench-bundle.ts';
import { benchTimeToDesktop } from './bench/timeToDesktop.ts';

/**
 * `npm run bench`: prints figures for the product's performance targets. Each benchmark
 * runs against real parts (embedded Postgres, the sandbox) and reports medians; nothing
 * here passes or fails on time. `npm run bench -- api` runs one by name.
 */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  // The landing page's initial JS and CSS, gzip (issue 6: under 100 KB of JS).
  bundle: () => benchBundle(),
  api: benchApi,
  // Registered vs unknown email on forgot-password, registration and login: equal timing.
  enumeration: () => benchEnumeration(),
  // Paid → IP and password ready, cold and with the warm pool (issue 5).
  'time-to-desktop': async () => {
    await benchTimeToDesktop();
  },
};

const only = process.argv.slice(2);
const names = only.length > 0 ? only : Object.keys(BENCHMARKS);
console.log(`bench: node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
for (const name of names) {
  const bench = BENCHMARKS[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    process.exit(2);
  }
  await bench();
}
