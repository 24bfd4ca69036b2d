import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/**
 * Time-based one-time passwords (RFC 6238: SHA-1, 6 digits, 30 s), which every authenticator
 * app speaks. A code is accepted one step either side of now (phones drift), and each time
 * step only once: the caller stores the step this returns and passes it back as `afterStep`.
 */

export const TOTP_ISSUER = 'Legend Cloud';
const TOLERANCE_SECONDS = 30;
const PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, accountEmail: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: accountEmail, secret });
}

/** The QR code of the otpauth URI as a data: URL (the CSP allows data: images). */
export function totpQrCode(uri: string): Promise<string> {
  return QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
}

/** The time step the code matched, or null when it is wrong, stale or already used. */
export async function checkTotp(
  secret: string,
  code: string,
  afterStep: number | null,
): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  // Every step a code could match now is at or before the one last used: nothing can match
  // (and otplib refuses such an afterTimeStep). Anything else it throws is a fault (a stored
  // secret that is not one), not a wrong code, so it propagates.
  const latestStep = Math.floor((Date.now() / 1000 + TOLERANCE_SECONDS) / PERIOD_SECONDS);
  if (afterStep !== null && afterStep >= latestStep) return null;
  const result = await verify({
    secret,
    token: code,
    period: PERIOD_SECONDS,
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  });
  // The functional API's result type covers HOTP too; a TOTP match always carries its step.
  const step = result.valid ? (result as { timeStep?: number }).timeStep : undefined;
  return typeof step === 'number' ? step : null;
}
