import { createServer } from 'node:http';
import { loadConfig } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { openServices } from '../../api/services.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import { fmtMs, fmtRatio, heading, median, percentile, record } from './lib.ts';

/**
 * The web process's request path on a real Postgres: readiness checks and problem reports
 * (validate → rate limit → insert + enqueue in one transaction), sequential and 20 at a time.
 */
export async function benchApi(): Promise<void> {
  heading('API request path (embedded Postgres, one web process)');
  const database = await startScratchDatabase('bench-', 'bench');
  try {
    const url = database.url;
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, LOG_LEVEL: 'silent' });
    const services = await openServices(config, url, createLogger({ level: 'silent', name: 'bench' }));
    // Reports are limited per IP; the bench measures the path, not the limiter's refusal.
    services.limiters.reports = { consume: async () => {}, reset: async () => {} };
    const server = createServer(createApp(services).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const base = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}`;
    const report = () =>
      fetch(`${base}/api/report-problem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify({
          title: 'Bench',
          description: 'A benchmark report',
          phoneNumber: '9876543210',
        }),
      }).then((r) => r.arrayBuffer());

    for (let i = 0; i < 50; i++) await report(); // warm-up: JIT, pools, prepared paths

    const timings = async (n: number, fn: () => Promise<unknown>) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fn();
        out.push(performance.now() - t);
      }
      return out;
    };
    const ready = await timings(300, () => fetch(`${base}/readyz`).then((r) => r.arrayBuffer()));
    const reports = await timings(300, report);
    const reportVsReady = record('api', {
      name: 'POST /api/report-problem median',
      value: median(reports),
      unit: 'ms',
      baseline: { name: 'GET /readyz median', value: median(ready), unit: 'ms' },
      detail: { p95Ms: percentile(reports, 95), readyP95Ms: percentile(ready, 95), n: 300 },
    });
    console.log(
      `GET /readyz              median ${fmtMs(median(ready))}  p95 ${fmtMs(percentile(ready, 95))}  (n=300, baseline)`,
    );
    console.log(
      `POST /api/report-problem median ${fmtMs(median(reports))}  p95 ${fmtMs(percentile(reports, 95))}  (n=300, ${fmtRatio(reportVsReady.ratio)} /readyz)`,
    );

    const concurrent = 20;
    const total = 600;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        while (next++ < total) await report();
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const concurrentVsSequential = record('api', {
      name: `POST /api/report-problem ${concurrent} at a time`,
      value: total / seconds,
      unit: 'req/s',
      baseline: {
        name: 'POST /api/report-problem one at a time',
        value: 1000 / median(reports),
        unit: 'req/s',
      },
    });
    console.log(
      `POST /api/report-problem ${concurrent} at a time: ${(total / seconds).toFixed(0)} req/s (${total} requests; ${fmtRatio(concurrentVsSequential.ratio)} one at a time)`,
    );

    server.closeAllConnections();
    server.close();
    await services.close();
  } finally {
    await database.stop();
  }
}
