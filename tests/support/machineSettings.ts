import { MACHINE_CONFIG_MARKER, type MachineSettings } from '../../core/domain/machineSetup.ts';

/** Reads the settings line back (what the setup script does on the machine). */
export function machineSettingsOf(userData: string): MachineSettings | null {
  const line = userData.split('\n').find((l) => l.startsWith(MACHINE_CONFIG_MARKER));
  if (!line) return null;
  try {
    const value = JSON.parse(line.slice(MACHINE_CONFIG_MARKER.length)) as MachineSettings;
    return value.v === 1 ? value : null;
  } catch {
    return null;
  }
}
