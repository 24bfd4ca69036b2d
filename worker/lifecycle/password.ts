import type { Ec2 } from '../../core/providers/ec2.ts';
import {
  decryptWindowsPassword,
  WindowsPasswordError,
  type WindowsPasswordCheck,
} from '../../core/providers/windowsPassword.ts';
import { sealWindowsPassword } from '../../core/crypto/vmSecrets.ts';
import type { WorkerDeps } from '../deps.ts';

export type PasswordCapture =
  | { status: 'sealed'; sealed: string }
  | { status: 'not-ready' }
  | { status: 'undecryptable'; message: string; check: WindowsPasswordCheck | 'no-key' };

/**
 * EC2's password data for an instance, decrypted with our key pair's private key and sealed
 * for storage at once: the plain password lives only inside this function.
 */
export async function capturePassword(
  deps: WorkerDeps,
  ec2: Ec2,
  instanceId: string,
): Promise<PasswordCapture> {
  const privateKeyPem = deps.config.ec2.privateKeyPem;
  const { passwordData } = await ec2.getPasswordData(instanceId);
  if (!passwordData) return { status: 'not-ready' };
  if (!privateKeyPem)
    return {
      status: 'undecryptable',
      check: 'no-key',
      message: `GetPasswordData ${instanceId}: EC2_PRIVATE_KEY_PEM is not configured.`,
    };
  try {
    const result = decryptWindowsPassword(passwordData, privateKeyPem);
    switch (result.status) {
      case 'not-ready':
        return { status: 'not-ready' };
      case 'ready':
        return { status: 'sealed', sealed: sealWindowsPassword(deps.config.appSecret, result.password) };
    }
  } catch (error) {
    if (error instanceof WindowsPasswordError) {
      // Never guess: a wrong key yields bytes that are not a password, and we say which check failed.
      return {
        status: 'undecryptable',
        check: error.check,
        message: `GetPasswordData ${instanceId}: ${error.message} ${whichCheck(error, deps.config.ec2.keyName)}`,
      };
    }
    throw error;
  }
}

/**
 * The operator's words for a failed check, data first (its encoding, its length against the
 * key's), then the key: well-formed data whose padding does not check out was encrypted to
 * another key than ours. Sizes only: never the data, never the key.
 */
function whichCheck(error: WindowsPasswordError, keyName: string): string {
  const { dataLength, bytes, modulusBytes } = error.facts;
  switch (error.check) {
    case 'key':
      return 'EC2_PRIVATE_KEY_PEM is not a usable RSA private key (it does not parse as one).';
    case 'base64':
      return `The password data is not base64 (${dataLength ?? '?'} characters): EC2 or the image's first-boot agent wrote something else; the key was not tried.`;
    case 'length':
      return `The password data is ${bytes ?? '?'} bytes, but EC2_PRIVATE_KEY_PEM is a ${(modulusBytes ?? 0) * 8}-bit key (${modulusBytes ?? '?'} bytes): the instance was launched with another key pair than ${keyName}, or the key is not that pair's.`;
    case 'padding':
      return `The data is well-formed, but its PKCS#1 padding does not check out under EC2_PRIVATE_KEY_PEM: EC2_PRIVATE_KEY_PEM is not the private key of key pair ${keyName}.`;
    case 'content':
      return `The data decrypts under EC2_PRIVATE_KEY_PEM, but not to a printable password${bytes === undefined ? '' : ` (${bytes} bytes)`}: the data is corrupt, or the key is not ${keyName}'s.`;
  }
}
