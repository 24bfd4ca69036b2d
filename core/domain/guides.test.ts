import { describe, expect, it } from 'vitest';
import {
  CUSTOMER_PORTS,
  HEALTH_FIELDS,
  healthFieldHref,
  MOONLIGHT_DOWNLOADS,
  portsSummary,
  TROUBLESHOOTING,
  TROUBLESHOOTING_ANCHORS,
  troubleshootingHref,
} from './guides.ts';
import { publicPagePaths } from './siteRoutes.ts';

describe('the guides', () => {
  it('name, for each device the issue lists, the client, the file and its official page', () => {
    expect(MOONLIGHT_DOWNLOADS.map((d) => d.os)).toEqual([
      'Windows',
      'macOS',
      'Android',
      'Android TV',
      'iPhone and iPad (iOS, iPadOS)',
      'Linux',
    ]);
    const file = (os: string) => MOONLIGHT_DOWNLOADS.find((d) => d.os === os)?.file;
    expect(file('Windows')).toMatch(/MoonlightSetup-<version>\.exe/);
    expect(file('macOS')).toMatch(/Moonlight-<version>\.dmg/);
    expect(file('Linux')).toMatch(/com\.moonlight_stream\.Moonlight/);
    for (const download of MOONLIGHT_DOWNLOADS)
      expect(new URL(download.url).hostname).toMatch(
        /^(github\.com|play\.google\.com|apps\.apple\.com|flathub\.org)$/,
      );
  });

  it('name every port a customer network must let out', () => {
    const named = CUSTOMER_PORTS.map((p) => `${p.app}: ${p.protocol} ${p.ports}`);
    for (const port of [
      'Moonlight: TCP 47984',
      'Moonlight: TCP 47989',
      'Moonlight: TCP 48010',
      'Moonlight: UDP 47998–48000',
      'Amazon DCV (app and browser): TCP 8443',
      'Remote Desktop: TCP 3389',
    ])
      expect(named).toContain(port);
    expect(portsSummary('Moonlight')).toBe('TCP 47984, 47989, 48010 and UDP 47998–48000, 48010');
    // Sunshine's API is for our worker only: never in a customer's list.
    expect(named.join(' ')).not.toContain('47990');
  });

  it('say what to check, in order, for each failure, and link it to the health field that shows it and back', () => {
    expect(TROUBLESHOOTING.map((t) => t.anchor)).toEqual(Object.values(TROUBLESHOOTING_ANCHORS));
    for (const entry of TROUBLESHOOTING) {
      expect(entry.checks.length, entry.title).toBeGreaterThanOrEqual(3);
      expect(HEALTH_FIELDS[entry.field].failure).toBe(entry.key);
      expect(entry.checks.join(' '), entry.title).toContain(`“${HEALTH_FIELDS[entry.field].label}”`);
    }
    // Every failure has its field, and every field its failure: one each.
    expect(new Set(Object.values(HEALTH_FIELDS).map((f) => f.failure)).size).toBe(TROUBLESHOOTING.length);
    expect(troubleshootingHref('blackScreen')).toBe('/guides#black-screen');
    expect(healthFieldHref('address')).toBe('/dashboard#health-address');
    expect(publicPagePaths()).toContain('/guides');
  });
});
