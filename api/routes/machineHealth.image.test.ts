import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HealthReportBody } from './machineHealth.ts';
import {
  REQUIRED_DISPLAY_MODES,
  STREAM_REFRESH_RATES,
  STREAM_RESOLUTIONS,
} from '../../core/domain/imageChecks.ts';
import {
  HEALTH_SIGNATURE_HEADER,
  HEALTH_SIGNATURE_VERSION,
  HEALTH_TIMESTAMP_HEADER,
} from '../../core/domain/machineHealth.ts';
import { MACHINE_CONFIG_MARKER, MACHINE_SETUP_SCRIPT } from '../../core/domain/machineSetup.ts';
import { STREAMING_INGRESS, SUNSHINE_API_PORT } from '../../core/domain/streaming.ts';

/**
 * The Windows image (infra/image) and the site must speak the same language: the user data's
 * settings line, the report's fields, its signature and headers, the streaming ports, the display
 * modes; and the recipe must do what the upstream sources say, in the order they need. Nothing
 * here runs PowerShell (this machine has none): the scripts are parsed with tree-sitter's
 * PowerShell grammar (a syntax check, not PowerShell's own parser) and read for what they must say.
 */

const IMAGE = path.resolve(import.meta.dirname, '../../infra/image');
const read = (file: string) => readFileSync(path.join(IMAGE, file), 'utf8');
const reporter = read('health-report.ps1');
const setup = read('machine-setup.ps1');
const sunshine = read('scripts/07-sunshine.ps1');
const display = read('scripts/08-virtual-display.ps1');
const licence = read('scripts/01-nvidia-licence.ps1');
const audio = read('scripts/10-audio.ps1');
const gamepad = read('scripts/11-gamepad.ps1');
const handback = read('console-handback.ps1');
const handbackTask = read('scripts/12-console-handback-task.ps1');
const verify = read('scripts/90-verify-image.ps1');
const ec2launch = read('ec2launch-agent-config.yml');
const packer = read('legend-cloud-windows.pkr.hcl');
const scripts = readdirSync(IMAGE, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ps1'));

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

  it('the report has every field the endpoint reads, the ones older images lack included', () => {
    const unwrap = (value: unknown): unknown =>
      value instanceof z.ZodOptional || value instanceof z.ZodNullable ? unwrap(value.unwrap()) : value;
    const fields = (shape: Record<string, unknown>): string[] =>
      Object.entries(shape).flatMap(([key, value]) => {
        const inner = unwrap(value);
        return inner instanceof z.ZodObject ? [key, ...fields(inner.shape)] : [key];
      });
    const all = fields(HealthReportBody.shape);
    expect(all).toEqual(
      expect.arrayContaining(['audio', 'endpoint', 'gamepad', 'xinput', 'modes', 'apiAnswers']),
    );
    for (const field of all) expect(reporter, field).toMatch(new RegExp(`\\b${field} = `));
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

  it('gives the GPU a virtual display with every mode the site expects, and the build checks the same list', () => {
    const sizes = STREAM_RESOLUTIONS.map(([w, h]) => `@(${w}, ${h})`).join(', ');
    expect(display).toContain(`$resolutions = @(${sizes})`);
    for (const hz of STREAM_REFRESH_RATES)
      expect(display).toContain(`<g_refresh_rate>${hz}</g_refresh_rate>`);
    const verified = STREAM_RESOLUTIONS.map(([w, h]) => `'${w}x${h}'`).join(', ');
    expect(verify).toContain(`foreach ($size in ${verified})`);
    expect(verify).toContain(`foreach ($hz in ${STREAM_REFRESH_RATES.join(', ')})`);
    expect(REQUIRED_DISPLAY_MODES).toHaveLength(STREAM_RESOLUTIONS.length * STREAM_REFRESH_RATES.length);
  });
});

describe('the image recipe follows its upstream sources', () => {
  it("licenses the gaming driver under the driver's own key and picks the certificate by the installed version (AWS's table)", () => {
    expect(licence).toContain("'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\nvlddmkm\\Global'");
    expect(licence).toContain("$version -ge [version]'527.27'");
    expect(licence).toContain("@{ From = '591.59'; To = $null; File = 'GridSwCert_2026_03_02.cert' }");
    expect(licence).toContain(
      "@{ From = '576.80'; To = '581.80'; File = 'GridSwCertWindows_2025_07_01.cert' }",
    );
    expect(licence).toContain(
      "@{ From = '460.39'; To = '576.72'; File = 'GridSwCertWindows_2024_02_22.cert' }",
    );
    expect(licence).not.toContain("-like '*Windows*'");
    // After the driver's reboot, when nvidia-smi can say which version is installed.
    expect(packer.indexOf('01-nvidia-licence.ps1')).toBeGreaterThan(packer.indexOf('windows-restart'));
  });

  it("syspreps as Packer's amazon plugin documents for Windows 2022, blocking, as the very last step", () => {
    const sysprep = [
      `"& 'C:/Program Files/Amazon/EC2Launch/ec2launch' reset --block",`,
      `"& 'C:/Program Files/Amazon/EC2Launch/ec2launch' sysprep --shutdown --block",`,
    ].join('\n      ');
    expect(packer).toContain(sysprep);
    expect(packer).not.toMatch(/Start-Process[^\n]*sysprep/);
    const build = packer.slice(packer.indexOf('build {'));
    const verifyAt = build.indexOf('90-verify-image.ps1');
    const sysprepAt = build.indexOf('sysprep --shutdown --block');
    // The image is verified after everything is installed and configured, and only then sysprepped.
    for (const step of [
      '01-nvidia-licence.ps1',
      '10-audio.ps1',
      '11-gamepad.ps1',
      '12-console-handback-task.ps1',
      '06-ec2launch-config.ps1',
    ])
      expect(build.indexOf(step), step).toBeLessThan(verifyAt);
    expect(verifyAt).toBeLessThan(sysprepAt);
    expect(build.slice(sysprepAt)).not.toContain('provisioner "');
  });

  it('writes EC2Launch v2 inputs by their documented names, and validates the file in the build', () => {
    expect(ec2launch).toMatch(/- task: setDnsSuffix\n\s+inputs:\n\s+suffixes:\n/);
    expect(ec2launch).not.toMatch(/^\s+suffix:/m);
    expect(read('scripts/06-ec2launch-config.ps1')).toContain("EC2Launch.exe' validate");
    expect(verify).toContain("EC2Launch.exe' validate");
  });

  it('extends C: at every boot, and checks Sunshine stored the credentials by reading its state file', () => {
    expect(setup).toContain('Resize-Partition -DriveLetter C -Size $supported.SizeMax');
    expect(setup.indexOf('Resize-Partition')).toBeLessThan(setup.indexOf('no legend-machine settings'));
    expect(setup).toContain("config\\sunshine_state.json'");
    expect(setup).toContain('[array]::Reverse($digest)');
    expect(setup).toContain('$stored.password -ne $expected');
    // `sunshine --creds` always exits 0: its exit code proves nothing.
    expect(setup).not.toMatch(/--creds[\s\S]{0,200}\$LASTEXITCODE/);
  });

  it('pins Sunshine to a tagged release with its SHA-256, and sets sound, gamepads and the client’s mode', () => {
    expect(packer).toMatch(
      /default = "https:\/\/github\.com\/LizardByte\/Sunshine\/releases\/download\/v\d+\.\d+\.\d+\/Sunshine-Windows-AMD64-installer\.msi"/,
    );
    expect(packer).not.toContain('/releases/latest/');
    expect(packer).toMatch(/variable "sunshine_msi_sha256" \{[^}]*default = "[0-9A-F]{64}"/);
    for (const setting of [
      'virtual_sink = Steam Streaming Speakers',
      'gamepad = x360',
      'dd_configuration_option = ensure_only_display',
      'dd_resolution_option = auto',
      'dd_refresh_rate_option = auto',
    ])
      expect(sunshine).toContain(`'${setting}'`);
    expect(setup).toContain('output_name = $deviceId');
  });

  it('installs the VC++ runtime before the virtual display driver', () => {
    expect(display.indexOf('vc_redist')).toBeGreaterThan(-1);
    expect(display.indexOf('vc_redist')).toBeLessThan(display.indexOf("'install'"));
  });

  it('turns Windows Audio on and adds a virtual audio endpoint; installs the gamepad bus and Windows’ XInput driver silently', () => {
    expect(audio).toMatch(
      /foreach \(\$service in 'AudioEndpointBuilder', 'Audiosrv'\) \{\s+Set-Service -Name \$service -StartupType Automatic/,
    );
    expect(audio).toContain('SteamStreamingSpeakers.inf');
    expect(audio).toContain('DiInstallDriverW');
    expect(gamepad).toContain("'/i', $msi, '/qn', '/norestart'");
    expect(gamepad).toContain('pnputil.exe" /add-driver $inf.FullName /install');
  });

  it('hands a Remote Desktop session back to the console on disconnect and logoff', () => {
    expect(handbackTask).toContain("'Microsoft-Windows-TerminalServices-LocalSessionManager/Operational'");
    expect(handbackTask).toContain('foreach ($eventId in 24, 23)');
    expect(handback).toContain('tscon.exe" $id /dest:console');
    expect(reporter).toContain("'LegendCloud console hand-back'");
    expect(handbackTask).toContain("-TaskName 'LegendCloud console hand-back'");
  });

  it('fails the build on any failed check, naming it and what was seen', () => {
    for (const check of [
      'driver licensed',
      'virtual display',
      'audio',
      'gamepad bus',
      'Sunshine',
      'DCV',
      'EC2Launch config',
    ])
      expect(verify).toContain(`Test-Check '${check}'`);
    expect(verify).toContain("Write-Output ('{0} {1}: {2}'");
    expect(verify).toMatch(/IMAGE VERIFICATION FAILED: [^\n]*\n\s+exit 1/);
  });
});

describe('the PowerShell scripts', () => {
  it('parse without syntax errors (tree-sitter’s PowerShell grammar)', async () => {
    await Parser.init();
    const grammar = path.resolve(
      import.meta.dirname,
      '../../node_modules/tree-sitter-powershell/tree-sitter-powershell.wasm',
    );
    const parser = new Parser();
    parser.setLanguage(await Language.load(grammar));
    expect(scripts.length).toBeGreaterThan(10);
    for (const file of scripts) {
      // EC2 user data wraps its script in <powershell> tags, which are not PowerShell.
      const source = read(file).replace(/^<powershell>\r?\n|<\/powershell>\s*$/g, '');
      const tree = parser.parse(source);
      const errors: string[] = [];
      const walk = (node: NonNullable<typeof tree>['rootNode']) => {
        if (node.type === 'ERROR' || node.isMissing)
          errors.push(
            `${node.startPosition.row + 1}:${node.startPosition.column + 1} ${node.text.slice(0, 40)}`,
          );
        for (const child of node.children) if (child) walk(child);
      };
      if (tree) walk(tree.rootNode);
      expect(errors, file).toEqual([]);
    }
  });

  it('never follow a variable with a colon in a double-quoted string (PowerShell reads `$name:` as a scope or drive)', () => {
    for (const file of scripts)
      for (const [index, line] of read(file).split('\n').entries())
        expect(line, `${file}:${index + 1}`).not.toMatch(
          /"[^"]*\$(?!env:|script:|global:|using:)[A-Za-z_]\w*:[^\w\\]/,
        );
  });
});
