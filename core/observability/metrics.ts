import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Histogram, Registry, type Metric } from 'prom-client';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from './log.ts';
import { PROVISION_BUCKETS, readFleetSnapshot, type FleetSnapshot } from './metricsFleet.ts';

/**
 * Prometheus metrics (prom-client). Each process has its own registry with Node's default
 * process metrics; the web process adds request timings and the fleet-wide figures read from
 * Postgres (core/observability/metricsFleet.ts); the worker adds job timings. docs/operations.md lists every metric.
 */

export { Registry };

/** A registry with the default Node process metrics (CPU, memory, event loop, GC, handles). */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function httpDurationHistogram(registry: Registry): Histogram<'method' | 'route' | 'status'> {
  return new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
}

export function jobDurationHistogram(registry: Registry): Histogram<'queue' | 'outcome'> {
  return new Histogram({
    name: 'legend_job_duration_seconds',
    help: 'Time a worker spent on one batch of jobs, by queue and outcome (completed or failed).',
    labelNames: ['queue', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60, 120, 300],
    registers: [registry],
  });
}

/** How long a fleet snapshot is reused: scrapes from several Prometheus replicas cost one read. */
export const FLEET_CACHE_MS = 5000;

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric whose samples are computed at scrape time (prom-client's Metric contract). */
function computedMetric(
  name: string,
  help: string,
  type: 'gauge' | 'counter' | 'histogram',
  samples: () => Promise<Sample[]>,
): Metric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    async get() {
      return { name, help, type, aggregator: 'sum', values: await samples() };
    },
  } as unknown as Metric;
}

/**
 * Registers the fleet-wide figures. A snapshot is read at most every `cacheMs`; scrapes that
 * arrive while one is being read share it.
 */
export function registerFleetMetrics(registry: Registry, db: Db, cacheMs = FLEET_CACHE_MS): void {
  let cached: { at: number; snapshot: Promise<FleetSnapshot> } | undefined;
  const snapshot = (): Promise<FleetSnapshot> => {
    if (!cached || Date.now() - cached.at > cacheMs) {
      const reading = readFleetSnapshot(db);
      cached = { at: Date.now(), snapshot: reading };
      // A failed read must not be served for the next five seconds: the next scrape tries again.
      reading.catch(() => {
        if (cached?.snapshot === reading) cached = undefined;
      });
    }
    return cached.snapshot;
  };
  const metrics = [
    computedMetric(
      'legend_queue_jobs',
      'Jobs in each queue by state (created = waiting, retry = waiting after a failure, active, failed).',
      'gauge',
      async () =>
        (await snapshot()).queueJobs.map((r) => ({
          labels: { queue: r.queue, state: r.state },
          value: r.count,
        })),
    ),
    computedMetric(
      'legend_dead_letter_jobs',
      'Jobs that exhausted their retries and wait in <queue>-dlq for an operator (npm run jobs -- dead).',
      'gauge',
      async () => (await snapshot()).deadLetters.map((r) => ({ labels: { queue: r.queue }, value: r.count })),
    ),
    computedMetric(
      'legend_provision_seconds',
      'Paid to ready (machine row requested to first ready) of every machine, by warm (pool) or cold (launch).',
      'histogram',
      async () => {
        const { provision } = await snapshot();
        return (['warm', 'cold'] as const).flatMap((source): Sample[] => {
          const h = provision[source];
          return [
            ...PROVISION_BUCKETS.map((le, i) => ({
              metricName: 'legend_provision_seconds_bucket',
              labels: { le, source },
              value: h.buckets[i] ?? 0,
            })),
            { metricName: 'legend_provision_seconds_bucket', labels: { le: '+Inf', source }, value: h.count },
            { metricName: 'legend_provision_seconds_sum', labels: { source }, value: h.sum },
            { metricName: 'legend_provision_seconds_count', labels: { source }, value: h.count },
          ];
        });
      },
    ),
    computedMetric(
      'legend_payments_total',
      'Payments by outcome: success, failure, pending (PayU not settled yet), paid-not-activated (to refund).',
      'counter',
      async () =>
        (await snapshot()).payments.map((r) => ({ labels: { outcome: r.outcome }, value: r.count })),
    ),
    computedMetric('legend_machines', 'Customer machines (vms rows) by state.', 'gauge', async () =>
      (await snapshot()).machines.map((r) => ({ labels: { state: r.state }, value: r.count })),
    ),
    computedMetric(
      'legend_alerts_open',
      'Open operator alerts by kind (npm run alerts).',
      'gauge',
      async () => (await snapshot()).alertsOpen.map((r) => ({ labels: { kind: r.kind }, value: r.count })),
    ),
    computedMetric(
      'legend_machine_health_refused_last_hour',
      'Machine health reports refused in the last hour, by outcome (bad-signature, wrong-address, replayed, stale, unknown-machine, …).',
      'gauge',
      async () =>
        (await snapshot()).healthRefusals.map((r) => ({ labels: { outcome: r.outcome }, value: r.count })),
    ),
    computedMetric(
      'legend_ec2_launches_total',
      'EC2 launches by kind (pool, machine), plan, outcome (launched, failed, refused) and cause (ok; the error class of a failure; hold or launch-budget for a refusal).',
      'counter',
      async () =>
        (await snapshot()).launches.map((r) => ({
          labels: { kind: r.kind, plan: r.plan, outcome: r.outcome, cause: r.cause },
          value: r.count,
        })),
    ),
    computedMetric(
      'legend_pool_held',
      'Whether each plan’s warm pool is on hold now (1), by the cause of its latest hold: nothing is launched for it until the hold ends or its alert is acknowledged.',
      'gauge',
      async () =>
        (await snapshot()).poolHolds.map((r) => ({
          labels: { plan: r.plan, cause: r.cause },
          value: r.held,
        })),
    ),
    computedMetric(
      'legend_pool_holds_total',
      'Warm-pool holds begun, by plan and cause (password-undecryptable, image-fault, permission-denied, unhealthy).',
      'counter',
      async () =>
        (await snapshot()).poolHolds.map((r) => ({
          labels: { plan: r.plan, cause: r.cause },
          value: r.total,
        })),
    ),
    computedMetric(
      'legend_backed_off_steps',
      'Machines, spares and the account waiting out a backoff after failing steps, by EC2 action and cause (throttled, capacity, permission, password…).',
      'gauge',
      async () =>
        (await snapshot()).backedOffSteps.map((r) => ({
          labels: { action: r.action, cause: r.cause },
          value: r.count,
        })),
    ),
  ];
  for (const metric of metrics) registry.registerMetric(metric);
}

export type MetricsAccess = 'allowed' | 'unauthorized' | 'off';

/**
 * Who may read /metrics: anyone outside production; in production only a request bearing
 * METRICS_TOKEN (compared in constant time), and nobody when no token is configured.
 */
export function metricsAccess(config: Config, authorization: string | undefined): MetricsAccess {
  if (!config.production) return 'allowed';
  const token = config.ops.metricsToken;
  if (!token) return 'off';
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!match) return 'unauthorized';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]!), digest(token)) ? 'allowed' : 'unauthorized';
}

/** Serves `registry` at GET /metrics on its own port (the worker, which has no web server). */
export async function serveMetrics(
  registry: Registry,
  config: Config,
  log: Logger,
  port: number,
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const access = metricsAccess(config, req.headers.authorization);
    if (access !== 'allowed') {
      res.writeHead(access === 'off' ? 404 : 401, { 'content-type': 'text/plain' }).end(`${access}\n`);
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        log.error({ err: error }, 'metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => resolve());
  });
  return server;
}
