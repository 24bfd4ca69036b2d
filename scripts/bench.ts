import { benchApi } from './bench/api.ts';

/**
 * `npm run bench`: prints figures for the product's performance targets. Each benchmark
 * runs against real parts (embedded Postgres, the sandbox) and reports medians; nothing
 * here passes or fails on time. `npm run bench -- api` runs one by name.
 */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  api: benchApi,
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
