import {
  CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { awsClientConfig, type AwsClientOptions } from './awsClientConfig.ts';

/**
 * CloudWatch through the real `@aws-sdk/client-cloudwatch` (AWS JSON 1.0), against AWS or the
 * sandbox: only the endpoint and keys differ. The usage page's CPU and GPU utilisation of
 * customers' machines, many machines per GetMetricData call.
 *
 * GPU: CloudWatch has no GPU metric for Windows instances (the agent's `nvidia_smi_*` metrics
 * are Linux-only). Our Windows image runs a scheduled task (infra/image/scripts/gpu-metrics.ps1)
 * that reads `nvidia-smi` once a minute and calls PutMetricData with namespace
 * `LegendCloud/GPU`, metric `GPUUtilization`, dimension `InstanceId`, with the instance
 * profile's role; a machine without it simply has no GPU points.
 */

export const UTILISATION_METRICS = {
  cpu: { namespace: 'AWS/EC2', metricName: 'CPUUtilization' },
  gpu: { namespace: 'LegendCloud/GPU', metricName: 'GPUUtilization' },
} as const;
export type UtilisationMetric = keyof typeof UTILISATION_METRICS;
const METRIC_KINDS = Object.keys(UTILISATION_METRICS) as UtilisationMetric[];

/** GetMetricData takes at most 500 queries per call (CloudWatch quota). */
export const MAX_QUERIES_PER_CALL = 500;

export type UtilisationSample = {
  instanceId: string;
  metric: UtilisationMetric;
  /** Start of the period the value averages. */
  at: Date;
  /** Percent, 0–100. */
  value: number;
};

export type UtilisationRequest = {
  instanceIds: readonly string[];
  start: Date;
  end: Date;
  periodSeconds: number;
  /** Points per page (CloudWatch's default is 100,800); tests make it small to exercise paging. */
  maxDatapoints?: number | undefined;
};

export type CloudWatch = {
  client: CloudWatchClient;
  /**
   * Average CPU and GPU utilisation of each instance per period, in as few calls as the
   * 500-query limit allows, every page followed. Instances with no points (stopped, or no GPU
   * poller) are simply absent. SDK errors are thrown as the SDK's typed exceptions.
   */
  utilisation(request: UtilisationRequest): Promise<UtilisationSample[]>;
  destroy(): void;
};

export function createCloudWatch(options: AwsClientOptions): CloudWatch {
  const client = new CloudWatchClient(awsClientConfig(options));

  async function utilisation(request: UtilisationRequest): Promise<UtilisationSample[]> {
    const ids = [...new Set(request.instanceIds)];
    const perCall = Math.floor(MAX_QUERIES_PER_CALL / METRIC_KINDS.length);
    const samples: UtilisationSample[] = [];
    for (let i = 0; i < ids.length; i += perCall) {
      const chunk = ids.slice(i, i + perCall);
      // Query ids must start with a lowercase letter; positions map answers back to instances.
      const byQueryId = new Map<string, { instanceId: string; metric: UtilisationMetric }>();
      const queries: MetricDataQuery[] = [];
      chunk.forEach((instanceId, index) => {
        for (const metric of METRIC_KINDS) {
          const id = `${metric}_${index}`;
          byQueryId.set(id, { instanceId, metric });
          queries.push({
            Id: id,
            MetricStat: {
              Metric: {
                Namespace: UTILISATION_METRICS[metric].namespace,
                MetricName: UTILISATION_METRICS[metric].metricName,
                Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
              },
              Period: request.periodSeconds,
              Stat: 'Average',
            },
            ReturnData: true,
          });
        }
      });
      let nextToken: string | undefined;
      do {
        const page = await client.send(
          new GetMetricDataCommand({
            MetricDataQueries: queries,
            StartTime: request.start,
            EndTime: request.end,
            ScanBy: 'TimestampAscending',
            NextToken: nextToken,
            ...(request.maxDatapoints ? { MaxDatapoints: request.maxDatapoints } : {}),
          }),
        );
        for (const result of page.MetricDataResults ?? []) {
          const target = result.Id ? byQueryId.get(result.Id) : undefined;
          if (target) samples.push(...toSamples(result, target));
        }
        nextToken = page.NextToken || undefined;
      } while (nextToken);
    }
    return samples;
  }

  return { client, utilisation, destroy: () => client.destroy() };
}

function toSamples(
  result: MetricDataResult,
  target: { instanceId: string; metric: UtilisationMetric },
): UtilisationSample[] {
  const timestamps = result.Timestamps ?? [];
  const values = result.Values ?? [];
  const samples: UtilisationSample[] = [];
  timestamps.forEach((at, i) => {
    const value = values[i];
    if (value === undefined || !Number.isFinite(value) || !(at instanceof Date)) return;
    samples.push({ ...target, at, value: Math.min(100, Math.max(0, value)) });
  });
  return samples;
}
