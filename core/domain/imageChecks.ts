/**
 * What a machine made from our Windows image (infra/image) must show, in one place: the display
 * modes its virtual display offers, the GPU its instance type carries, and the verdict
 * `npm run aws:smoke` prints on a real machine's signed health report. The image's build-time
 * verification (infra/image/scripts/90-verify-image.ps1) checks the same things on the build
 * instance; api/routes/machineHealth.image.test.ts holds the recipe to these constants.
 */

/** The sizes the virtual display offers a Moonlight client (16:9, and 16:10 for laptops and handhelds). */
export const STREAM_RESOLUTIONS = [
  [1280, 720],
  [1280, 800],
  [1600, 900],
  [1920, 1080],
  [1920, 1200],
  [2560, 1440],
  [2560, 1600],
  [3840, 2160],
] as const;

/** The refresh rates offered at every size (what Moonlight's frame-rate choices ask for). */
export const STREAM_REFRESH_RATES = [60, 90, 120, 144] as const;

/** A display mode as the health report names it: `1920x1080@120`. */
export function modeKey(width: number, height: number, refreshHz: number): string {
  return `${width}x${height}@${Math.round(refreshHz)}`;
}

/** Every mode the image's virtual display must offer. */
export const REQUIRED_DISPLAY_MODES: readonly string[] = STREAM_RESOLUTIONS.flatMap(([w, h]) =>
  STREAM_REFRESH_RATES.map((hz) => modeKey(w, h, hz)),
);

/**
 * The NVIDIA GPU model of each GPU instance family we sell, as nvidia-smi names it (a word of the
 * name: "Tesla T4" or "NVIDIA T4", "NVIDIA A10G"). From AWS's accelerated-computing instance
 * pages; plans.ts says the same in its `gpu` wording (a test holds the two together).
 */
export const GPU_MODEL_BY_FAMILY: Readonly<Record<string, string>> = {
  g4dn: 'T4',
  g5: 'A10G',
  g6: 'L4',
  g6e: 'L40S',
};

/** The GPU model an instance type carries, or null for a family not in the table. */
export function expectedGpuModel(instanceType: string): string | null {
  const family = instanceType.split('.')[0] ?? '';
  return GPU_MODEL_BY_FAMILY[family] ?? null;
}

/**
 * Whether the GPU a machine reports is the one its instance type carries: null when either is
 * unknown (no GPU answered, or a family not in the table), which is not a mismatch.
 */
export function gpuMatchesInstanceType(reportedName: string | null, instanceType: string): boolean | null {
  const model = expectedGpuModel(instanceType);
  if (!reportedName || !model) return null;
  const words = reportedName.toUpperCase().split(/[^A-Z0-9]+/);
  return words.includes(model.toUpperCase());
}

/** An image's EC2 Fast Launch as DescribeFastLaunchImages says it (null: not set up for it). */
export type FastLaunchState = {
  state: string;
  reason: string | null;
  snapshots: number | null;
  maxParallelLaunches: number | null;
};

/** The command infra/README.md gives for an image built without it. */
export function enableFastLaunchCommand(imageId: string): string {
  return `aws ec2 enable-fast-launch --image-id ${imageId} --resource-type snapshot --snapshot-configuration TargetResourceCount=5 --max-parallel-launches 6`;
}

/** `npm run aws:check`'s line on whether an image launches from pre-provisioned snapshots. */
export function fastLaunchVerdict(
  imageId: string,
  planIds: string[],
  fastLaunch: FastLaunchState | null,
): { ok: boolean; detail: string; fix?: string } {
  const which = `${imageId} (${planIds.join(', ')})`;
  if (!fastLaunch)
    return {
      ok: false,
      detail: `off for ${which}: every launch runs Windows' first boot in full`,
      fix: `build it with fast_launch on (infra/image) or run ${enableFastLaunchCommand(imageId)}`,
    };
  if (fastLaunch.state === 'enabled')
    return {
      ok: true,
      detail: `on for ${which}: ${fastLaunch.snapshots ?? '?'} pre-provisioned snapshots, up to ${fastLaunch.maxParallelLaunches ?? '?'} launches at once`,
    };
  if (fastLaunch.state === 'enabling')
    return {
      ok: false,
      detail: `not on yet for ${which}: EC2 is pre-provisioning its snapshots`,
      fix: 'run npm run aws:check again in a few minutes',
    };
  return {
    ok: false,
    detail: `${fastLaunch.state} for ${which}${fastLaunch.reason ? `: ${fastLaunch.reason}` : ''}`,
    fix: `run ${enableFastLaunchCommand(imageId)} again, or see the EC2 console's Fast Launch status for the image`,
  };
}
