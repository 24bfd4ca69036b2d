/**
 * The gaming figures, once: which plan is for games, the stream qualities a cloud PC offers and
 * the download speed each needs. The landing page, the services page and its FAQ, the blog, the
 * plans page, the connection check, the guides and the dashboard all render these; none writes
 * its own (tests/e2e/gaming-figures.test.ts reads every page that quotes them and checks).
 *
 * Where the figures come from:
 * - Frame rates and resolutions: the image's virtual display offers 1920×1080, 2560×1440 and
 *   3840×2160 at 60, 90, 120 and 144 Hz (infra/image/scripts/08-virtual-display.ps1), which is
 *   what Sunshine streams. "Up to" is the display's top rate; what a game reaches depends on the game.
 * - Speed needed: Moonlight's default bitrate for a resolution and frame rate (moonlight-qt,
 *   app/settings/streamingpreferences.cpp, `getDefaultBitrate`): a resolution factor (5 for 720p,
 *   10 for 1080p, 20 for 1440p, 40 for 4K) times fps/30, the frame rate counted as √(fps/60)×60
 *   above 60 fps, rounded to whole Mbps. The stream uses what that line carries, so a line
 *   slower than it stutters.
 */
import { getPlan, type PlanId } from './plans.ts';

/** Moonlight's default bitrate, in Mbps, for a stream of `width`×`height` at `fps` (see above). */
export function moonlightDefaultMbps(width: number, height: number, fps: number): number {
  const table: ReadonlyArray<readonly [number, number]> = [
    [640 * 360, 1],
    [854 * 480, 2],
    [1280 * 720, 5],
    [1920 * 1080, 10],
    [2560 * 1440, 20],
    [3840 * 2160, 40],
  ];
  const pixels = width * height;
  let factor = table.at(-1)![1];
  for (let i = 0; i < table.length; i++) {
    const [size, value] = table[i]!;
    if (pixels === size) {
      factor = value;
      break;
    }
    if (pixels < size) {
      const [lowerSize, lowerValue] = table[i - 1] ?? [size, value];
      factor =
        i === 0 ? value : ((pixels - lowerSize) / (size - lowerSize)) * (value - lowerValue) + lowerValue;
      break;
    }
  }
  const frameRate = (fps <= 60 ? fps : Math.sqrt(fps / 60) * 60) / 30;
  return Math.round(factor * frameRate);
}

export type StreamMode = {
  /** `1080p 60 fps`. */
  label: string;
  resolution: '720p' | '1080p' | '1440p' | '4K';
  width: number;
  height: number;
  fps: number;
  /** What the stream needs from the line, Mbps (Moonlight's default bitrate). */
  mbps: number;
};

function mode(resolution: StreamMode['resolution'], width: number, height: number, fps: number): StreamMode {
  return {
    label: `${resolution} ${fps} fps`,
    resolution,
    width,
    height,
    fps,
    mbps: moonlightDefaultMbps(width, height, fps),
  };
}

/** The qualities we name, lightest first (each needs more than the one before). */
export const STREAM_MODES: readonly StreamMode[] = [
  mode('720p', 1280, 720, 60),
  mode('1080p', 1920, 1080, 60),
  mode('1080p', 1920, 1080, 120),
  mode('1080p', 1920, 1080, 144),
  mode('1440p', 2560, 1440, 60),
  mode('1440p', 2560, 1440, 120),
  mode('4K', 3840, 2160, 60),
];

const find = (label: string) => STREAM_MODES.find((m) => m.label === label)!;

/** The lightest quality worth playing at (below it Moonlight looks soft and Moonlight's own 720p default is the floor). */
export const MINIMUM_MODE = find('720p 60 fps');
/** What most people should aim for: sharp and smooth on a laptop or a TV. */
export const RECOMMENDED_MODE = find('1080p 60 fps');

/** The plan for games (an A10G), and the one for lighter games. */
export const GAMING_PLAN: PlanId = 'ultra-legend';
export const LIGHT_GAMING_PLAN: PlanId = 'legend';

/** The figures the copy quotes, worked out once. */
export const GAMING = {
  planId: GAMING_PLAN,
  planName: getPlan(GAMING_PLAN).name,
  gpu: getPlan(GAMING_PLAN).gpu,
  lightPlanName: getPlan(LIGHT_GAMING_PLAN).name,
  /** The display's top refresh rate: the most frames a second Moonlight can stream. */
  maxFps: Math.max(...STREAM_MODES.map((m) => m.fps)),
  maxResolution: '4K',
  minimumMbps: MINIMUM_MODE.mbps,
  recommendedMbps: RECOMMENDED_MODE.mbps,
  minimumMode: MINIMUM_MODE.label,
  recommendedMode: RECOMMENDED_MODE.label,
  /** Every frame rate the copy may quote (a test checks each page against these). */
  fpsFigures: [...new Set(STREAM_MODES.map((m) => m.fps))],
} as const;

/** The best quality a line of `mbps` carries, or null when it carries none of them. */
export function bestModeFor(mbps: number): StreamMode | null {
  let best: StreamMode | null = null;
  for (const candidate of STREAM_MODES)
    if (candidate.mbps <= mbps && (!best || candidate.mbps > best.mbps)) best = candidate;
  return best;
}

/** "1080p at 60 fps", for running text. */
export function spoken(m: StreamMode): string {
  return `${m.resolution} at ${m.fps} fps`;
}

/** The one sentence the copy uses for the speed gaming needs. */
export const GAMING_SPEED_SENTENCE = `For games through Moonlight: ${MINIMUM_MODE.mbps} Mbps for ${spoken(MINIMUM_MODE)}, ${RECOMMENDED_MODE.mbps} Mbps for ${spoken(RECOMMENDED_MODE)}, ${find('1440p 60 fps').mbps} Mbps for 1440p and ${find('4K 60 fps').mbps} Mbps for 4K at 60 fps.`;
