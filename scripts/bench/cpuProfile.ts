import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where a CPU profile's time went, per request: self time grouped by what owns the code (a
 * package under node_modules, a file of ours, a Node internal module, the garbage collector,
 * native code outside JavaScript), and the costliest functions. Used by the poll benchmark
 * (BENCH_POLL_PROFILE); also on its own for a `node --cpu-prof` profile:
 * `node scripts/bench/cpuProfile.ts <file.cpuprofile> [requests]`.
 */

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
export type CpuProfile = {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
};

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Who owns a function: `pkg koa`, `ours api/app.ts`, `node http`, or a V8 pseudo-frame. */
export function ownerOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const file = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const modules = file.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const parts = file.slice(modules + '/node_modules/'.length).split('/');
    return `pkg ${parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (file.startsWith('node:'))
    return `node ${
      file
        .slice(5)
        .replace(/^internal\//, '')
        .split('/')[0]
    }`;
  if (file.startsWith(ROOT)) return `ours ${path.relative(ROOT, file)}`;
  return file;
}

/** Prints self time per owner and per function, in µs per request (or ms in all without `requests`). */
export function summariseProfile(profile: CpuProfile, requests?: number, top = 25): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfMicros = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const total = profile.endTime - profile.startTime;
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  // Inclusive: a function's time with everything it called, counted once however deep it recurses.
  const inclusive = new Map<string, number>();
  const nameOf = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'} ${ownerOf(url, functionName)}${url ? `:${lineNumber + 1}` : ''}`;
  };
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id)!;
    const owner = ownerOf(node.callFrame.url, node.callFrame.functionName);
    owners.set(owner, (owners.get(owner) ?? 0) + micros);
    const fn = nameOf(node);
    functions.set(fn, (functions.get(fn) ?? 0) + micros);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const name = nameOf(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
    }
  }
  const per = (micros: number) =>
    requests
      ? `${(micros / requests).toFixed(1).padStart(7)} µs/req`
      : `${(micros / 1000).toFixed(0).padStart(7)} ms`;
  const busy = total - (owners.get('(idle)') ?? 0);
  console.log(
    `profiled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s` +
      (requests ? `, ${requests} requests: ${(busy / requests).toFixed(1)} µs of CPU per request` : ''),
  );
  console.log('self time by owner:');
  for (const [owner, micros] of [...owners].sort((a, b) => b[1] - a[1])) {
    if (owner === '(idle)' || micros < busy / 500) continue;
    console.log(`  ${per(micros)}  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${owner}`);
  }
  console.log(`costliest ${top} functions (self time):`);
  for (const [fn, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    if (fn.startsWith('(idle)')) continue;
    console.log(`  ${per(micros)}  ${fn}`);
  }
  console.log(`costliest ${top} of our functions, with what they call (inclusive):`);
  const ours = [...inclusive].filter(([fn]) => / ours /.test(fn)).sort((a, b) => b[1] - a[1]);
  for (const [fn, micros] of ours.slice(0, top)) console.log(`  ${per(micros)}  ${fn}`);
}

if (import.meta.filename === process.argv[1]) {
  const [file, requests] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node scripts/bench/cpuProfile.ts <file.cpuprofile> [requests]');
    process.exit(2);
  }
  summariseProfile(
    JSON.parse(await readFile(file, 'utf8')) as CpuProfile,
    requests ? Number(requests) : undefined,
  );
}
