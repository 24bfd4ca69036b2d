import { DescribeFastLaunchImagesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { FastLaunchState } from '../domain/imageChecks.ts';
import { awsClientConfig, type AwsClientOptions } from './awsClientConfig.ts';

/**
 * EC2 Fast Launch of our images (DescribeFastLaunchImages): whether EC2 keeps pre-provisioned
 * snapshots of each, so a launch skips most of Windows' first boot. Read only: the image build
 * (Packer's fast_launch) or an operator turns it on, never the worker.
 */
export async function describeFastLaunch(
  options: AwsClientOptions,
  imageIds: string[],
): Promise<Map<string, FastLaunchState>> {
  const client = new EC2Client(awsClientConfig(options));
  try {
    const found = new Map<string, FastLaunchState>();
    let nextToken: string | undefined;
    do {
      const page = await client.send(
        new DescribeFastLaunchImagesCommand({ ImageIds: imageIds, NextToken: nextToken }),
      );
      for (const image of page.FastLaunchImages ?? []) {
        if (!image.ImageId) continue;
        found.set(image.ImageId, {
          state: image.State ?? 'unknown',
          reason: image.StateTransitionReason ?? null,
          snapshots: image.SnapshotConfiguration?.TargetResourceCount ?? null,
          maxParallelLaunches: image.MaxParallelLaunches ?? null,
        });
      }
      nextToken = page.NextToken || undefined;
    } while (nextToken);
    return found;
  } finally {
    client.destroy();
  }
}
