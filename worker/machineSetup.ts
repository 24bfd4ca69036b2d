import {
  generateMachineSecrets,
  openHealthSecret,
  openSunshinePassword,
  sealHealthSecret,
  sealSunshinePassword,
} from '../core/crypto/machineSecrets.ts';
import { secretsForLaunch } from '../core/db/machineSecrets.ts';
import { MACHINE_HEALTH_PATH } from '../core/domain/machineHealth.ts';
import { machineUserData } from '../core/domain/machineSetup.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * The user data a launch carries: this machine's own Sunshine credentials and health-report
 * secret (made once per launch token and stored sealed, so a retried RunInstances sends the same
 * document, as EC2's ClientToken requires), and where to report. Called by every launch: a
 * customer's (token = vm id) and a warm-pool spare's (token = pool row id), whose secrets stay
 * with the instance when a customer claims it.
 */
export async function userDataFor(
  deps: Pick<WorkerDeps, 'db' | 'config'>,
  launchToken: string,
): Promise<string> {
  const { appSecret, publicUrl } = deps.config;
  const row = await secretsForLaunch(deps.db, launchToken, () => {
    const fresh = generateMachineSecrets();
    return {
      sunshineUsername: fresh.sunshineUsername,
      sunshinePasswordSealed: sealSunshinePassword(appSecret, fresh.sunshinePassword),
      healthSecretSealed: sealHealthSecret(appSecret, fresh.healthSecret),
    };
  });
  return machineUserData({
    v: 1,
    healthUrl: `${publicUrl}${MACHINE_HEALTH_PATH}`,
    healthSecret: openHealthSecret(appSecret, row.health_secret_sealed),
    sunshineUsername: row.sunshine_username,
    sunshinePassword: openSunshinePassword(appSecret, row.sunshine_password_sealed),
  });
}
