import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HealthReportBody } from './machineHealth.ts';
import {
  HEALTH_SIGNATURE_HEADER,
  HEALTH_SIGNATURE_VERSION,
  HEALTH_TIMESTAMP_HEADER,
} from '../../core/domain/machineHealth.ts';
import { MACHINE_CONFIG_MARKER, MACHINE_SETUP_SCRIPT } from '../../core/domain/machineSetup.ts';
import { STREAMING_INGRESS, SUNSHINE_API_PORT } from '../../core/domain/streaming.ts';

/**
 * The Windows image (infra/image) and the site must speak the same language: the user data's
 * settings line, the report's fields, its signature and headers, the streaming ports. Nothing here
 * runs PowerShell (this machine has none); it proves the recipe says what the code expects.
 */

const IMAGE = path.resolve(import.meta.dirname, '../../infra/image');
const read = (file: string) => readFileSync(path.join(IMAGE, file), 'utf8');
const reporter = read('health-report.ps1');
const setup = read('machine-setup.ps1');
const sunshine = read('scripts/07-sunshine.ps1');
const display = read('scripts/08-virtual-display.ps1');
const packer = read('legend-cloud-windows.pkr.hcl');

describe('the image recipe and the site agree', () => {
  it('the setup script is where the user data runs it from, and reads the settings line it writes', () => {
    expect(packer).toContain(`destination = "${MACHINE_SETUP_SCRIPT.replaceAll('\\', '/')}"`);
    expect(setup).toContain(`$marker = '${MACHINE_CONFIG_MARKER}'`);
    for (const key of ['sunshineUsername', 'sunshinePassword']) expect(setup).toContain(`$settings.${key}`);
    expect(setup).toContain('--creds');
  });

  it('the reporter signs and sends as the health endpoint checks', () => {
    const header = (name: string) => new RegExp(`'${name}'`, 'i');
    expect(reporter).toMatch(header(HEALTH_TIMESTAMP_HEADER));
    expect(reporter).toMatch(header(HEALTH_SIGNATURE_HEADER));
    expect(reporter).toContain(`"${HEALTH_SIGNATURE_VERSION}=$mac"`);
    expect(reporter).toContain('HMACSHA256');
    expect(reporter).toContain('"$timestamp.$body"');
    expect(reporter).toContain('$settings.healthSecret');
    expect(reporter).toContain('$settings.healthUrl');
  });

  it('the report has every field the endpoint requires', () => {
    const fields = (shape: Record<string, unknown>): string[] =>
      Object.entries(shape).flatMap(([key, value]) => {
        const inner = (value as { shape?: Record<string, unknown> }).shape;
        return inner ? [key, ...fields(inner)] : [key];
      });
    for (const field of fields(HealthReportBody.shape))
      expect(reporter, field).toMatch(new RegExp(`\\b${field} = `));
  });

  it("opens Moonlight's ports and Sunshine's API in Windows' firewall, and lets the worker call it from the WAN", () => {
    for (const rule of STREAMING_INGRESS.filter(
      (r) => r.purpose.startsWith('Moonlight') || r.source === 'worker',
    )) {
      const port = rule.from === rule.to ? String(rule.from) : `'${rule.from}-${rule.to}'`;
      expect(sunshine, `${rule.protocol} ${port}`).toMatch(
        new RegExp(`-Protocol ${rule.protocol.toUpperCase()} -LocalPort [^\\n]*${port}`),
      );
    }
    expect(sunshine).toContain(`-LocalPort ${SUNSHINE_API_PORT}`);
    expect(sunshine).toContain("'origin_web_ui_allowed = wan'");
  });

  it('gives the GPU a virtual display at 1080p, 1440p and 4K, 60 to 144 Hz', () => {
    expect(display).toContain('@(1920, 1080), @(2560, 1440), @(3840, 2160)');
    for (const hz of [60, 90, 120, 144]) expect(display).toContain(`<g_refresh_rate>${hz}</g_refresh_rate>`);
  });
});
