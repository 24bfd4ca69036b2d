import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../core/queue.ts';

/** `vm-provision` → `vmProvision`. */
const fileOf = (queue: string) => `${queue.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}.ts`;

describe('worker/jobs: one file per queue, named after it, in one shape', () => {
  const files = readdirSync(new URL('./jobs/', import.meta.url)).filter((f) => f.endsWith('.ts'));

  it('has exactly one handler file for every queue of core/queue.ts, and nothing else', () => {
    expect(files.sort()).toEqual(QUEUE_NAMES.map(fileOf).sort());
  });

  it('builds every handler with the shared shape (worker/job.ts) for its own queue', () => {
    for (const queue of QUEUE_NAMES) {
      const source = readFileSync(new URL(`./jobs/${fileOf(queue)}`, import.meta.url), 'utf8');
      expect(source, queue).toMatch(new RegExp(`(eachJob|eachJobSettled|sweepJob)\\('${queue}'`));
    }
  });
});
