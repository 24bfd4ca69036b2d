/**
 * What a machine is told at launch, in its EC2 user data: where to send its health reports, the
 * secret that signs them, and the credentials of its Sunshine web API. All three are generated
 * for that machine alone (core/commands/machineSecrets.ts) and never shared.
 *
 * The user data is an EC2Launch v2 document (YAML, version 1.1) with one task: at every boot run
 * the image's own setup script, which reads the settings back from the instance metadata. The
 * settings themselves sit on one comment line (`# legend-machine: {json}`), so EC2Launch never
 * sees them and no secret appears in a command line or a task log.
 */

export const MACHINE_CONFIG_MARKER = '# legend-machine: ';
/** Put on the image by infra/image (the Packer file provisioner). */
export const MACHINE_SETUP_SCRIPT = 'C:\\ProgramData\\LegendCloud\\machine-setup.ps1';

export type MachineSettings = {
  /** Format version of this line, for the setup script. */
  v: 1;
  /** `PUBLIC_URL` + MACHINE_HEALTH_PATH. */
  healthUrl: string;
  healthSecret: string;
  sunshineUsername: string;
  sunshinePassword: string;
};

const SAFE = /^[A-Za-z0-9_-]{16,128}$/;

/** The user data for a machine with these settings. */
export function machineUserData(settings: MachineSettings): string {
  // Only values we generated (URL-safe) and a URL go in; nothing can break out of the comment line.
  for (const value of [settings.healthSecret, settings.sunshineUsername, settings.sunshinePassword]) {
    if (!SAFE.test(value)) throw new Error('machine settings must be URL-safe random strings');
  }
  const url = new URL(settings.healthUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('health URL must be http(s)');
  if (/[\r\n]/.test(settings.healthUrl)) throw new Error('health URL must be one line');
  return [
    'version: 1.1',
    'tasks:',
    '- task: executeScript',
    '  inputs:',
    '  - frequency: always',
    '    type: powershell',
    '    runAs: localSystem',
    '    content: |-',
    `      & '${MACHINE_SETUP_SCRIPT}'`,
    `${MACHINE_CONFIG_MARKER}${JSON.stringify(settings)}`,
    '',
  ].join('\n');
}
