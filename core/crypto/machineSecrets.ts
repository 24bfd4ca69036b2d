import { createHmac, randomBytes } from 'node:crypto';
import { decrypt, encrypt, randomToken, safeEqual } from './crypto.ts';
import { HEALTH_SIGNATURE_VERSION, signedHealthPayload } from '../domain/machineHealth.ts';

/**
 * Secrets each machine gets at launch: its Sunshine web-API credentials and the key its health
 * reports are signed with. Random per machine, sealed at rest with AES-256-GCM under a key
 * derived from APP_SECRET for each purpose (as Windows passwords are), opened only by the worker
 * (to call Sunshine, to write the user data) and the health endpoint (to check a signature).
 */
const SUNSHINE_PURPOSE = 'sunshine-password';
const HEALTH_PURPOSE = 'machine-health-secret';
const PIN_PURPOSE = 'moonlight-pin';

export type FreshMachineSecrets = {
  sunshineUsername: string;
  sunshinePassword: string;
  healthSecret: string;
};

/** New secrets for one machine: a username that names nothing, 256-bit password and key. */
export function generateMachineSecrets(): FreshMachineSecrets {
  return {
    sunshineUsername: `legend-${randomBytes(8).toString('hex')}`,
    sunshinePassword: randomToken(32),
    healthSecret: randomToken(32),
  };
}

export function sealSunshinePassword(appSecret: string, password: string): string {
  return encrypt(appSecret, SUNSHINE_PURPOSE, password);
}
export function openSunshinePassword(appSecret: string, sealed: string): string {
  return decrypt(appSecret, SUNSHINE_PURPOSE, sealed);
}
export function sealHealthSecret(appSecret: string, secret: string): string {
  return encrypt(appSecret, HEALTH_PURPOSE, secret);
}
export function openHealthSecret(appSecret: string, sealed: string): string {
  return decrypt(appSecret, HEALTH_PURPOSE, sealed);
}
/** A Moonlight PIN between the API and the worker: only sealed in the row, cleared once used. */
export function sealPin(appSecret: string, pin: string): string {
  return encrypt(appSecret, PIN_PURPOSE, pin);
}
export function openPin(appSecret: string, sealed: string): string {
  return decrypt(appSecret, PIN_PURPOSE, sealed);
}

/** `v1=<hex HMAC-SHA256>` of a health report, as the machine's reporter computes it. */
export function signHealthReport(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret)
    .update(signedHealthPayload(timestampSeconds, body), 'utf8')
    .digest('hex');
  return `${HEALTH_SIGNATURE_VERSION}=${mac}`;
}

/** Whether `signature` is this secret's over the timestamp and body (constant time). */
export function healthSignatureValid(
  secret: string,
  timestampSeconds: number,
  body: string,
  signature: string,
): boolean {
  return safeEqual(signHealthReport(secret, timestampSeconds, body), signature.trim().toLowerCase());
}
