import { describe, expect, it } from 'vitest';
import {
  enableFastLaunchCommand,
  expectedGpuModel,
  fastLaunchVerdict,
  gpuMatchesInstanceType,
  modeKey,
  REQUIRED_DISPLAY_MODES,
  STREAM_REFRESH_RATES,
} from './imageChecks.ts';
import { PLANS } from './plans.ts';

describe('the GPU an instance type carries', () => {
  it('is the one each plan promises', () => {
    for (const plan of PLANS) {
      const model = expectedGpuModel(plan.instanceType);
      expect(model, plan.id).not.toBeNull();
      expect(plan.gpu, plan.id).toContain(`NVIDIA ${model}`);
    }
  });

  it.each<[string | null, string, boolean | null]>([
    ['Tesla T4', 'g4dn.xlarge', true],
    ['NVIDIA T4', 'g4dn.2xlarge', true],
    ['NVIDIA A10G', 'g5.xlarge', true],
    ['NVIDIA A10G', 'g4dn.xlarge', false],
    ['NVIDIA A10', 'g5.xlarge', false],
    ['Tesla T4', 'g5.4xlarge', false],
    [null, 'g4dn.xlarge', null],
    ['NVIDIA T4', 'x9.large', null],
  ])('%s on a %s: %s', (name, type, expected) => {
    expect(gpuMatchesInstanceType(name, type)).toBe(expected);
  });
});

describe('the display modes the image must offer', () => {
  it('run from 1280×720 to 3840×2160 at 60, 90, 120 and 144 Hz', () => {
    expect(REQUIRED_DISPLAY_MODES).toContain('1280x720@60');
    expect(REQUIRED_DISPLAY_MODES).toContain('3840x2160@144');
    expect([...STREAM_REFRESH_RATES]).toEqual([60, 90, 120, 144]);
    expect(new Set(REQUIRED_DISPLAY_MODES).size).toBe(REQUIRED_DISPLAY_MODES.length);
  });

  it('are named as the reporter names them, a fractional rate rounded', () => {
    expect(modeKey(1920, 1080, 119.88)).toBe('1920x1080@120');
  });
});

describe('fastLaunchVerdict', () => {
  const image = 'ami-0123456789abcdef0';
  it('is OK only when EC2 says enabled, and gives the command otherwise', () => {
    expect(
      fastLaunchVerdict(image, ['legend'], {
        state: 'enabled',
        reason: null,
        snapshots: 5,
        maxParallelLaunches: 6,
      }),
    ).toEqual({
      ok: true,
      detail: `on for ${image} (legend): 5 pre-provisioned snapshots, up to 6 launches at once`,
    });
    const off = fastLaunchVerdict(image, ['legend', 'pro-legend'], null);
    expect(off.ok).toBe(false);
    expect(off.fix).toContain(enableFastLaunchCommand(image));
    expect(
      fastLaunchVerdict(image, ['legend'], {
        state: 'enabling',
        reason: null,
        snapshots: 5,
        maxParallelLaunches: 6,
      }),
    ).toMatchObject({ ok: false, fix: 'run npm run aws:check again in a few minutes' });
    expect(
      fastLaunchVerdict(image, ['legend'], {
        state: 'enabling-failed',
        reason: 'Client.LaunchTemplateNotFound',
        snapshots: null,
        maxParallelLaunches: null,
      }).detail,
    ).toBe(`enabling-failed for ${image} (legend): Client.LaunchTemplateNotFound`);
  });
});
