import { decrypt, encrypt } from './crypto.ts';

/**
 * Windows administrator passwords at rest: AES-256-GCM under a key derived from APP_SECRET for
 * this purpose only (core/crypto/crypto.ts). Sealed by the worker the moment EC2's password data is
 * decrypted; opened only by the owner's password download. Never logged.
 */
const PURPOSE = 'windows-password';

export function sealWindowsPassword(appSecret: string, password: string): string {
  return encrypt(appSecret, PURPOSE, password);
}

export function openWindowsPassword(appSecret: string, sealed: string): string {
  return decrypt(appSecret, PURPOSE, sealed);
}
