import autocannon from 'autocannon';

/**
 * A paced poll load in a process of its own (forked by scripts/bench/poll.ts), measured over
 * windows the bench marks. Its own process: the burst benchmark fires a hundred PayU
 * completions at the very moment the polls are timed, and sharing that event loop stamped the
 * answers late by the time it took to send them. Windows: the load runs (warm) before and
 * between them, so a window holds neither this process's start nor its connection set-up.
 *
 * IPC: the first message holds autocannon's options; then 'start' opens a window, 'end'
 * closes it and answers its figures (Window); 'stop' ends the load and the process.
 */

export type Window = {
  requests: number;
  non2xx: number;
  p50: number;
  p99: number;
  max: number;
  seconds: number;
};

let open: { since: number; latencies: number[]; non2xx: number } | null = null;

process.once('message', (options: autocannon.Options) => {
  const instance = autocannon(options, (error) => {
    if (error) throw error;
    process.exit(0);
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (!open) return;
    open.latencies.push(ms);
    if (status < 200 || status >= 400) open.non2xx++;
  });
  process.on('message', (message) => {
    if (message === 'start') open = { since: performance.now(), latencies: [], non2xx: 0 };
    if (message === 'end' && open) {
      const sorted = open.latencies.sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
      const window: Window = {
        requests: sorted.length,
        non2xx: open.non2xx,
        p50: at(0.5),
        p99: at(0.99),
        max: sorted.at(-1) ?? 0,
        seconds: (performance.now() - open.since) / 1000,
      };
      open = null;
      process.send!(window);
    }
    if (message === 'stop') instance.stop();
  });
});
